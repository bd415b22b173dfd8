// `node dist/server/eval/calls-vs-pyright.js [--packages json,email] [--out FILE] [--keep]`
// NSCCN's CALLS edges measured against pyright's call hierarchy on packages of this machine's
// Python standard library. Both tools read one temp copy of the packages; pyright is asked for
// the outgoing calls of every function and method NSCCN indexed; the two edge sets are compared
// per package (precision, recall, ambiguous edges apart) and the disagreements are classified.
// Prints a table and writes bench-results/eval-calls.json.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Classification } from './pyright/classify';
import { metrics, packageOf, type Drops, type Metrics } from './pyright/compare';
import { measureCalls } from './pyright/measure';
import { causesText, dropsText, metricsTable } from './pyright/report';
import { receiverTable, type ReceiverRecall } from './pyright/receivers';
import { copyStdlibPackages, DEFAULT_PACKAGES } from './pyright/stdlib-workspace';
import { listFlag, onFlag, positiveFlag, readFlags, stringFlag, strip } from './flags';

export interface CallsEvalOptions {
  packages?: string[];
  /** JSON output; default bench-results/eval-calls.json; null: none. */
  out?: string | null;
  /** Requests in flight to pyright (default 4). */
  concurrency?: number;
  /** Timeout of one pyright request in ms (default 60 s: the machine may be busy). */
  timeoutMs?: number;
  /** Keep the temp workspace (and its index) for inspection. */
  keep?: boolean;
  /** Progress and diagnostics; default stderr. */
  log?: (m: string) => void;
  /** Categories printed per side (all are in the JSON). */
  topCauses?: number;
}

export interface CallsEvalResult {
  date: string;
  machine: { cpus: number; node: string; loadavg: number[] };
  pyright: string;
  python: string;
  stdlib: string;
  packages: string[];
  workspace: { files: number; bytes: number };
  callers: {
    functionsAndMethods: number;
    notPrepared: number;
    notPreparedExamples: string[];
    /** Redefinitions (property setters, conditional defs): pyright answers for the last def. */
    answeredElsewhere: number;
    answeredElsewhereExamples: string[];
    failed: number;
    failedExamples: Array<{ id: string; error: string }>;
  };
  dropped: Omit<Drops, 'unmappedExamples'> & { unmappedExamples: string[] };
  reattributedSites: number;
  overall: Metrics;
  /** As overall, without pyright's property-read edges (reads of @property, not calls). */
  overallCallsOnly: Metrics;
  perPackage: Record<string, Metrics>;
  /** Recall of call edges by the shape of the receiver at the first site. */
  byReceiver: ReceiverRecall[];
  causes: Classification;
  index: {
    files: number;
    entities: Record<string, number>;
    /** Resolved edges by relation (engine.stats()). */
    edges: Record<string, number>;
    /** References of every relation left without a target (engine.stats()). */
    unresolvedEdges: number;
    /** CALLS references from any caller (functions, methods, classes, modules), and how many are unresolved. */
    callReferences: number;
    callReferencesUnresolved: number;
  };
  seconds: { copy: number; index: number; pyrightStart: number; pyrightCalls: number; compare: number; total: number };
}

const secs = (ms: number) => Math.round(ms / 100) / 10;

export async function runCallsEval(opts: CallsEvalOptions = {}): Promise<CallsEvalResult> {
  const log = opts.log ?? ((m: string) => process.stderr.write(m + '\n'));
  const packages = opts.packages?.length ? opts.packages : DEFAULT_PACKAGES;
  const t0 = Date.now();
  const ws = copyStdlibPackages(packages);
  const tCopied = Date.now();
  log(`calls eval: ${ws.files} files (${(ws.bytes / 1e6).toFixed(1)} MB) of ${packages.join(', ')} copied to ${ws.root}`);
  try {
    const m = await measureCalls(ws.root, { analysis: { typeshedPaths: [ws.typeshed] }, concurrency: opts.concurrency, timeoutMs: opts.timeoutMs, log });
    const { stats, side, collected, cmp, index, causes } = m;
    const perPackage: Record<string, Metrics> = {};
    for (const p of packages) perPackage[p] = metrics(cmp, (c) => packageOf(index, c) === p);
    const callers = { length: m.callers };
    const tIndexed = tCopied + m.ms.index;
    const tStarted = tIndexed + m.ms.pyrightStart;
    const tCalls = tStarted + m.ms.pyrightCalls;
    const tCompared = tCalls + m.ms.compare;

    const result: CallsEvalResult = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100) },
      pyright: pyrightVersion(),
      python: pythonVersion(),
      stdlib: ws.stdlib,
      packages,
      workspace: { files: ws.files, bytes: ws.bytes },
      callers: {
        functionsAndMethods: callers.length,
        notPrepared: collected.notPrepared.length,
        notPreparedExamples: collected.notPrepared.slice(0, 10),
        answeredElsewhere: collected.answeredElsewhere.length,
        answeredElsewhereExamples: collected.answeredElsewhere.slice(0, 10),
        failed: collected.failed.length,
        failedExamples: collected.failed.slice(0, 10),
      },
      dropped: cmp.drops,
      reattributedSites: cmp.reattributed,
      overall: metrics(cmp),
      overallCallsOnly: metrics(cmp, () => true, true),
      perPackage,
      byReceiver: m.byReceiver,
      causes,
      index: {
        files: stats.files,
        entities: stats.entities,
        edges: stats.edges,
        unresolvedEdges: stats.unresolvedEdges,
        callReferences: side.facts.length,
        callReferencesUnresolved: side.facts.filter((f) => f.target.kind === 'unresolved').length,
      },
      seconds: {
        copy: secs(tCopied - t0),
        index: secs(tIndexed - tCopied),
        pyrightStart: secs(tStarted - tIndexed),
        pyrightCalls: secs(tCalls - tStarted),
        compare: secs(tCompared - tCalls),
        total: secs(tCompared - t0),
      },
    };
    console.log(formatCallsReport(result, opts.topCauses ?? 8));
    if (opts.out !== null) {
      const out = opts.out ?? path.resolve('bench-results', 'eval-calls.json');
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
      log(`calls eval: wrote ${out}`);
    }
    return result;
  } finally {
    if (opts.keep) log(`calls eval: workspace kept at ${ws.root}`);
    else ws.dispose();
  }
}

