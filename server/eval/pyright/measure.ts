// One measurement of NSCCN's CALLS edges against pyright's call hierarchy on one workspace:
// index it, ask pyright for the outgoing calls of every function and method NSCCN indexed, and
// compare the two edge sets. Shared by the standard-library eval and the whole-repository
// layouts (../calls-vs-pyright.ts, ../calls-repos.ts).
import { Engine } from '../../src/engine/engine';
import type { StatsResponse } from '../../../protocol';
import { classify, type Classification } from './classify';
import { recallByReceiver, type ReceiverRecall } from './receivers';
import { collectPyrightCalls, type Collected } from './collect';
import { compareCalls, EntityIndex, type Comparison, type Pos } from './compare';
import { PyrightClient } from './lsp-client';
import { callersOf, readNsccnSide, type NsccnSide } from './nsccn-side';
import { callShape } from './shape';

export interface MeasureOptions {
  /** pyright `python.analysis` settings (typeshed paths, extra paths). */
  analysis?: Record<string, unknown>;
  concurrency?: number;
  timeoutMs?: number;
  log: (m: string) => void;
}

export interface Measured {
  stats: StatsResponse;
  side: NsccnSide;
  callers: number;
  collected: Collected;
  index: EntityIndex;
  cmp: Comparison;
  causes: Classification;
  /** pyright's calls that NSCCN found, by the kind of receiver they are made on. */
  byReceiver: ReceiverRecall[];
  /** Milliseconds: NSCCN's index, pyright's start, pyright's answers, the comparison. */
  ms: { index: number; pyrightStart: number; pyrightCalls: number; compare: number };
}

const secs = (ms: number) => Math.round(ms / 100) / 10;

/** A file's lines as the engine reads them, each file split once (the evals look at call sites). */
export function fileLines(engine: Engine): (file: string) => string[] {
  const cache = new Map<string, string[]>();
  return (file) => {
    let l = cache.get(file);
    if (!l) cache.set(file, (l = engine.fileText(file).split(/\r\n|\r|\n/)));
    return l;
  };
}

export async function measureCalls(root: string, opts: MeasureOptions): Promise<Measured> {
  const { log } = opts;
  const t0 = Date.now();
  let engine: Engine | undefined;
  let client: PyrightClient | undefined;
  try {
    engine = await Engine.open({ root, embeddings: { model: 'none' }, log: (m) => log(`nsccn: ${m}`) });
    await engine.indexWorkspace();
    const tIndexed = Date.now();
    const stats = engine.stats();
    const side = readNsccnSide(engine);
    const callers = callersOf(side);
    log(`calls eval: indexed in ${secs(tIndexed - t0)} s; ${callers.length} functions and methods to ask pyright about`);

    client = await PyrightClient.start({ root, requestTimeoutMs: opts.timeoutMs ?? 60_000, analysis: opts.analysis });
    const found = await client.waitForWorkspace();
    const tStarted = Date.now();
    log(`calls eval: pyright started in ${secs(tStarted - tIndexed)} s (${found ?? 'unknown number of'} source files)`);
    let lastReport = Date.now();
    const collected = await collectPyrightCalls(client, root, callers, {
      concurrency: opts.concurrency ?? 4,
      timeoutMs: opts.timeoutMs ?? 60_000,
      onProgress: (done, total) => {
        if (Date.now() - lastReport < 10_000 && done !== total) return;
        lastReport = Date.now();
        log(`calls eval: pyright ${done}/${total} (${secs(Date.now() - tStarted)} s)`);
      },
    });
    await client.stop();
    client = undefined;
    const tCalls = Date.now();

    const index = new EntityIndex(side.entities, side.inherits);
    const lines = fileLines(engine);
    const unanswered = new Set([...collected.notPrepared, ...collected.answeredElsewhere, ...collected.failed.map((f) => f.id)]);
    const isCall = (file: string, site: Pos) => callShape(lines(file)[site.row] ?? '', site.column).isCall;
    const cmp = compareCalls(index, collected.facts, side.facts, isCall, unanswered);
    const causes = classify(cmp, { lines, signature: (id) => side.signatures.get(id) });
    const byReceiver = recallByReceiver(cmp, { lines, signature: (id) => side.signatures.get(id) });
    const tCompared = Date.now();
    return {
      stats,
      side,
      callers: callers.length,
      collected,
      index,
      cmp,
      causes,
      byReceiver,
      ms: { index: tIndexed - t0, pyrightStart: tStarted - tIndexed, pyrightCalls: tCalls - tStarted, compare: tCompared - tCalls },
    };
  } finally {
    if (client) await client.stop();
    if (engine) await engine.close();
  }
}
