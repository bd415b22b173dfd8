// Fits the search reranker's weights (server/src/engine/search/rerank-weights.ts): a linear model
// over each candidate's ranking features (search/features.ts), trained so that the answer gets
// the largest share of exp(score) among a query's candidates (softmax cross-entropy, Adam, L2).
//
// Training queries, none of them asked by the retrieval eval's test halves:
//   docstring  stdlib functions outside the eval's sample (`--train` of them, seeded): their
//              docstrings are removed from a training copy of the stdlib, and the first sentence
//              is the query — the eval's own recipe on other functions;
//   web, bugs  the dev halves of the hand-written sets (data/), asked on the eval copy;
//   libraries  documented functions of the held-out eval's dev libraries (heldout.ts: flask,
//              jinja2, _pytest), asked its way (every docstring removed, first sentence), none
//              of the 40 it asks of each. Neither the static table nor the stdlib saw these
//              libraries: they teach how far the vectors and the stdlib's shapes carry to code
//              they never met. Its test libraries stay unread.
// Each set counts the same, whatever its size (see fit()), but the libraries, which count half.
// The test halves of all three sets and the docstring eval's dev half are only read, before and
// after, to report.
// Deterministic but for the third decimal of a few weights (the candidates' features are not
// bit-for-bit the same from run to run; search/README.md): same corpus and options → the same fit.
//
//   npm run eval -- fit-rerank [--write] [--train 1200] [--seed 11] [--per-library 300] [--libraries-weight 0.5]
//                              [--reuse DIR] [--reuse-train DIR] [--keep] [--dump FILE]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { FEATURES, type Feature } from '../src/engine/search/features';
import { RERANK_WEIGHTS } from '../src/engine/search/rerank-weights';
import { stdlibPath } from './python-paths';
import { answerEids, evalQuestions, makeEvalCopy } from './retrieval';
import type { EvalQuery } from './retrieval/query-sets';
import { sample } from './stdlib-sample';
import { HELD_OUT_LIBRARIES, HELD_OUT_QUESTIONS, HELD_OUT_SEED, withLibraryCopy } from './heldout';
import { numberFlag, onFlag, readFlags, stringFlag, strip } from './flags';

export interface FitOptions {
  stdlib?: string;
  /** Docstring questions for training, outside the eval's sample. */
  train?: number;
  seed?: number;
  /** The eval's sample size and seed (the questions training must not see). */
  evalSample?: number;
  evalSeed?: number;
  write?: boolean;
  reuse?: string;
  reuseTrain?: string;
  /** Also write the collected questions (features, which candidates answer) here, as JSON. */
  dump?: string;
  keep?: boolean;
  iterations?: number;
  l2?: number;
  /** Training questions per held-out dev library, at most (0: no library set). */
  perLibrary?: number;
  /** What the library set counts in the fit, against 1 for each other set. */
  librariesWeight?: number;
  log?: (m: string) => void;
}

export interface Sample {
  set: string;
  split: 'dev' | 'test' | 'train';
  /** Feature vectors of the candidates, and which of them answer. */
  x: number[][];
  y: boolean[];
}

type Weights = number[];

async function collect(root: string, queries: Array<Omit<EvalQuery, 'split'> & { set: string; split: Sample['split'] }>, log: (m: string) => void): Promise<Sample[]> {
  const engine = await Engine.open({ root, dbPath: path.join(root, '.nsccn', 'index.db'), embeddings: { model: 'none' }, log: () => {} });
  try {
    await engine.indexWorkspace();
    await engine.embeddings.idle();
    const out: Sample[] = [];
    for (const q of queries) {
      const eids = new Set(q.answers.flatMap((a) => answerEids(engine, a)));
      if (!eids.size) continue;
      const d = await engine.searchDetailed({ query: q.query, limit: 20 }, undefined, { explain: true });
      const c = d.candidates ?? [];
      out.push({ set: q.set, split: q.split, x: c.map((r) => r.features), y: c.map((r) => eids.has(r.eid)) });
    }
    log(`  ${out.length} questions from ${root}`);
    return out;
  } finally {
    await engine.close();
  }
}

/**
 * Questions on the held-out eval's dev libraries, none of those it asks (its seed 7 and 40 a
 * library): each library copied its way, indexed alone, `perLibrary` of its other documented
 * functions asked (seeded). A library missing from site-packages is left out, said on the log.
 */
