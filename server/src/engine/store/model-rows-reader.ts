// The model's rows (statements.ts MODEL_ROWS) read by another thread while this one builds the
// model from them. Reading the whole model of an index is SQLite's work (about a third: the JSON
// it builds per file) and ours (parsing it, the maps): on two cores the two halves overlap. A
// process's first change reads it all (`nsccn trace` right after an edit; a server's first edit
// before its preload is done), so this is time a user waits for.
//
// The reader is a worker thread with its own read-only connection: one statement, so one
// snapshot of the index, the same one this thread's connection sees while it has not written
// (the model is read before a change writes rows). Batches come back through a MessagePort;
// this thread takes them synchronously (`receiveMessageOnPort`), sleeping on a shared counter
// between them, because the model is read inside synchronous work (a change's transaction);
// the reader sleeps on another when it is `AHEAD` messages ahead.
import type { MessagePort, Worker } from 'node:worker_threads';
import type { ModelRowsJson } from './read-rows';

/** Rows (JSON characters) per message: big enough that messages are few, small enough to overlap. */
const BATCH_CHARS = 1 << 19;
/**
 * Messages the reader may be ahead of this thread: it waits beyond that. Unbounded, it read
 * site-packages' rows far faster than they were built from and they queued up: +85 MB of RSS.
 */
const AHEAD = 4;
/** Waiting this long for a message without one ends the read (the caller reads on by itself). */
const STALL_MS = 30_000;

const READER = `
const { workerData } = require('node:worker_threads');
const { port, signal, dbPath, sqlite, binding, sql, after, batchChars, ahead } = workerData;
// [0]: messages sent, [1]: messages taken by the reading thread.
const counter = new Int32Array(signal);
const send = (m) => {
  for (let taken; Atomics.load(counter, 0) - (taken = Atomics.load(counter, 1)) >= ahead; ) Atomics.wait(counter, 1, taken, 1000);
  port.postMessage(m);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
};
try {
  const Database = require(sqlite);
  const db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 5000, nativeBinding: binding });
  try {
    let batch = [], chars = 0;
    for (const row of db.prepare(sql).raw().iterate(after, -1)) {
      batch.push(row);
      chars += row[1].length + row[2].length + row[3].length;
      if (chars >= batchChars) { send(batch); batch = []; chars = 0; }
    }
    if (batch.length) send(batch);
    send({ done: true });
  } finally {
    db.close();
  }
} catch (e) {
  send({ error: String((e && e.message) || e) });
}`;

export interface ReaderOptions {
  dbPath: string;
  /** The statement, with two parameters: the path to start after, and a limit (-1: all). */
  sql: string;
  after: string;
  /** better-sqlite3's entry module and addon, as this thread found them. */
  sqlite: string;
  binding: string | undefined;
}

/**
 * The rows of every file after `after`, in path order, read by a worker. Ends early when the
 * worker cannot start, fails, or falls silent: the rows yielded are sound, and the caller goes
 * on from the last file it took.
 */
export function* rowsFromReader(opts: ReaderOptions): Generator<ModelRowsJson> {
  const { Worker, MessageChannel, receiveMessageOnPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const signal = new SharedArrayBuffer(8);
  const counter = new Int32Array(signal);
  const { port1, port2 } = new MessageChannel();
  let worker: Worker | null = null;
  try {
    worker = new Worker(READER, {
      eval: true,
      workerData: { port: port2, signal, dbPath: opts.dbPath, sqlite: opts.sqlite, binding: opts.binding, sql: opts.sql, after: opts.after, batchChars: BATCH_CHARS, ahead: AHEAD },
      transferList: [port2 as unknown as MessagePort],
    });
    worker.unref();
    let waited = 0;
    for (;;) {
      const seen = Atomics.load(counter, 0);
      const got = receiveMessageOnPort(port1);
      if (!got) {
        // Nothing yet: sleep until the worker counts another message (at once if it already did).
        if (Atomics.wait(counter, 0, seen, 1000) === 'timed-out' && (waited += 1000) >= STALL_MS) return; // silent too long
        continue;
      }
      waited = 0;
      Atomics.add(counter, 1, 1);
      Atomics.notify(counter, 1);
      const m = got.message as ModelRowsJson[] | { done: true } | { error: string };
      if (!Array.isArray(m)) return; // done, or failed: `{ error }`
      yield* m;
    }
  } catch {
    return; // the worker could not start
  } finally {
    port1.close();
    if (worker) void worker.terminate();
  }
}
