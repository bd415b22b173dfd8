// One tree-sitter abort must not poison the parser (issue 13, item 5): after a file aborts the
// WASM instance (here: a real abort, out of a heap capped at 40 MB), the files after it still
// parse; the failed file is remembered with a reason; an index where nothing could be read
// exits non-zero.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { LANGUAGES } from '../server/src/engine/languages/registry';
import { Engine } from '../server/src/engine/engine';
import { GrammarsNotLoaded, Parsers } from '../server/src/engine/parse/parsers';
import { processAll } from '../server/src/engine/workspace/pool';
import { startMcp, text } from './helpers/mcp';
import type { FileOutcome } from '../server/src/engine/workspace/process';

const CLI = path.resolve(__dirname, '../dist/server/src/cli/main.js');
let root = '';
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = '';
});

function workspace(files: Record<string, string | Buffer>): string {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-parser-'));
  for (const [rel, text] of Object.entries(files)) fs.writeFileSync(path.join(root, rel), text);
  return root;
}

const HUGE = 'def f_0():\n    return helper(1, 2, 3)\n\n'.repeat(24_000); // ~900 KB: aborts a 40 MB heap

describe('a tree-sitter abort', () => {
  test('fails its own file with a reason; the files after it are parsed', async () => {
    workspace({ 'a.py': 'def a():\n    pass\n', 'huge.py': HUGE, 'c.py': 'def c():\n    return a()\n', 'd.py': 'class D:\n    pass\n' });
    const parsers = new Parsers({ maxHeapBytes: 40 * 1024 * 1024 });
    await parsers.load(LANGUAGES);
    const out: FileOutcome[] = [];
    const jobs = ['a.py', 'huge.py', 'c.py', 'd.py'].map((p) => ({ path: p, knownHash: null }));
    await processAll(jobs, { root, maxBytes: 10 * 1024 * 1024, workers: 0 }, parsers, (b) => out.push(...b));
    expect(out.map((o) => [o.path, o.kind])).toEqual([
      ['a.py', 'parsed'],
      ['huge.py', 'skipped'],
      ['c.py', 'parsed'],
      ['d.py', 'parsed'],
    ]);
    expect(out[1]).toMatchObject({ reason: expect.stringMatching(/tree-sitter aborted .*restarted/) });
    expect(parsers.aborts).toBe(1);
    // And again, once the next spare is loaded: the restarted parser survives a second abort.
    await parsers.ready();
    const again: FileOutcome[] = [];
    await processAll([jobs[1], jobs[3]], { root, maxBytes: 10 * 1024 * 1024, workers: 0 }, parsers, (b) => again.push(...b));
    expect(again.map((o) => o.kind)).toEqual(['skipped', 'parsed']);
  });
});

describe('nsccn index with nothing indexable', () => {
  test('exits 1 and names the files that failed and why', () => {
    const bad = Buffer.from('def f():\n    return "\xe9"\n', 'latin1');
    workspace({ 'a.py': bad, 'b.py': bad, 'c.py': Buffer.from([0x64, 0, 0x65]) });
    const r = spawnSync(process.execPath, [CLI, 'index', '--root', root], { encoding: 'utf8', env: { ...process.env, NSCCN_MODEL: 'none' } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^nsccn: nothing could be indexed: 3 file\(s\) skipped/);
    expect(r.stdout).toContain('skipped a.py: not valid UTF-8');
    expect(r.stdout).toContain('skipped c.py: binary file (contains NUL bytes)');
  });
});

describe('grammars still loading', () => {
  test('a parse asked meanwhile is told to wait, not that tree-sitter aborted', async () => {
    const python = LANGUAGES.find((l) => l.id === 'python')!;
    const parsers = new Parsers({ spare: 'background' });
    const loading = parsers.load([python]);
    expect(() => parsers.parse(python, 'x = 1\n')).toThrow(GrammarsNotLoaded);
    await loading;
    expect(parsers.parse(python, 'x = 1\n').rootNode.type).toBe('module');
  });

  test("an agent's first skeleton, asked of a server whose grammars are still loading, waits for them", async () => {
    workspace({ 'app.py': 'import os\n\n\ndef main(argv):\n    """Run it."""\n    return os.getcwd()\n', 'lib.py': 'def helper():\n    return 1\n' });
    const indexer = await Engine.open({ root, embeddings: { model: 'none' } });
    await indexer.indexWorkspace();
    await indexer.close();
    // The index is current, no skeleton is cached: the first read_skeleton parses, at once.
    const mcp = await startMcp(root);
    try {
      for (const file of ['app.py', 'lib.py']) {
        const r = await mcp.call('read_skeleton', { file_path: file });
        expect(r.isError, text(r)).toBeFalsy();
      }
      expect(text(await mcp.call('read_skeleton', { file_path: 'app.py' }))).toContain('def main(argv)');
    } finally {
      await mcp.close();
    }
  });
});