async function libraryQuestions(perLibrary: number, seed: number, log: (m: string) => void): Promise<Sample[]> {
  if (perLibrary <= 0) return [];
  const out: Sample[] = [];
  for (const lib of HELD_OUT_LIBRARIES.filter((l) => l.split === 'dev')) {
    const samples = await withLibraryCopy(lib, HELD_OUT_QUESTIONS, HELD_OUT_SEED, async (copy, { picked, usable }) => {
      const inEval = new Set(picked.map((f) => `${f.path}:${f.qname}`));
      const rest = sample(usable.filter((f) => !inEval.has(`${f.path}:${f.qname}`)), perLibrary, seed);
      return collect(copy, rest.map((f) => ({ query: f.query, answers: [`${f.path}:${f.qname}`], split: 'train' as const, set: 'libraries' })), log);
    });
    if (samples) out.push(...samples);
    else log(`fit-rerank: ${lib.name} is not in site-packages; left out`);
  }
  return out;
}

/**
 * Half a set: counted whole, the library questions cost the stdlib's web questions 0.026 on their
 * dev half (search/README.md, "Libraries in the fit", has the grid).
 */
const LIBRARIES_WEIGHT = 0.5;

function scores(w: Weights, s: Sample): number[] {
  return s.x.map((x) => x.reduce((acc, v, i) => acc + v * w[i], 0));
}

/** MRR@10 of one sample under `w` (ties: the candidates' current order). */
export function reciprocalRank(w: Weights, s: Sample): number {
  const sc = scores(w, s);
  const order = sc.map((v, i) => ({ v, i })).sort((a, b) => b.v - a.v || a.i - b.i);
  const r = order.findIndex((o) => s.y[o.i]);
  return r >= 0 && r < 10 ? 1 / (r + 1) : 0;
}

export function fit(samples: Sample[], o: { iterations: number; l2: number; setWeights?: Record<string, number> }, log: (m: string) => void = () => {}): Weights {
  const usable = samples.filter((s) => s.y.some(Boolean));
  const perSet = new Map<string, number>();
  for (const s of usable) perSet.set(s.set, (perSet.get(s.set) ?? 0) + 1);
  // Each set counts the same, whatever its size. The docstring questions' lexical evidence is
  // skewed: the answer's docstring is removed while its neighbours keep theirs, so a lexical
  // first place there is usually a neighbour. Weighed by the square root of their size (1,200
  // against 87 and 33), they taught the model to distrust a lexical first place that on web
  // questions and reports is usually right. Reranker alone, MRR@10 dev / test, by exponent of
  // the per-question weight 1 / size^a (0.5 was the square-root rule): docstring 0.437 / 0.408,
  // 0.415 / 0.388, 0.383 / 0.355 for a = 0.5, 0.75, 1; web 0.390 / 0.406, 0.420 / 0.443, 0.453 /
  // 0.467; bug reports 0.663 / 0.627, 0.665 / 0.646, 0.670 / 0.675.
  const norm = [...perSet.keys()].reduce((a, set) => a + (o.setWeights?.[set] ?? 1), 0);
  const n = usable[0]?.x[0]?.length ?? FEATURES.length;
  const w = new Array<number>(n).fill(0);
  const m = new Array<number>(n).fill(0);
  const v = new Array<number>(n).fill(0);
  const [lr, b1, b2] = [0.05, 0.9, 0.999];
  for (let it = 1; it <= o.iterations; it++) {
    const g = new Array<number>(n).fill(0);
    let loss = 0;
    for (const s of usable) {
      const weight = (o.setWeights?.[s.set] ?? 1) / (norm * perSet.get(s.set)!);
      const sc = scores(w, s);
      const top = Math.max(...sc);
      const e = sc.map((x) => Math.exp(x - top));
      const z = e.reduce((a, b) => a + b, 0);
      const zp = e.reduce((a, x, i) => a + (s.y[i] ? x : 0), 0);
      loss -= weight * Math.log(zp / z);
      s.x.forEach((x, i) => {
        const c = weight * (e[i] / z - (s.y[i] ? e[i] / zp : 0));
        for (let j = 0; j < n; j++) g[j] += c * x[j];
      });
    }
    for (let j = 0; j < n; j++) {
      const gj = g[j] + o.l2 * w[j];
      m[j] = b1 * m[j] + (1 - b1) * gj;
      v[j] = b2 * v[j] + (1 - b2) * gj * gj;
      w[j] -= (lr * (m[j] / (1 - b1 ** it))) / (Math.sqrt(v[j] / (1 - b2 ** it)) + 1e-8);
    }
    if (it % 200 === 0) log(`  iteration ${it}: loss ${loss.toFixed(4)}`);
  }
  return w.map((x) => Math.round(x * 1000) / 1000);
}

