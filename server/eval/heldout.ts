// Retrieval on libraries the project never trained or tuned on: the packages the static table's
// training leaves out (static/exclusions.ts), as they sit in this machine's site-packages. Each
// is copied on its own (its tests left out) with EVERY docstring removed — module, class and
// def — and indexed as its own workspace, the way a user opens a project. The questions: the
// first sentences of a seeded sample of its documented functions (40 each), one right answer
// each. Baseline: plain BM25 over the source of every function, method and class.
//
// The split is by library: `dev` ones may be looked at when a change is weighed, and the
// reranker's fit asks them other questions than these (fit-rerank.ts); `test` ones are only read
// when a change is done, and nothing in search/ was chosen or fitted on them.
//
//   node dist/server/eval/run.js heldout [--per-library 40] [--seed 7] [--only flask,rich] [--verbose]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { EXTENSIONS } from '../src/engine/languages/registry';
import { discover, IgnoreRules } from '../src/engine/workspace/discover';
import { firstSentence, sentenceKey } from './docstrings';
import { sitePackagesPath } from './python-paths';
import { answerEids, buildBaselines, judge } from './retrieval';
import { metrics, type Metrics, type Outcome } from './retrieval/metrics';
import { listDocstrings, removeDocstrings, sample, usableQuestion, type DocumentedFunction } from './stdlib-sample';
import { listFlag, numberFlag, onFlag, positiveFlag, readFlags, stringFlag, strip } from './flags';

export interface HeldOutLibrary {
  name: string;
  /** Where it sits under site-packages (the vendored copies are the only ones of requests and rich here). */
  dir: string;
  split: 'dev' | 'test';
}

export const HELD_OUT_LIBRARIES: HeldOutLibrary[] = [
  { name: 'flask', dir: 'flask', split: 'dev' },
  { name: 'jinja2', dir: 'jinja2', split: 'dev' },
  { name: '_pytest', dir: '_pytest', split: 'dev' },
  { name: 'requests', dir: 'pip/_vendor/requests', split: 'test' },
  { name: 'rich', dir: 'pip/_vendor/rich', split: 'test' },
  { name: 'sympy', dir: 'sympy', split: 'test' },
];

/** Folders left out of a library's copy (its tests); the localisation eval copies the same way. */
export const SKIP_DIRS = ['test', 'tests', 'testing', '__pycache__'];
/** Questions a library and the sample's seed, unless told otherwise: what the reranker's fit never asks. */
export const HELD_OUT_QUESTIONS = 40;
export const HELD_OUT_SEED = 7;
const SYSTEMS = ['bm25-functions', 'lexical', 'static', 'nsccn'];

export interface HeldOutResult {
  sitePackages: string;
  seed: number;
  libraries: Array<{ name: string; split: 'dev' | 'test'; files: number; entities: number; documented: number; metrics: Record<string, Metrics> }>;
  /** Mean of the libraries' figures (each library counts the same), per split and over all. */
  mean: Record<'all' | 'dev' | 'test', Record<string, Metrics>>;
  missing: string[];
}

export interface HeldOutOptions {
  perLibrary?: number;
  seed?: number;
  only?: string[];
  out?: string | null;
  /** Each question's rank in every system, on the log. */
  verbose?: boolean;
  log?: (m: string) => void;
}

