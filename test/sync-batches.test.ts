// A branch switch seen as watched-file events: 100 files changed, deleted and created at once
// are written in batches (syncFiles, SYNC_BATCH files at a time, requests answered between
// them). Calls across batch boundaries in both directions must end resolved exactly as a cold
// index of the same files resolves them, and a request made meanwhile is answered.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { Engine, type FileChange } from '../server/src/engine/engine';
import { edgeList } from './helpers/workspace';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const open = (root: string) => Engine.open({ root, dbPath: ':memory:', workers: 0, embeddings: { model: 'none' } });

/** m0 … m99: each function calls the next module's (m99 calls m0's), before and after the switch under other names. */
function write(root: string, branch: 'a' | 'b', n: number): void {
  for (let i = 0; i < n; i++) {
    const next = (i + 1) % n;
    const fn = `${branch}_${i}`;
    fs.writeFileSync(path.join(root, `m${i}.py`), `from m${next} import ${branch}_${next}\n\ndef ${fn}():\n    return ${branch}_${next}()\n`);
  }
}

test('100 files switched at once end as a cold index of the new branch; a request in between is answered', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-sync-'));
  dirs.push(root);
  write(root, 'a', 100);
  fs.writeFileSync(path.join(root, 'gone.py'), 'def gone():\n    return 1\n');
  const live = await open(root);
  try {
    await live.indexWorkspace();
    write(root, 'b', 100);
    fs.rmSync(path.join(root, 'gone.py'));
    fs.writeFileSync(path.join(root, 'new.py'), 'from m0 import b_0\n\ndef fresh():\n    return b_0()\n');
    const changes: FileChange[] = [
      ...Array.from({ length: 100 }, (_, i) => ({ path: `m${i}.py`, type: 'changed' as const })),
      { path: 'gone.py', type: 'deleted' },
      { path: 'new.py', type: 'created' },
    ];
    let answeredDuring = false;
    const sync = live.syncFiles(changes).then(() => (done = true));
    let done = false;
    await new Promise<void>((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!done) answeredDuring = live.stats().files > 0;
    await sync;
    expect(answeredDuring, 'the sync had batches left after the first').toBe(true);
    const cold = await open(root);
    try {
      await cold.indexWorkspace();
      const edges = edgeList(live);
      expect(edges).toEqual(edgeList(cold));
      expect(edges).toContain('func:m99.py:b_99 -CALLS-> func:m0.py:b_0');
      expect(edges).toContain('func:new.py:fresh -CALLS-> func:m0.py:b_0');
      expect(edges.some((e) => e.includes('a_'))).toBe(false);
    } finally {
      await cold.close();
    }
  } finally {
    await live.close();
  }
}, 60_000);
