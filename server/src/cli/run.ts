// Opening an engine from CLI options, and `nsccn index` with a progress bar on a terminal.
import * as cliProgress from 'cli-progress';
import type { IndexSummary } from '../../../protocol';
import { Engine } from '../engine/engine';

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
      void engine.then((e) => e.close(), () => undefined).finally(() => process.exit(code));
    };
    process.once(signal, handler);
    return () => process.off(signal, handler);
  };
  const offs = [on('SIGINT', 130), on('SIGTERM', 143)];
  return () => offs.forEach((off) => off());
}

export function openEngine(o: GlobalOptions): Promise<Engine> {
  const model = o.model ?? process.env.NSCCN_MODEL;
  return Engine.open({
    root: o.root,
    exclude: o.exclude,
    maxFileBytes: o.maxFileBytes,
    embeddings: model ? { model } : undefined,
    log: (m) => {
      if (o.verbose || /rebuil/.test(m)) process.stderr.write(`nsccn: ${m}\n`);
    },
  });
}

export async function runIndex(o: GlobalOptions): Promise<IndexSummary> {
  // The handlers go in before the engine opens: opening already writes the index.
  let start!: (e: Promise<Engine>) => void;
  const opening = new Promise<Engine>((resolve) => (start = resolve));
  const release = closeOnSignal(opening);
  start(openEngine(o));
  const engine = await opening.catch((e: unknown) => {
    release();
    throw e;
  });
  const bar = process.stderr.isTTY && !o.json ? new cliProgress.SingleBar({ format: 'indexing [{bar}] {percentage}% {value}/{total} files', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic) : null;
  try {
    let started = false;
    const summary = await engine.indexWorkspace((p) => {
      if (!bar || p.total === 0) return;
      if (!started) {
        bar.start(p.total, 0);
        started = true;
      }
      bar.update(p.done);
    });
    bar?.stop();
    return summary;
  } finally {
    await engine.close();
    release();
  }
}
