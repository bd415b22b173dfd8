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

test('index progress: reading moves by bytes (the largest files go first, so it runs ahead of the count of files), then resolution counts references; each ends at 1', async () => {
  const Compiled = (require(DIST) as { Engine: typeof Engine }).Engine;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-progress-'));
  roots.push(root);
  // One large module (~300 KB) and forty small ones: by files the large one is 1/41 of the run.
  fs.writeFileSync(path.join(root, 'big.py'), Array.from({ length: 6000 }, (_, i) => `def f${i}(x):\n    return g${i % 7}(x) + ${i}\n`).join('\n'));
  for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(root, `small_${i}.py`), `def s${i}():\n    return ${i}\n`);
  for (const [open, workers] of [[Compiled, 2], [Engine, 0]] as const) {
    const dbPath = path.join(root, `.nsccn-${workers}`, 'index.db');
    const engine = await open.open({ root, dbPath, workers, embeddings: { model: 'none' } });
    const seen: Array<{ phase: string; done: number; total: number; fraction: number }> = [];
    try {
      await engine.indexWorkspace((p) => seen.push({ phase: p.phase, done: p.done, total: p.total, fraction: p.fraction }));
    } finally {
      await engine.close();
    }
    // Reading first, then resolving, never back.
    const firstResolving = seen.findIndex((p) => p.phase === 'resolving');
    expect(firstResolving).toBeGreaterThan(0);
    expect(seen.slice(firstResolving).every((p) => p.phase === 'resolving')).toBe(true);
    const reading = seen.slice(0, firstResolving);
    const resolving = seen.slice(firstResolving);
    expect(reading[reading.length - 1]).toEqual({ phase: 'reading', done: 41, total: 41, fraction: 1 });
    for (const phase of [reading, resolving]) for (let i = 1; i < phase.length; i++) expect(phase[i].fraction).toBeGreaterThanOrEqual(phase[i - 1].fraction);
    // The large file is almost all of the bytes: done or not, the fraction is far from the share of files.
    expect(reading.some((p) => Math.abs(p.fraction - p.done / p.total) > 0.3), JSON.stringify(reading)).toBe(true);
    // On the engine's own thread files go in discovery order, 16 to a batch: big.py is in the first.
    if (!workers) expect(reading[1]).toEqual({ phase: 'reading', done: 16, total: 41, fraction: expect.closeTo(0.99, 1) });
    // Every reference is counted: 6,000 calls in big.py, none in the small files.
    expect(resolving[resolving.length - 1]).toEqual({ phase: 'resolving', done: 6000, total: 6000, fraction: 1 });
  }
});
