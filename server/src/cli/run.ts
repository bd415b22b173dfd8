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
 * index is closed), then exits 130/143. Returns the function that removes the handlers.
 */
export function closeOnSignal(engine: Engine | Promise<Engine>): () => void {
  const on = (signal: NodeJS.Signals, code: number) => {
    const handler = () => {
      process.stderr.write(`nsccn: ${signal}: closing the index\n`);
      // Installed before the engine opens: a signal while it opens closes it once it is open.
      void Promise.resolve(engine)
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
  const opening = openEngine(o);
  const release = closeOnSignal(opening);
  const engine = await opening.catch((e) => {
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
    if (!o.json) for (const n of summary.notes ?? []) process.stderr.write(`nsccn: ${n}\n`);
    return summary;
  } finally {
    await engine.close();
    release();
  }
}