export async function runHeldOutEval(opts: HeldOutOptions = {}): Promise<HeldOutResult> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const seed = opts.seed ?? HELD_OUT_SEED;
  const n = opts.perLibrary ?? HELD_OUT_QUESTIONS;
  const sp = sitePackagesPath();
  const result: HeldOutResult = { sitePackages: sp, seed, libraries: [], mean: { all: {}, dev: {}, test: {} }, missing: [] };
  for (const lib of HELD_OUT_LIBRARIES.filter((l) => !opts.only || opts.only.includes(l.name))) {
    const t0 = performance.now();
    const done = await withLibraryCopy(lib, n, seed, async (copy, { files, picked, documented }) => {
      const engine = await Engine.open({ root: copy, dbPath: path.join(copy, '.nsccn', 'index.db'), embeddings: { model: 'none' }, log: () => {} });
      try {
        await engine.indexWorkspace();
        await engine.embeddings.idle();
        const baselines = buildBaselines(engine, copy);
        const outcomes = new Map<string, Outcome[]>();
        for (const f of picked) {
          const eids = new Set(answerEids(engine, `${f.path}:${f.qname}`));
          if (!eids.size) continue;
          const judged = await judge(engine, baselines, f.query, eids, new Set([f.path]));
          for (const s of SYSTEMS) if (judged[s]) outcomes.set(s, [...(outcomes.get(s) ?? []), judged[s]]);
          if (opts.verbose) log(`  ${SYSTEMS.map((s) => String(judged[s]?.rank ?? '-').padStart(3)).join(' ')}  ${f.path}:${f.qname}  «${f.query}»`);
        }
        const m = Object.fromEntries([...outcomes].map(([s, o]) => [s, metrics(o)]));
        result.libraries.push({ name: lib.name, split: lib.split, files, entities: engine.status().entities, documented, metrics: m });
        log(`heldout: ${lib.name}: ${outcomes.get('nsccn')?.length ?? 0} questions, ${files} files, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      } finally {
        await engine.close();
      }
    });
    if (done === null) {
      log(`heldout: ${lib.name} is not at ${path.join(sp, lib.dir)}; left out`);
      result.missing.push(lib.name);
    }
  }
  for (const split of ['all', 'dev', 'test'] as const) {
    const libs = result.libraries.filter((l) => split === 'all' || l.split === split);
    for (const s of SYSTEMS) result.mean[split][s] = meanOf(libs.map((l) => l.metrics[s]).filter((m): m is Metrics => !!m));
  }
  if (opts.out !== null) {
    const file = opts.out ?? path.resolve('bench-results', 'eval-heldout.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  }
  return result;
}

/**
 * `use` on a temporary copy of `lib` made the eval's way (`copyWithoutDocstrings`, `n` questions
 * sampled with `seed`), removed afterwards; null when site-packages does not hold the library.
 */
export async function withLibraryCopy<T>(lib: HeldOutLibrary, n: number, seed: number, use: (copy: string, questions: ReturnType<typeof copyWithoutDocstrings>) => Promise<T>): Promise<T | null> {
  const src = path.join(sitePackagesPath(), lib.dir);
  if (!fs.existsSync(src)) return null;
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), `nsccn-heldout-${lib.name}-`));
  try {
    const pkg = path.basename(lib.dir);
    return await use(copy, copyWithoutDocstrings(src, path.join(copy, pkg), pkg, n, seed));
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * The library's Python files under `dest` (named as the package, so its imports resolve) with
 * every docstring replaced by `pass`, and the seeded sample of questions on its functions.
 * A first sentence two functions share has no one answer and is not asked.
 */
export function copyWithoutDocstrings(src: string, dest: string, pkg: string, n: number, seed: number): { files: number; picked: DocumentedFunction[]; documented: number; usable: DocumentedFunction[] } {
  const docs = listDocstrings(src, SKIP_DIRS);
  const byFile = new Map<string, typeof docs>();
  for (const d of docs) byFile.set(d.path, [...(byFile.get(d.path) ?? []), d]);
  const exclude = SKIP_DIRS.map((d) => `${d}/`);
  const found = discover(src, { extensions: EXTENSIONS, exclude, maxFileBytes: 1 << 20 }, new IgnoreRules(src, exclude));
  let files = 0;
  for (const f of found.files) {
    if (!f.path.endsWith('.py')) continue;
    const to = path.join(dest, f.path);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    const edits = byFile.get(f.path);
    const text = fs.readFileSync(path.join(src, f.path), 'utf8');
    fs.writeFileSync(to, edits ? removeDocstrings(text, edits) : text);
    files++;
  }
  const fns = docs
    .filter((d) => d.kind === 'function' || d.kind === 'method')
    .map((d) => ({ path: `${pkg}/${d.path}`, qname: d.qname, kind: d.kind as 'function' | 'method', docStart: d.docStart, docEnd: d.docEnd, query: firstSentence(d.doc) }));
  const keys = new Map<string, number>();
  for (const f of fns) keys.set(sentenceKey(f.query), (keys.get(sentenceKey(f.query)) ?? 0) + 1);
  const twice = new Map<string, number>();
  for (const f of fns) twice.set(`${f.path}:${f.qname}`, (twice.get(`${f.path}:${f.qname}`) ?? 0) + 1);
  const usable = fns.filter((f) => usableQuestion(f) && keys.get(sentenceKey(f.query)) === 1 && twice.get(`${f.path}:${f.qname}`) === 1);
  return { files, picked: sample(usable, n, seed), documented: usable.length, usable };
}

function meanOf(ms: Metrics[]): Metrics {
  const avg = (f: (m: Metrics) => number) => Math.round((ms.reduce((s, m) => s + f(m), 0) / (ms.length || 1)) * 1000) / 1000;
  return {
    queries: ms.reduce((s, m) => s + m.queries, 0),
    mrr10: avg((m) => m.mrr10),
    recall1: avg((m) => m.recall1),
    recall5: avg((m) => m.recall5),
    recall10: avg((m) => m.recall10),
    file1: avg((m) => m.file1),
    file5: avg((m) => m.file5),
    hub5: avg((m) => m.hub5),
  };
}

export function formatHeldOut(r: HeldOutResult): string {
  const f = (x: number | undefined) => (x ?? NaN).toFixed(3);
  const rows = [`${'library'.padEnd(22)} ${SYSTEMS.map((s) => s.padEnd(16)).join(' ')}   (MRR@10 / R@10)`];
  const row = (label: string, m: Record<string, Metrics>) => `${label.padEnd(22)} ${SYSTEMS.map((s) => `${f(m[s]?.mrr10)} / ${f(m[s]?.recall10)}`.padEnd(16)).join(' ')}`;
  for (const l of r.libraries) rows.push(row(`${l.name} (${l.split}, ${l.metrics.nsccn?.queries ?? 0})`, l.metrics));
  for (const s of ['dev', 'test', 'all'] as const) rows.push(row(`mean ${s}`, r.mean[s]));
  // Issue 18's rule: the fused ranking is never worse than its best single stream.
  const below = r.libraries.flatMap((l) => {
    const best = SYSTEMS.filter((s) => s !== 'nsccn').reduce((a, s) => ((l.metrics[s]?.mrr10 ?? 0) > (l.metrics[a]?.mrr10 ?? 0) ? s : a));
    const nsccn = l.metrics.nsccn?.mrr10 ?? 0;
    return nsccn < (l.metrics[best]?.mrr10 ?? 0) ? [`${l.name} (${f(nsccn)} against ${best} ${f(l.metrics[best]?.mrr10)})`] : [];
  });
  rows.push(below.length ? `nsccn below its best single stream on: ${below.join(', ')}` : 'nsccn at or above its best single stream on every library');
  return rows.join('\n');
}

export function parseHeldOutArgs(argv: string[]): HeldOutOptions {
  const f = readFlags(argv, { verbose: { type: 'boolean' }, 'per-library': { type: 'string' }, seed: { type: 'string' }, only: { type: 'string' }, out: { type: 'string' } });
  return strip({ verbose: onFlag(f.verbose), perLibrary: positiveFlag('per-library', f['per-library']), seed: numberFlag('seed', f.seed), only: listFlag(f.only), out: stringFlag(f.out) });
}
