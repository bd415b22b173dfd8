// The CLI's answer-shaping options on the causal fixture: unresolved names folded into one line
// (--unresolved lists them), --max-tokens with its note, skeleton --docs.
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { requireBuiltCli, runCli } from './helpers/cli';
import { copyFixture } from './helpers/workspace';

let root: string;
const nsccn = (...args: string[]) => runCli(root, ...args);

beforeAll(() => {
  requireBuiltCli();
  root = copyFixture('causal');
  expect(nsccn('index').code).toBe(0);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('trace text', () => {
  test('unresolved names are one summary line', () => {
    expect(nsccn('trace', 'method:service/core.py:Service.open').stdout).toBe(
      [
        'method:service/core.py:Service.open  def open(self, email, premium=False)',
        '  → CALLS to func:service/util_a.py:normalize (line 25) [ambiguous]',
        '  → CALLS to func:service/util_b.py:normalize (line 25) [ambiguous]',
        '  → CALLS to method:service/models.py:Premium.__init__ (line 26)',
        '    → CALLS to method:service/models.py:Account.__init__ (line 19)',
        '  → CALLS to method:service/models.py:Account.__init__ (line 26)',
        '  → CALLS to method:service/store.py:Store.put (line 27)',
        '  + 3 unresolved (AUDIT.append, lower, strip); --unresolved lists them',
        '',
      ].join('\n'),
    );
  });

  test('--unresolved lists them where they are', () => {
    const out = nsccn('trace', 'method:service/core.py:Service.open', '--unresolved').stdout;
    expect(out).toContain('  → CALLS to func:service/util_a.py:normalize (line 25) [ambiguous]\n    → CALLS to strip (line 2) [unresolved]\n');
    expect(out).toContain('  → CALLS to AUDIT.append (line 28) [unresolved]\n');
    expect(out).not.toContain('--unresolved lists them');
  });

  test('--max-tokens keeps the nearest resolved edges and says what it dropped', () => {
    expect(nsccn('trace', 'method:service/core.py:Service.open', '--max-tokens', '480').stdout).toBe(
      [
        'method:service/core.py:Service.open  def open(self, email, premium=False)',
        '  → CALLS to func:service/util_a.py:normalize (line 25) [ambiguous]',
        '  → CALLS to func:service/util_b.py:normalize (line 25) [ambiguous]',
        '  → CALLS to method:service/models.py:Premium.__init__ (line 26)',
        '  → CALLS to method:service/models.py:Account.__init__ (line 26)',
        '  → CALLS to method:service/store.py:Store.put (line 27)',
        '[truncated: dropped 4 of 9 edges (resolved edges from hop 2 on, 3 unresolved names) to fit 480 tokens; raise the budget or lower the depth to see them]',
        '',
      ].join('\n'),
    );
    expect(nsccn('trace', 'method:service/core.py:Service.open', '--max-tokens', '3').code).toBe(2);
  });

  test('--relations INHERITS --direction up: who subclasses ServiceError', () => {
    expect(nsccn('trace', 'class:service/errors.py:ServiceError', '--relations', 'INHERITS', '--direction', 'up').stdout).toBe(
      [
        'class:service/errors.py:ServiceError  class ServiceError(Exception)',
        '  ← INHERITS from class:service/errors.py:NotFound (line 5)',
        '  ← INHERITS from class:service/errors.py:Declined (line 9)',
        '',
      ].join('\n'),
    );
  });
});

describe('trace --to', () => {
  test('each hop with its file:line and code', () => {
    expect(nsccn('trace', 'func:app.py:main', '--to', 'method:service/store.py:Store.get').stdout).toBe(
      [
        'func:app.py:main → method:service/store.py:Store.get: 1 path',
        'path 1 (3 hops)',
        '  func:app.py:main',
        '  → CALLS method:service/core.py:Service.refund',
        '      app.py:7  app.refund("a@example.com", 5)',
        '  → CALLS method:service/core.py:Service.charge',
        '      service/core.py:47  self.charge(email, -amount)',
        '  → CALLS method:service/store.py:Store.get',
        '      service/core.py:39  account = self.store.get(email)',
        '',
      ].join('\n'),
    );
    expect(nsccn('trace', 'method:service/store.py:Store.get', '--to', 'func:app.py:main', '--depth', '4').stdout).toBe('method:service/store.py:Store.get → func:app.py:main: no path within 4 hops\n');
    expect(nsccn('trace', 'func:app.py:main', '--to', 'func:app.py:main', '--k', '99').code).toBe(2);
  });
});

describe('changes', () => {
  test('outside a git repository: exit 1 and one clear line', () => {
    const r = nsccn('changes');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nsccn: ${root} is not in a git repository\n`);
    expect(nsccn('changes', '--staged', '--since', 'HEAD').stderr).toBe('nsccn: give at most one of since, staged and worktree\n');
  });
});

describe('skeleton --docs', () => {
  test('none, first-line (default) and a bad level', () => {
    expect(nsccn('skeleton', 'service/errors.py', '--docs', 'none').stdout).toBe('class ServiceError(Exception): ...\n\nclass NotFound(ServiceError): ...\n\nclass Declined(ServiceError): ...\n');
    expect(nsccn('skeleton', 'service/errors.py').stdout).toContain('class ServiceError(Exception):\n    """Base of the service\'s errors."""\n');
    const bad = nsccn('skeleton', 'service/errors.py', '--docs', 'some');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("argument 'some' is invalid. Allowed choices are full, first-line, none.");
  });
});
