// Spreads file processing over worker threads (parsing is the bulk of indexing, and one WASM
// parser is bound to one core). Falls back to the calling thread when asked to, for tiny jobs,
// or when the compiled worker script is not there (running from TypeScript sources in tests).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Parsers } from '../parse/parsers';
import { parseRead, readFile, type FileJob, type FileOutcome } from './process';
import { decodeBatch, type WireBatch } from './wire';
import type { ProfileClock } from './profile';
import { tierUpLater } from '../v8-tiering';

const BATCH = 16;
/**
 * A batch also ends at this many bytes of source. Largest files first, 16 to a batch, the first
 * batches held the 32 largest files of the stdlib: the main thread waited 3–4 s for anything to
 * write, and each worker held 16 large files' results at once.
 */
const BATCH_BYTES = 256 * 1024;
/**
 * A worker's objects live for one batch: a small young generation is collected often and
 * cheaply instead of growing to V8's default (tens of MB per worker, all of it RSS).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };

export interface PoolOptions {
  root: string;
  maxBytes: number;
  workers?: number;
  /** Checked between batches: true stops the run (files already handed out still finish). */
  shouldStop?: () => boolean;
  /** Told where the time went (worker phases arrive with each batch). */
  clock?: ProfileClock;
  /** Makes `parsers` ready: awaited before parsing on the calling thread (workers load their own). */
  loadGrammars?: () => Promise<void>;
}

/** Where the batch starting at `from` ends: 16 files, or fewer that hold 256 KB, or one larger file. */
export function batchEnd(queue: ReadonlyArray<{ size?: number }>, from: number): number {
  let end = from + 1;
  let bytes = queue[from]?.size ?? 0;
  while (end < queue.length && end - from < BATCH && bytes + (queue[end].size ?? 0) <= BATCH_BYTES) bytes += queue[end++].size ?? 0;
  return Math.min(end, queue.length);
}

export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(4, os.availableParallelism()));
}

/**
 * Processes every job and hands outcomes to `sink` on the calling thread as they arrive, in
 * batches, so the caller can write them to the store while workers keep parsing.
 */
export async function processAll(jobs: FileJob[], opts: PoolOptions, parsers: Parsers, sink: (batch: FileOutcome[]) => void): Promise<void> {
  const script = path.join(__dirname, 'worker.js');
  const wanted = opts.workers ?? defaultWorkerCount();
  const n = Math.min(wanted, Math.ceil(jobs.length / BATCH));
  if (n <= 0 || jobs.length < 2 * BATCH || !fs.existsSync(script)) {
    // The grammars once a file needs parsing: a file touched but not changed needs none (they
    // were ~40 ms of a query after a `touch` or a checkout of the same content).
    let grammars: Promise<void> | undefined;
    for (let i = 0; i < jobs.length; i += BATCH) {
      if (opts.shouldStop?.()) return;
      const realRoot = fs.realpathSync(opts.root);
      const reads = jobs.slice(i, i + BATCH).map((j) => readFile(opts.root, realRoot, j, opts.maxBytes, opts.clock));
      if (reads.some((r) => r.kind === 'read')) await (grammars ??= opts.loadGrammars?.());
      sink(reads.map((r) => (r.kind === 'read' ? parseRead(r, parsers, opts.clock) : r)));
      await new Promise((r) => setImmediate(r)); // let requests in between batches
    }
    return;
  }
  // Largest files first keeps the workers evenly busy to the end.
  const queue = [...jobs].sort((a, b) => (b.size ?? 0) - (a.size ?? 0));
  let next = 0;
  if (opts.clock) opts.clock.workers = n;
  // Required here: node:worker_threads costs ~3.5 ms at start, and a query starts no worker.
  const { Worker } = require('node:worker_threads') as typeof import('node:worker_threads');
  tierUpLater(jobs.length);
  const workers = Array.from({ length: n }, () => new Worker(script, { workerData: { root: opts.root, maxBytes: opts.maxBytes }, resourceLimits: WORKER_LIMITS }));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            // Two batches in flight: the worker parses the next while this thread writes the last.
            let inFlight = 0;
            const feed = () => {
              while (inFlight < 2 && next < queue.length && !opts.shouldStop?.()) {
                const end = batchEnd(queue, next);
                w.postMessage(queue.slice(next, end));
                next = end;
                inFlight++;
              }
              if (inFlight === 0) resolve();
            };
            w.on('message', (batch: WireBatch) => {
              inFlight--;
              try {
                const clock = opts.clock;
                if (clock && batch.ms) clock.add(batch.ms);
                if (clock && clock.workerCpuMs !== null) clock.workerCpuMs = typeof batch.cpuMs === 'number' ? clock.workerCpuMs + batch.cpuMs : null;
                const outcomes = clock ? clock.time('decode', () => decodeBatch(batch)) : decodeBatch(batch);
                sink(outcomes);
              } catch (e) {
                return reject(e);
              }
              feed();
            });
            w.on('error', reject);
            w.on('exit', (code) => (code !== 0 ? reject(new Error(`index worker exited with code ${code}`)) : undefined));
            feed();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
