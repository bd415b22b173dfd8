// Opening an engine from CLI options, and `nsccn index` with a progress bar on a terminal.
// Flags that shape the index (--exclude, --max-file-bytes) given to `nsccn index` are kept in
// .nsccn/cli-options.json and used by every later command, so a query never re-indexes with
// other options; a query given different ones is an error that says how to change them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as CliProgress from 'cli-progress';
import { ErrorCodes, type IndexSummary } from '../../../protocol';
import { Engine } from '../engine';
import { EngineError } from '../engine';

export interface GlobalOptions {
  root: string;
  json: boolean;
  exclude?: string[];
  maxFileBytes?: number;
  model?: string;
  verbose: boolean;
}

/**
 * Closes the engine cleanly on SIGINT/SIGTERM (a running index stops at its next batch and the
 * index is closed), then exits 130/143. Installed before the engine is open, so that a signal
 * during opening is not the default (an exit without closing). Returns the remover.
 */
export function closeOnSignal(engine: Promise<Engine>): () => void {
  const on = (signal: NodeJS.Signals, code: number) => {
    const handler = () => {
      process.stderr.write(`nsccn: ${signal}: closing the index\n`);
      // Installed before the engine opens: a signal while it opens closes it once it is open.
      void engine
        .then((e) => e.close())
        .catch(() => undefined)
        .finally(() => process.exit(code));
    };
    process.once(signal, handler);
    return () => process.off(signal, handler);
  };
  const offs = [on('SIGINT', 130), on('SIGTERM', 143)];
  return () => offs.forEach((off) => off());
}

interface Shaping {
  exclude: string[];
  maxFileBytes: number | null;
}

const shapingFile = (root: string) => path.join(root, '.nsccn', 'cli-options.json');

/**
 * Writes a file of the index folder by a new file renamed over it: whatever was at the path (a
 * link a repository planted there included) is replaced, never written through.
 */
function writeReplacing(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { flag: 'wx' });
  fs.renameSync(tmp, file);
}

function readShaping(root: string): Shaping | null {
  try {
    return JSON.parse(fs.readFileSync(shapingFile(root), 'utf8')) as Shaping;
  } catch {
    return null;
  }
}

const describeShaping = (s: Shaping) => [s.exclude.length ? `--exclude ${s.exclude.join(' ')}` : '', s.maxFileBytes ? `--max-file-bytes ${s.maxFileBytes}` : ''].filter(Boolean).join(' ') || 'no --exclude or --max-file-bytes';

/** The index-shaping flags to use: those given (index) or kept (queries), never silently others. */
function shaping(o: GlobalOptions, forIndex: boolean): Shaping {
  const kept = readShaping(o.root) ?? { exclude: [], maxFileBytes: null };
  const given = o.exclude !== undefined || o.maxFileBytes !== undefined;
  if (!given) return kept;
  const asked: Shaping = { exclude: o.exclude ?? [], maxFileBytes: o.maxFileBytes ?? null };
  if (forIndex || JSON.stringify(asked) === JSON.stringify(kept)) return asked;
  throw new EngineError(
    ErrorCodes.InvalidParams,
    `the index was built with ${describeShaping(kept)}; to index with ${describeShaping(asked)}, run nsccn index with them (or put them in .nsccn.json)`,
  );
}