export function formatCallsReport(r: CallsEvalResult, topCauses: number): string {
  const rows: Array<[string, Metrics]> = [...Object.entries(r.perPackage), ['all', r.overall], ['all, calls only', r.overallCallsOnly]];
  const edges = Object.entries(r.index.edges).map(([k, v]) => `${k} ${v}`).join(', ');
  return [
    `CALLS vs pyright ${r.pyright} on Python ${r.python} stdlib: ${r.packages.join(', ')} (${r.workspace.files} files)`,
    `Edges are (caller, callee) pairs between functions/methods of the workspace; Cls() and Cls.__init__ are one callee.`,
    `"calls only" leaves out pyright's property reads (it reports reading a @property as a call of its getter).`,
    '',
    metricsTable(rows),
    '',
    receiverTable(r.byReceiver),
    '',
    `callers asked: ${r.callers.functionsAndMethods}; pyright had no item for ${r.callers.notPrepared}, answered for another def of the same name for ${r.callers.answeredElsewhere} (setters, conditional defs), failed for ${r.callers.failed}: those count on neither side`,
    dropsText(r.dropped, r.reattributedSites),
    '',
    `NSCCN index: ${r.index.files} files; resolved edges: ${edges}; unresolved references (all relations): ${r.index.unresolvedEdges}`,
    `NSCCN CALLS references: ${r.index.callReferences}, of which unresolved ${r.index.callReferencesUnresolved} (mostly calls into builtins and the wider stdlib)`,
    '',
    causesText('Missed (pyright has the edge, NSCCN does not)', r.causes.missed, topCauses),
    '',
    causesText('Extra (NSCCN has the edge, pyright does not)', r.causes.extra, topCauses),
    '',
    `time: copy ${r.seconds.copy} s, index ${r.seconds.index} s, pyright start ${r.seconds.pyrightStart} s, pyright calls ${r.seconds.pyrightCalls} s, compare ${r.seconds.compare} s, total ${r.seconds.total} s`,
  ].join('\n');
}

function pyrightVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(require.resolve('pyright/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function pythonVersion(): string {
  try {
    return execFileSync('python3', ['-c', 'import platform; print(platform.python_version())'], { encoding: 'utf8', timeout: 20_000 }).trim();
  } catch {
    return 'unknown';
  }
}

export function parseCallsArgs(argv: string[]): CallsEvalOptions {
  const f = readFlags(argv, { packages: { type: 'string' }, out: { type: 'string' }, 'no-out': { type: 'boolean' }, concurrency: { type: 'string' }, 'timeout-ms': { type: 'string' }, top: { type: 'string' }, keep: { type: 'boolean' } });
  return strip({
    packages: listFlag(f.packages),
    out: f['no-out'] ? null : stringFlag(f.out),
    concurrency: positiveFlag('concurrency', f.concurrency),
    timeoutMs: positiveFlag('timeout-ms', f['timeout-ms']),
    topCauses: positiveFlag('top', f.top),
    keep: onFlag(f.keep),
  });
}

if (require.main === module) {
  let opts: CallsEvalOptions;
  try {
    opts = parseCallsArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`calls eval: ${(e as Error).message}`);
    process.exit(2);
  }
  runCallsEval(opts).then(
    () => undefined,
    (e: Error) => {
      console.error(`calls eval failed: ${e.message}`);
      process.exit(1);
    },
  );
}
