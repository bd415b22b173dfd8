// `node dist/server/eval/calls-repos.js [--layouts src,flat,monorepo,namespace] [--out FILE] [--keep]`
// NSCCN's CALLS edges against pyright's on whole repositories as cloned: each layout of
// ./pyright/repo-layouts.ts is built in a temp folder from real site-packages code, indexed by
// NSCCN as one workspace, and measured with pyright resolving imports as Python would there.
// Prints a table per layout and part (package, tests, examples) and writes
// bench-results/eval-calls-repos.json. Also run by `npm run eval -- calls` after the stdlib.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Category } from './pyright/classify';
import { metrics, type Metrics } from './pyright/compare';
import { measureCalls } from './pyright/measure';
import { causesText, metricsTable } from './pyright/report';
import { buildLayout, LAYOUTS, partOf } from './pyright/repo-layouts';
import { sitePackagesPath } from './python-paths';
import { listFlag, numberFlag, onFlag, readFlags, stringFlag, strip } from './flags';

export interface ReposEvalOptions {
  layouts?: string[];
  out?: string | null;
  keep?: boolean;
  concurrency?: number;
  timeoutMs?: number;
  log?: (m: string) => void;
  topCauses?: number;
}

export interface LayoutResult {
  layout: string;
  about: string;
  files: number;
  callers: number;
  overall: Metrics;
  overallCallsOnly: Metrics;
  parts: Record<string, Metrics>;
  missed: Category[];
  extra: Category[];
  seconds: { index: number; pyright: number };
}

export interface ReposEvalResult {
  date: string;
  sitePackages: string;
  layouts: LayoutResult[];
  all: Metrics;
}

const secs = (ms: number) => Math.round(ms / 100) / 10;

export async function runReposEval(opts: ReposEvalOptions = {}): Promise<ReposEvalResult> {
  const log = opts.log ?? ((m: string) => process.stderr.write(m + '\n'));
  const wanted = opts.layouts?.length ? opts.layouts : LAYOUTS.map((l) => l.name);
  const unknown = wanted.filter((w) => !LAYOUTS.some((l) => l.name === w));
  if (unknown.length) throw new Error(`unknown layout ${unknown.join(', ')}; known: ${LAYOUTS.map((l) => l.name).join(', ')}`);
  const sitePackages = sitePackagesPath();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-calls-repos-'));
  const results: LayoutResult[] = [];
  const sum = { pyright: 0, nsccn: 0, agreed: 0, nsccnAmbiguous: 0, agreedAmbiguous: 0 };
  try {
    for (const spec of LAYOUTS.filter((l) => wanted.includes(l.name))) {
      const built = buildLayout(spec, sitePackages, base);
      log(`calls eval (repos): ${spec.name}: ${built.files} files at ${built.root}`);
      const m = await measureCalls(built.root, { analysis: { extraPaths: spec.extraPaths }, concurrency: opts.concurrency, timeoutMs: opts.timeoutMs, log });
      const fileOf = (c: string) => m.index.byId.get(c)?.file ?? '';
      const parts: Record<string, Metrics> = {};
      for (const part of ['package', 'tests', 'examples', 'other']) {
        const pm = metrics(m.cmp, (c) => partOf(spec, fileOf(c)) === part);
        if (pm.pyright || pm.nsccn || pm.nsccnAmbiguous) parts[part] = pm;
      }
      const overall = metrics(m.cmp);
      for (const k of Object.keys(sum) as Array<keyof typeof sum>) sum[k] += overall[k];
      results.push({
        layout: spec.name,
        about: spec.about,
        files: built.files,
        callers: m.callers,
        overall,
        overallCallsOnly: metrics(m.cmp, () => true, true),
        parts,
        missed: m.causes.missed,
        extra: m.causes.extra,
        seconds: { index: secs(m.ms.index), pyright: secs(m.ms.pyrightStart + m.ms.pyrightCalls) },
      });
    }
  } finally {
    if (opts.keep) log(`calls eval (repos): layouts kept at ${base}`);
    else fs.rmSync(base, { recursive: true, force: true });
  }
  const all: Metrics = {
    ...sum,
    precision: ratio(sum.agreed, sum.nsccn),
    precisionWithAmbiguous: ratio(sum.agreed + sum.agreedAmbiguous, sum.nsccn + sum.nsccnAmbiguous),
    recall: ratio(sum.agreed, sum.pyright),
    recallWithAmbiguous: ratio(sum.agreed + sum.agreedAmbiguous, sum.pyright),
  };
  const result: ReposEvalResult = { date: new Date().toISOString(), sitePackages, layouts: results, all };
  console.log(formatReposReport(result, opts.topCauses ?? 5));
  if (opts.out !== null) {
    const out = opts.out ?? path.resolve('bench-results', 'eval-calls-repos.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    log(`calls eval (repos): wrote ${out}`);
  }
  return result;
}

function ratio(a: number, b: number): number | null {
  return b ? a / b : null;
}

export function formatReposReport(r: ReposEvalResult, top: number): string {
  const rows: Array<[string, Metrics]> = [];
  for (const l of r.layouts) {
    rows.push([`${l.layout} (${l.files} files)`, l.overall]);
    for (const [part, m] of Object.entries(l.parts)) rows.push([`  ${part}`, m]);
  }
  rows.push(['all layouts', r.all]);
  const out = [`CALLS vs pyright on whole repositories rebuilt from ${r.sitePackages}`, ...r.layouts.map((l) => `  ${l.layout}: ${l.about}`), '', metricsTable(rows)];
  for (const l of r.layouts) {
    out.push('', `-- ${l.layout} (index ${l.seconds.index} s, pyright ${l.seconds.pyright} s)`);
    out.push(causesText('Missed (pyright has the edge, NSCCN does not)', l.missed, top, 2));
    out.push(causesText('Extra (NSCCN has the edge, pyright does not)', l.extra, top, 2));
  }
  return out.join('\n');
}

export function parseReposArgs(argv: string[]): ReposEvalOptions {
  const f = readFlags(argv, { layouts: { type: 'string' }, out: { type: 'string' }, 'no-out': { type: 'boolean' }, top: { type: 'string' }, keep: { type: 'boolean' } });
  return strip({ layouts: listFlag(f.layouts), out: f['no-out'] ? null : stringFlag(f.out), topCauses: numberFlag('top', f.top), keep: onFlag(f.keep) });
}

if (require.main === module) {
  let opts: ReposEvalOptions;
  try {
    opts = parseReposArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`calls eval (repos): ${(e as Error).message}`);
    process.exit(2);
  }
  runReposEval(opts).then(
    () => undefined,
    (e: Error) => {
      console.error(`calls eval (repos) failed: ${e.message}`);
      process.exit(1);
    },
  );
}
