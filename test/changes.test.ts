// `changes` on a git repository the test builds from the causal fixture: a base commit, a commit
// that deletes a function and renames a file, a staged edit, unstaged edits and an untracked file.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChangesResponse } from '../protocol';
import { tokensOf } from '../server/src/engine/budget/measure';
import { Engine } from '../server/src/engine/engine';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
let base: string;
const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com', GIT_CONFIG_NOSYSTEM: '1' };
const git = (...args: string[]) => execFileSync('git', args, { cwd: ws.root, env, encoding: 'utf8' }).trim();
const edit = (rel: string, from: string, to: string) => {
  const p = path.join(ws.root, rel);
  const text = fs.readFileSync(p, 'utf8');
  if (!text.includes(from)) throw new Error(`${from} not in ${rel}`);
  fs.writeFileSync(p, text.replace(from, to));
};

beforeAll(async () => {
  ws = await openWorkspace('causal');
  ws.write('tests/test_app.py', 'from app import main\n\n\ndef test_main():\n    main()\n');
  ws.write('service/extra.py', 'def keep():\n    return 1\n\n\ndef doomed(x):\n    return x * 2\n\n\ndef user():\n    return doomed(3)\n');
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'base');
  base = git('rev-parse', 'HEAD');
  // Commit 2: a deleted function and a renamed file.
  edit('service/extra.py', 'def doomed(x):\n    return x * 2\n\n\n', '');
  git('mv', 'service/util_a.py', 'service/clean.py');
  git('commit', '-qam', 'drop doomed, rename util_a');
  // Staged: Store.get changes.
  edit('service/store.py', 'raise NotFound(key)', 'raise NotFound(str(key))');
  git('add', 'service/store.py');
  // Unstaged: charge changes, a new function, an untracked file.
  edit('service/core.py', 'self.cache[email] = amount', 'self.cache[email] = abs(amount)');
  fs.appendFileSync(path.join(ws.root, 'service/core.py'), '\n\ndef added_fn():\n    return tune(None)\n');
  ws.write('service/new_mod.py', 'def fresh():\n    pass\n');
  await ws.engine.indexWorkspace();
});
afterAll(() => ws.dispose());

const brief = (r: ChangesResponse) => r.entities.map((e) => `${e.change} ${e.id} ${e.file}:${e.line} [${e.lines.join(',')}]`);

describe('changes', () => {
  test('since the base commit: deleted, renamed, staged, unstaged and untracked', async () => {
    const r = await ws.engine.changes({ since: base });
    expect(r.base).toBe(`${base} → working tree`);
    expect(r.files).toEqual([
      { file: 'service/clean.py', oldFile: 'service/util_a.py', status: 'renamed' },
      { file: 'service/core.py', status: 'modified' },
      { file: 'service/extra.py', status: 'modified' },
      { file: 'service/new_mod.py', status: 'added' },
      { file: 'service/store.py', status: 'modified' },
    ]);
    expect(brief(r)).toEqual([
      'modified method:service/core.py:Service.charge service/core.py:37 [42]',
      'added func:service/core.py:added_fn service/core.py:73 [73,74]',
      'deleted func:service/extra.py:doomed service/extra.py:5 [5,6]',
      'added func:service/new_mod.py:fresh service/new_mod.py:1 [1]',
      'modified method:service/store.py:Store.get service/store.py:19 [21]',
    ]);
  });

  test('blast radius: callers by depth, state, config, and the tests that reach it', async () => {
    const r = await ws.engine.changes({ since: base });
    const charge = r.entities.find((e) => e.id === 'method:service/core.py:Service.charge')!;
    expect(charge.callers).toEqual(['method:service/core.py:Service.refund', 'func:app.py:main']);
    expect(charge.mutates).toEqual(['attr:service/core.py:Service.cache']);
    expect(charge.readsConfig).toEqual(['global:service/settings.py:MAX_AMOUNT']);
    expect(charge.tests).toEqual(['func:tests/test_app.py:test_main']);
    const doomed = r.entities.find((e) => e.id === 'func:service/extra.py:doomed')!;
    expect(doomed.callers).toEqual(['func:service/extra.py:user']);
    const deeper = await ws.engine.changes({ since: base, depth: 1 });
    expect(deeper.entities.find((e) => e.id === 'method:service/core.py:Service.charge')!.callers).toEqual(['method:service/core.py:Service.refund']);
  });

  test('--staged sees only the staged edit; --worktree only the unstaged ones; the default both', async () => {
    expect(brief(await ws.engine.changes({ staged: true }))).toEqual(['modified method:service/store.py:Store.get service/store.py:19 [21]']);
    expect(brief(await ws.engine.changes({ worktree: true }))).toEqual([
      'modified method:service/core.py:Service.charge service/core.py:37 [42]',
      'added func:service/core.py:added_fn service/core.py:73 [73,74]',
      'added func:service/new_mod.py:fresh service/new_mod.py:1 [1]',
    ]);
    expect((await ws.engine.changes({})).entities.map((e) => e.id)).toEqual([
      'method:service/core.py:Service.charge',
      'func:service/core.py:added_fn',
      'func:service/new_mod.py:fresh',
      'method:service/store.py:Store.get',
    ]);
  });

  test('a budget shortens caller lists first, then drops entities from the end', async () => {
    const full = await ws.engine.changes({ since: base, depth: 3 });
    const budget = tokensOf(full) - 150;
    const cut = await ws.engine.changes({ since: base, depth: 3, maxTokens: budget });
    expect(cut.files).toEqual(full.files);
    expect(cut.truncated!.tokens).toBeLessThanOrEqual(budget);
    expect(cut.entities.map((e) => e.id)).toEqual(full.entities.slice(0, cut.entities.length).map((e) => e.id));
    expect(cut.entities.every((e, i) => full.entities[i].callers.slice(0, e.callers.length).join() === e.callers.join())).toBe(true);
    expect(cut.truncated!.dropped.callers + cut.truncated!.dropped.entities).toBeGreaterThan(0);
  });

  test('bad input: an unknown revision, two modes at once', async () => {
    await expect(ws.engine.changes({ since: 'no-such-rev' })).rejects.toThrow('unknown revision no-such-rev');
    await expect(ws.engine.changes({ since: '--output=x' })).rejects.toThrow('not a revision: --output=x');
    await expect(ws.engine.changes({ staged: true, worktree: true })).rejects.toThrow('give at most one of since, staged and worktree');
  });

  test('a folder that is not a git repository: a clear error', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-nogit-'));
    fs.writeFileSync(path.join(dir, 'a.py'), 'def f():\n    pass\n');
    const engine = await Engine.open({ root: dir, workers: 0, embeddings: { model: 'none' } });
    try {
      await expect(engine.changes({})).rejects.toThrow(`${dir} is not in a git repository`);
    } finally {
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the index folder stays out of git status', () => {
    expect(git('status', '--porcelain', '--untracked-files=all').split('\n').filter((l) => l.includes('.nsccn'))).toEqual([]);
  });
});
