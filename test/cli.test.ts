// The `nsccn` command as a script uses it: JSON shapes from protocol/, exit codes 0/1/2 and one
// clear line on stderr. Runs the compiled CLI (`npm test` builds first).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { IndexSummary, SearchResponse, Skeleton, StatsResponse, TraceResult, Window } from '../protocol';
import { spawnSync } from 'node:child_process';
import { CLI, CLI_ENV, requireBuiltCli, runCli } from './helpers/cli';
import { copyFixture } from './helpers/workspace';

let root: string;
const nsccn = (...args: string[]) => runCli(root, ...args);

beforeAll(() => {
  requireBuiltCli();
  root = copyFixture('python');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('nsccn', () => {
  test('the built executable runs as a program (what `npm link` and npx link to)', () => {
    const main = CLI;
    expect(fs.statSync(main).mode & 0o111).toBe(0o111);
    expect(fs.readFileSync(main, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  test('index prints a summary, then finds nothing to do', () => {
    const first = nsccn('index', '--json');
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout) as IndexSummary).toMatchObject({ files: 7, parsed: 7, entities: 44 });
    const again = nsccn('index');
    expect(again.stdout).toMatch(/^indexed 7 files \(0 parsed, 7 unchanged, 0 deleted, 0 skipped\): 44 entities, \d+ edges in /);
  });

  test('search, skeleton, trace, window and stats speak the protocol shapes', () => {
    const s = JSON.parse(nsccn('search', 'charge card', '--limit', '2', '--json').stdout) as SearchResponse;
    expect(s.results[0].id).toBe('func:shop/services/payments.py:charge');
    expect(s.streams).toContain('lexical');
    const sk = JSON.parse(nsccn('skeleton', 'shop/base.py', '--json').stdout) as Skeleton;
    expect(sk.file).toBe('shop/base.py');
    expect(sk.text).toContain('def save(self):\n        """Write the row to storage."""');
    const t = JSON.parse(nsccn('trace', 'func:shop/base.py:_write', '--direction', 'up', '--depth', '1', '--json').stdout) as TraceResult;
    expect(t.adjacency['func:shop/base.py:_write'].map((e) => e.target).sort()).toEqual(['func:shop/services/checkout.py:checkout', 'method:shop/base.py:Model.save']);
    const w = JSON.parse(nsccn('window', 'func:shop/base.py:_write', '--context', '0', '--json').stdout) as Window;
    expect(w.code).toBe('31 | def _write(table, row):\n32 |     return (table, row)');
    const st = JSON.parse(nsccn('stats', '--json').stdout) as StatsResponse;
    expect(st.entities.method).toBe(10);
    expect(st.edges.CALLS).toBeGreaterThan(10);
  });

  test('human output', () => {
    expect(nsccn('window', 'func:shop/base.py:_write', '--context', '0').stdout).toBe('shop/base.py:31-32\n31 | def _write(table, row):\n32 |     return (table, row)\n');
    expect(nsccn('trace', 'method:shop/models.py:User.rename', '--depth', '1').stdout).toContain('→ CALLS to method:shop/base.py:Model.save (line 19)');
  });

  test('an error exits 1 with one line on stderr', () => {
    const r = nsccn('window', 'func:shop/base.py:_writ');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('nsccn: unknown entity func:shop/base.py:_writ; did you mean func:shop/base.py:_write, func:shop/base.py:register, class:shop/base.py:Model?\n');
    expect(nsccn('skeleton', '../../etc/passwd').code).toBe(1);
  });

  test('an index locked by another process is a clear error, and nothing is lost', async () => {
    const Database = (await import('better-sqlite3')).default;
    const holder = new Database(path.join(root, '.nsccn/index.db'));
    holder.exec('BEGIN EXCLUSIVE');
    try {
      fs.writeFileSync(path.join(root, 'shop/extra.py'), 'def extra():\n    return 1\n');
      const r = nsccn('index');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^nsccn: the index (is busy|.*is locked)/);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    const again = nsccn('index', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ files: 8, parsed: 1 });
    fs.rmSync(path.join(root, 'shop/extra.py'));
    nsccn('index');
  }, 30_000);

  test('search - reads the query from standard input, past what an argument may hold', () => {
    // A pasted log longer than one argument may be (Linux: 128 KB), ending in a traceback.
    const report = `${'INFO worker started, nothing to see here\n'.repeat(4000)}Traceback (most recent call last):\n  File "shop/base.py", line 27, in save\nKeyError: 'orders'`;
    expect(report.length).toBeGreaterThan(131_072);
    const r = spawnSync(process.execPath, [CLI, 'search', '-', '--json', '--limit', '3', '--root', root], { encoding: 'utf8', env: CLI_ENV, input: report });
    expect(r.status).toBe(0);
    expect((JSON.parse(r.stdout) as SearchResponse).results[0].id).toBe('method:shop/base.py:Model.save');
    const empty = spawnSync(process.execPath, [CLI, 'search', '-', '--root', root], { encoding: 'utf8', env: CLI_ENV, input: '' });
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/non-empty query/);
  });

  test('bad usage exits 2', () => {
    expect(nsccn('trace', 'x', '--depth', '99').code).toBe(2);
    expect(nsccn('frobnicate').code).toBe(2);
    expect(nsccn('search').code).toBe(2);
  });

  test('a long answer arrives whole through a pipe, and a reader that stops early (| head) ends it quietly', () => {
    // Past a pipe's 64 KB buffer: the writer waits for the reader, or finds it gone.
    const big = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-pipe-'));
    try {
      const defs = Array.from({ length: 1500 }, (_, i) => `def handler_${i}(request, retries=3):\n    \"\"\"Handles request ${i}.\"\"\"\n    return request\n`);
      fs.writeFileSync(path.join(big, 'handlers.py'), defs.join('\n'));
      expect(runCli(big, 'index').code).toBe(0);
      const whole = runCli(big, 'skeleton', 'handlers.py', '--json').stdout;
      expect(whole.length).toBeGreaterThan(128 * 1024);
      const sh = (cmd: string) => spawnSync('bash', ['-c', `set -o pipefail; ${cmd}`], { encoding: 'utf8', env: CLI_ENV });
      const run = `"${process.execPath}" "${CLI}" skeleton handlers.py --json --root "${big}"`;
      const counted = sh(`${run} | (sleep 0.5; wc -c)`);
      expect(counted.status).toBe(0);
      expect(Number(counted.stdout.trim())).toBe(Buffer.byteLength(whole));
      const cut = sh(`${run} | head -c 10 > /dev/null`);
      expect(cut.status).toBe(0);
      expect(cut.stderr).toBe('');
    } finally {
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});
