// Indexing through worker threads gives exactly the graph of indexing on the engine's own
// thread, for every language: the compiled engine (its worker script exists only in dist/)
// with two workers against the source engine with none, on the Python, TypeScript and
// JavaScript fixtures side by side.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { FIXTURES, edgeList } from './helpers/workspace';

const DIST = path.resolve(__dirname, '../dist/server/src/engine/index.js');
const roots: string[] = [];
afterAll(() => roots.forEach((r) => fs.rmSync(r, { recursive: true, force: true })));

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-workers-'));
  roots.push(root);
  // Twice over: enough files that the pool starts its threads (it parses a few files inline).
  for (const copy of ['one', 'two']) for (const f of ['python', 'causal', 'typescript', 'javascript', 'mixed']) fs.cpSync(path.join(FIXTURES, f), path.join(root, copy, f), { recursive: true });
  return root;
}

test('two worker threads and none give the same entities and edges (Python, TypeScript, JavaScript)', async () => {
  if (!fs.existsSync(DIST)) throw new Error(`${DIST} is missing: run npm run build (npm test does it first)`);
  const Compiled = (require(DIST) as { Engine: typeof Engine }).Engine;
  const [a, b] = [tree(), tree()];
  const threaded = await Compiled.open({ root: a, workers: 2, embeddings: { model: 'none' } });
  const inline = await Engine.open({ root: b, workers: 0, embeddings: { model: 'none' } });
  try {
    const [sa, sb] = [await threaded.indexWorkspace(), await inline.indexWorkspace()];
    expect(sa.skipped).toEqual([]);
    expect({ files: sa.files, entities: sa.entities, edges: sa.edges }).toEqual({ files: sb.files, entities: sb.entities, edges: sb.edges });
    expect(sa.files).toBeGreaterThan(2 * 32); // above the pool's inline threshold (2 batches of 16)
    const ents = (e: Engine) => e.store.files().flatMap((f) => e.fileEntities(f.path).map((x) => `${x.id} ${x.signature}`));
    expect(ents(threaded)).toEqual(ents(inline));
    expect(edgeList(threaded as unknown as Engine)).toEqual(edgeList(inline));
    // Each run says where its time went: the workers' phases arrive with their batches.
    const [pa, pb] = [threaded.lastIndexProfile!, inline.lastIndexProfile!];
    expect(pa.workers).toBe(2);
    expect(pb.workers).toBe(0);
    for (const p of [pa, pb]) for (const phase of ['read', 'parse', 'extract', 'write', 'model', 'resolve'] as const) expect(p.ms[phase], phase).toBeGreaterThan(0);
    expect(pa.ms.encode).toBeGreaterThan(0);
    expect(pb.ms.encode).toBe(0); // nothing crossed threads
    if (process.platform === 'linux') expect(pa.cpuMs!.workers).toBeGreaterThan(0);
  } finally {
    await Promise.all([threaded.close(), inline.close()]);
  }
});

test('a worker is sent 16 small files at a time, large ones alone or a few together (256 KB of source at most)', async () => {
  const { batchEnd } = await import('../server/src/engine/workspace/pool');
  const batches = (sizes: number[]) => {
    const out: number[][] = [];
    for (let i = 0; i < sizes.length; i = batchEnd(sizes.map((size) => ({ size })), i)) out.push(sizes.slice(i, batchEnd(sizes.map((size) => ({ size })), i)));
    return out;
  };
  // Largest first, as the pool sends them.
  const sizes = [700_000, 300_000, 120_000, 100_000, 60_000, ...Array(40).fill(1_000)];
  expect(batches(sizes)).toEqual([[700_000], [300_000], [120_000, 100_000], [60_000, ...Array(15).fill(1_000)], Array(16).fill(1_000), Array(9).fill(1_000)]);
  expect(batches([])).toEqual([]);
});

test('an index command parsing in worker threads loads no grammar on its own thread; a small run loads them itself', async () => {
  const Compiled = (require(DIST) as { Engine: typeof Engine }).Engine;
  const big = await Compiled.open({ root: tree(), workers: 2, embeddings: { model: 'none' }, grammars: 'when-parsing' });
  const small = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-workers-'));
  roots.push(small);
  fs.cpSync(path.join(FIXTURES, 'python'), small, { recursive: true });
  const few = await Compiled.open({ root: small, workers: 2, embeddings: { model: 'none' }, grammars: 'when-parsing' });
  const plain = await Engine.open({ root: small, workers: 0, embeddings: { model: 'none' } });
  try {
    expect((await big.indexWorkspace()).files).toBeGreaterThan(2 * 32);
    expect(big.startupSteps().grammars).toBeUndefined();
    const s = await few.indexWorkspace();
    expect(few.startupSteps().grammars).toBeGreaterThan(0);
    const p = await plain.indexWorkspace();
    expect({ entities: s.entities, edges: s.edges }).toEqual({ entities: p.entities, edges: p.edges });
    // Later work on this thread loads them when it needs them.
    fs.appendFileSync(path.join(small, 'shop', 'base.py'), '\n\ndef added_later():\n    return 1\n');
    await few.syncFiles([{ path: 'shop/base.py', type: 'changed' }]);
    expect(few.fileEntities('shop/base.py').some((e) => e.name === 'added_later')).toBe(true);
  } finally {
    await Promise.all([big.close(), few.close(), plain.close()]);
  }
});