/** A progress bar on a terminal (loaded only then: a query piped to another program never draws one). */
function progressBar(o: GlobalOptions, format: string): CliProgress.SingleBar | null {
  if (o.json || !stderrIsTerminal()) return null;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const cliProgress = require('cli-progress') as typeof CliProgress;
  return new cliProgress.SingleBar({ format, stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic);
}

/**
 * Whether standard error is a terminal. A pipe or a file is told by one fstat: `process.stderr`
 * builds its stream on first use (~3.5 ms of loading Node's stream modules for every search an
 * agent runs with its output captured); only a character device still asks it.
 */
function stderrIsTerminal(): boolean {
  try {
    if (!fs.fstatSync(2).isCharacterDevice()) return false;
  } catch {
    return false; // no standard error at all
  }
  return process.stderr.isTTY === true;
}

/** A query opens the engine lazily (the index only); `nsccn index` opens a server's engine. */
export function openEngine(o: GlobalOptions, forIndex = false): Promise<Engine> {
  const model = o.model ?? process.env.NSCCN_MODEL;
  const shape = shaping(o, forIndex);
  return Engine.open({
    root: o.root,
    exclude: shape.exclude,
    maxFileBytes: shape.maxFileBytes ?? undefined,
    embeddings: model ? { model } : undefined,
    lazy: !forIndex,
    // The index run parses in worker threads unless it is small: grammars here only then.
    grammars: forIndex ? 'when-parsing' : undefined,
    log: (m) => {
      if (o.verbose || /rebuil/.test(m)) process.stderr.write(`nsccn: ${m}\n`);
    },
  });
}

/**
 * Opens the engine with the signal handlers already in place: opening creates and writes the
 * index synchronously, and a signal that lands before a handler exists ends the process
 * without closing it. Returns the open engine and the handlers' remover.
 */
export async function openGuarded(o: GlobalOptions, forIndex = false): Promise<{ engine: Engine; release: () => void }> {
  let start!: (e: Promise<Engine>) => void;
  const opening = new Promise<Engine>((resolve) => (start = resolve));
  const release = closeOnSignal(opening);
  start(Promise.resolve().then(() => openEngine(o, forIndex)));
  try {
    return { engine: await opening, release };
  } catch (e) {
    release();
    throw e;
  }
}

export async function runIndex(o: GlobalOptions): Promise<IndexSummary> {
  const { engine, release } = await openGuarded(o, true);
  // A bar per phase: files read (moving by bytes: the largest go first), then references
  // resolved (a quarter of a first index, after the last file).
  const bars = { reading: progressBar(o, 'indexing  [{bar}] {percentage}% {done}/{of} files'), resolving: progressBar(o, 'resolving [{bar}] {percentage}% {done}/{of} references') };
  let shown: keyof typeof bars | null = null;
  const stopShown = () => {
    if (shown) bars[shown]?.stop();
  };
  try {
    const summary = await engine.indexWorkspace((p) => {
      const bar = bars[p.phase];
      if (!bar || p.total === 0) return;
      const payload = { done: p.done, of: p.total };
      if (shown !== p.phase) {
        stopShown();
        bar.start(1000, 0, payload);
        shown = p.phase;
      }
      bar.update(Math.round(p.fraction * 1000), payload);
    });
    stopShown();
    if (!o.json) for (const n of summary.notes ?? []) process.stderr.write(`nsccn: ${n}\n`);
    writeReplacing(shapingFile(o.root), JSON.stringify(shaping(o, true)) + '\n');
    // Every configured vector stream complete before exit: the next query ranks as all later ones.
    // Without the symbol model, which nothing reads from here on (site-packages: RSS while
    // embedding 558–649 → 209–281 MB).
    engine.releaseSymbolModel();
    await finishVectors(engine, o);
    return summary;
  } finally {
    await engine.close();
    release();
  }
}

/** Waits for the vector streams, with a progress bar on a terminal (entities embedded, all streams). */
export async function finishVectors(engine: Engine, o: GlobalOptions): Promise<void> {
  const bar = progressBar(o, 'embedding [{bar}] {percentage}% {value}/{total} vectors ({streams})');
  // No bar, no progress asked: while the streams fill, the first ask counts every entity and
  // vector (stdlib ~80 ms, site-packages ~0.2 s), for a bar nobody would see.
  if (!bar) {
    await engine.finishEmbeddings();
    return;
  }
  let started = false;
  await engine.finishEmbeddings((progress) => {
    if (!progress.length) return;
    const done = progress.reduce((a, p) => a + Math.min(p.done, p.total), 0);
    const total = progress.reduce((a, p) => a + p.total, 0);
    const streams = progress.map((p) => p.stream).join(', ');
    if (!started) {
      if (done >= total) return; // nothing to wait for: no bar
      bar.start(total, done, { streams });
      started = true;
    }
    bar.setTotal(total);
    bar.update(done, { streams });
  });
  if (started) bar.stop();
}