function report(samples: Sample[], systems: Record<string, Weights>): string {
  // reach: the share of questions whose answer is among the candidates at all (the ceiling).
  const lines = [`set        split  n     reach  ${Object.keys(systems).map((s) => s.padEnd(9)).join('')}`];
  const groups = new Map<string, Sample[]>();
  for (const s of samples) groups.set(`${s.set}\t${s.split}`, [...(groups.get(`${s.set}\t${s.split}`) ?? []), s]);
  for (const [key, group] of [...groups].sort()) {
    const [set, split] = key.split('\t');
    const cells = Object.values(systems).map((w) => (group.reduce((a, s) => a + reciprocalRank(w, s), 0) / group.length).toFixed(3).padEnd(9));
    const reach = (group.filter((s) => s.y.some(Boolean)).length / group.length).toFixed(3);
    lines.push(`${set.padEnd(10)} ${split.padEnd(6)} ${String(group.length).padEnd(5)} ${reach}  ${cells.join('')}`);
  }
  return lines.join('\n');
}

function weightsSource(w: Weights): string {
  const row = FEATURES.map((f, i) => `${f}: ${w[i]}`).join(', ');
  return `// The reranker's weights (./rerank.ts). Written by \`npm run eval -- fit-rerank -- --write\`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { ${row} };
`;
}

export async function fitRerank(opts: FitOptions = {}): Promise<{ weights: Record<Feature, number>; table: string }> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const stdlib = opts.stdlib ?? stdlibPath();
  const { web, bugs, all, picked } = evalQuestions(stdlib, opts.evalSample ?? 600, opts.evalSeed ?? 7);
  const asked = new Set(picked.map((f) => `${f.path}:${f.qname}`));
  const trainFns = sample(all.filter((f) => !asked.has(`${f.path}:${f.qname}`)), opts.train ?? 1200, opts.seed ?? 11);
  log(`fit-rerank: ${trainFns.length} docstring questions for training (outside the eval's ${picked.length}), web and bug dev halves`);

  const trainCopy = opts.reuseTrain ?? makeEvalCopy(stdlib, trainFns);
  const evalCopy = opts.reuse ?? makeEvalCopy(stdlib, picked);
  try {
    const train = await collect(trainCopy, trainFns.map((f) => ({ query: f.query, answers: [`${f.path}:${f.qname}`], split: 'train' as const, set: 'docstring' })), log);
    const tagged = [
      ...picked.map((f, i) => ({ query: f.query, answers: [`${f.path}:${f.qname}`], split: (i % 2 ? 'test' : 'dev') as Sample['split'], set: 'docstring' })),
      ...web.map((q) => ({ ...q, set: 'web' })),
      ...bugs.map((q) => ({ ...q, set: 'bugs' })),
    ];
    const evalSamples = await collect(evalCopy, tagged, log);
    const libraries = await libraryQuestions(opts.perLibrary ?? 300, opts.seed ?? 11, log);
    if (opts.dump) fs.writeFileSync(opts.dump, JSON.stringify({ features: FEATURES, samples: [...train, ...libraries, ...evalSamples] }));
    const training = [...train, ...libraries, ...evalSamples.filter((s) => s.set !== 'docstring' && s.split === 'dev')];
    const w = fit(training, { iterations: opts.iterations ?? 800, l2: opts.l2 ?? 1e-3, setWeights: { libraries: opts.librariesWeight ?? LIBRARIES_WEIGHT } }, log);
    const current = FEATURES.map((f) => RERANK_WEIGHTS[f] ?? 0);
    const table = report([...train, ...libraries, ...evalSamples], { current, fitted: w });
    const weights = Object.fromEntries(FEATURES.map((f, i) => [f, w[i]])) as Record<Feature, number>;
    if (opts.write) {
      const file = path.resolve(__dirname, __dirname.split(path.sep).includes('dist') ? '../../../server/src/engine/search' : '../src/engine/search', 'rerank-weights.ts');
      fs.writeFileSync(file, weightsSource(w));
      log(`fit-rerank: wrote ${file}`);
    }
    return { weights, table };
  } finally {
    for (const [dir, reused] of [[trainCopy, opts.reuseTrain], [evalCopy, opts.reuse]] as const) {
      if (opts.keep || reused) log(`fit-rerank: copy kept at ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}

export function parseFitArgs(argv: string[]): FitOptions {
  const n = { type: 'string' } as const;
  const f = readFlags(argv, { write: { type: 'boolean' }, keep: { type: 'boolean' }, train: n, seed: n, reuse: n, 'reuse-train': n, dump: n, iterations: n, l2: n, 'per-library': n, 'libraries-weight': n });
  return strip({
    write: onFlag(f.write),
    keep: onFlag(f.keep),
    train: numberFlag('train', f.train),
    seed: numberFlag('seed', f.seed),
    reuse: stringFlag(f.reuse),
    reuseTrain: stringFlag(f['reuse-train']),
    dump: stringFlag(f.dump),
    iterations: numberFlag('iterations', f.iterations),
    l2: numberFlag('l2', f.l2),
    perLibrary: numberFlag('per-library', f['per-library']),
    librariesWeight: numberFlag('libraries-weight', f['libraries-weight']),
  });
}
