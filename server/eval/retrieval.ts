// Retrieval eval on the Python standard library, three query sets over one index:
//   docstring  a seeded sample of documented functions has its docstrings removed from an eval
//              copy of the source; each docstring's first sentence is the query, the function
//              the one right answer;
//   web        short how-to questions written by hand (data/web-questions.tsv);
//   web-unseen more of them, written after the reranker was fitted and never trained on
//              (data/web-questions-unseen.tsv); a question whose every answer is in the docstring
//              sample (its docstring removed from the copy) is left out;
//   bugs       bug-report-style texts, some with tracebacks (data/bug-reports.txt).
//   issues     tracker-style reports whose tracebacks rarely reach the fault and which mostly never
//              name it (data/issue-reports.txt). The reranker is not fitted on it (fit-rerank
//              does not read it); its dev half is one of the four the file-list fusion and the
//              report blend were chosen on (search/weights.ts, search/files.ts). Its answers do
//              not shape the docstring sample.
// Every set has a dev and a test half (tune on dev, check on test). Systems: each stream alone,
// plain RRF of lexical+static (the fusion before issue 18, for reference), `nsccn` (the engine's
// own answer), and two plain BM25 baselines — over function source and over whole files.
// Metrics: MRR@10, R@1/5/10 of the answer function; file Acc@1/5 of its file; hub5, the share
// of queries whose top 5 hold the one entity (or file) most often seen in top 5s — high when long
// queries collapse to the same hubs whatever the text.
//
//   npm run eval -- retrieval [--sample 600] [--seed 7] [--model none|<hub id>|<folder>]
//     [--quantization auto|float|binary] [--out FILE] [--keep] [--reuse DIR] [--verbose]
//   (--verbose logs each question's ranks; --keep leaves the eval copy and its index on disk; --reuse DIR runs on such a copy again)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { entityId, type EntityKind } from '../../protocol';
import type { ModelSettings } from '../src/engine/api';
import { Engine } from '../src/engine/engine';
import { reciprocalRankFusion } from '../src/engine/search/fuse';
import { EXTENSIONS } from '../src/engine/languages/registry';
import { discover, IgnoreRules } from '../src/engine/workspace/discover';
import { Bm25 } from './bm25';
import { numberFlag, onFlag, positiveFlag, readFlags, stringFlag, strip } from './flags';
import { stdlibPath } from './python-paths';
import { filesOf, firstHit, metrics, type Metrics, type Outcome } from './retrieval/metrics';
import { dataDir, loadBugReports, loadWebQuestions, type EvalQuery } from './retrieval/query-sets';
import { listDocumentedFunctions, removeDocstrings, sample, usableQuestion, type DocumentedFunction } from './stdlib-sample';

export type { Metrics } from './retrieval/metrics';

export interface RetrievalEvalOptions {
  stdlib?: string;
  sample?: number;
  seed?: number;
  embeddings?: ModelSettings;
  out?: string | null;
  keepCopy?: boolean;
  /** An eval copy kept by an earlier run with the same seed and sample (--keep): skips the copy and most of the indexing. */
  reuse?: string;
  /** Each question's rank in the lexical and static streams and the engine's answer, on the log. */
  verbose?: boolean;
  log?: (m: string) => void;
}

export type SetName = 'docstring' | 'web' | 'web-unseen' | 'bugs' | 'issues';
export type SplitMetrics = Record<'all' | 'dev' | 'test', Record<string, Metrics>>;

export interface RetrievalEvalResult {
  stdlib: string;
  candidates: number;
  seed: number;
  streams: string[];
  notes: string[];
  /** Queries whose answer the index does not hold (left out of the metrics). */
  notIndexed: Record<SetName, number>;
  sets: Record<SetName, SplitMetrics>;
  seconds: { prepare: number; index: number; embed: number; queries: number };
}

const EXCLUDES = ['test/', 'tests/', 'site-packages/', 'dist-packages/', 'idlelib/idle_test/'];
const ANSWER_KINDS: EntityKind[] = ['function', 'method', 'class'];

export async function runRetrievalEval(opts: RetrievalEvalOptions = {}): Promise<RetrievalEvalResult> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const stdlib = opts.stdlib ?? stdlibPath();
  const seed = opts.seed ?? 7;
  const t0 = performance.now();
  const { web, bugs, all, picked } = evalQuestions(stdlib, opts.sample ?? 600, seed);
  const issues = loadBugReports(path.join(dataDir(), 'issue-reports.txt'));
  const stripped = new Set(picked.map((f) => `${f.path}:${f.qname}`));
  const unseen = loadWebQuestions(path.join(dataDir(), 'web-questions-unseen.tsv'));
  const webUnseen = unseen.filter((q) => q.answers.some((a) => !stripped.has(a)));
  const docstring: EvalQuery[] = picked.map((f, i) => ({ query: f.query, answers: [`${f.path}:${f.qname}`], split: i % 2 ? 'test' : 'dev' }));
  const copy = opts.reuse ?? makeEvalCopy(stdlib, picked);
  const tPrepared = performance.now();
  log(`eval: ${picked.length} docstring questions from ${all.length} documented functions, ${web.length} web questions, ${webUnseen.length} unseen web questions (${unseen.length - webUnseen.length} left out: their answers are docstring questions), ${bugs.length} bug reports, ${issues.length} issue reports; copy at ${copy}`);

  const embeddings = opts.embeddings ?? { model: 'none' };
  const engine = await Engine.open({ root: copy, dbPath: path.join(copy, '.nsccn', 'index.db'), embeddings, log: (m) => log(`  ${m}`) });
  try {
    await engine.indexWorkspace();
    const tIndexed = performance.now();
    await engine.embeddings.idle();
    const tEmbedded = performance.now();
    const status = engine.status();
    log(`eval: indexed ${status.entities} entities; streams ${status.streams.join(', ')}`);
    const baselines = buildBaselines(engine, copy);

    const sets: Record<SetName, EvalQuery[]> = { docstring, web, 'web-unseen': webUnseen, bugs, issues };
    const out = {} as Record<SetName, SplitMetrics>;
    const notIndexed = {} as Record<SetName, number>;
    for (const [name, queries] of Object.entries(sets) as Array<[SetName, EvalQuery[]]>) {
      const outcomes: Record<'dev' | 'test', Map<string, Outcome[]>> = { dev: new Map(), test: new Map() };
      notIndexed[name] = 0;
      for (const q of queries) {
        const eids = new Set(q.answers.flatMap((a) => answerEids(engine, a)));
        if (!eids.size) {
          notIndexed[name]++;
          continue;
        }
        const files = new Set(q.answers.map((a) => a.slice(0, a.indexOf(':'))));
        const judged = await judge(engine, baselines, q.query, eids, files);
        for (const [system, o] of Object.entries(judged)) {
          const bySystem = outcomes[q.split];
          bySystem.set(system, [...(bySystem.get(system) ?? []), o]);
        }
        if (opts.verbose) {
          const rank = (s: string) => String(judged[s]?.rank ?? '-').padStart(3);
          log(`  ${name} ${q.split.padEnd(4)} ${rank('lexical')} ${rank('static')} ${rank('nsccn')}  ${q.answers[0]}  «${q.query.replace(/\s+/g, ' ').slice(0, 90)}»`);
        }
      }
      const summarize = (m: Map<string, Outcome[]>) => Object.fromEntries([...m].map(([s, o]) => [s, metrics(o)]));
      const both = new Map<string, Outcome[]>();
      for (const split of ['dev', 'test'] as const) for (const [s, o] of outcomes[split]) both.set(s, [...(both.get(s) ?? []), ...o]);
      out[name] = { all: summarize(both), dev: summarize(outcomes.dev), test: summarize(outcomes.test) };
    }
    const tQueried = performance.now();
    const result: RetrievalEvalResult = {
      stdlib,
      candidates: all.length,
      seed,
      streams: status.streams,
      notes: status.notes,
      notIndexed,
      sets: out,
      seconds: { prepare: secs(tPrepared - t0), index: secs(tIndexed - tPrepared), embed: secs(tEmbedded - tIndexed), queries: secs(tQueried - tEmbedded) },
    };
    if (opts.out !== null) {
      const file = opts.out ?? path.resolve('bench-results', 'eval-retrieval.json');
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
    }
    return result;
  } finally {
    await engine.close();
    if (opts.keepCopy || opts.reuse) log(`eval: copy and index kept at ${copy}`);
    else fs.rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * The eval's questions: the hand-written sets, every usable documented function (`all`; the
 * hand-written sets' answers keep their docstrings: they are not docstring questions) and the
 * seeded sample of them that is asked (`picked`).
 */
export function evalQuestions(stdlib: string, n: number, seed: number): { web: EvalQuery[]; bugs: EvalQuery[]; all: DocumentedFunction[]; picked: DocumentedFunction[] } {
  const web = loadWebQuestions();
  const bugs = loadBugReports();
  const handAnswers = new Set([...web, ...bugs].flatMap((q) => q.answers));
  const all = listDocumentedFunctions(stdlib).filter(usableQuestion).filter((f) => !handAnswers.has(`${f.path}:${f.qname}`));
  return { web, bugs, all, picked: sample(all, n, seed) };
}

export interface Baselines {
  functions: Bm25<number>;
  files: Bm25<string>;
}

/** BM25 over every function, method and class's source lines, and over every whole file. */
export function buildBaselines(engine: Engine, root: string): Baselines {
  const functions = new Bm25<number>();
  const files = new Bm25<string>();
  for (const f of engine.store.files()) {
    const text = fs.readFileSync(path.join(root, f.path), 'utf8');
    files.add(f.path, text);
    const lines = text.split('\n');
    for (const e of engine.store.entitiesOfFile(f.path)) {
      if (!ANSWER_KINDS.includes(e.kind as EntityKind) || e.sr === null || e.er === null) continue;
      functions.add(e.eid, lines.slice(e.sr, e.er + 1).join('\n'));
    }
  }
  return { functions, files };
}

export function answerEids(engine: Engine, answer: string): number[] {
  const at = answer.indexOf(':');
  const [file, qname] = [answer.slice(0, at), answer.slice(at + 1)];
  return ANSWER_KINDS.map((k) => engine.store.entity(entityId(k, file, qname))?.eid).filter((e): e is number => e !== undefined);
}

/** Every system's outcome for one query. */
export async function judge(engine: Engine, b: Baselines, query: string, eids: Set<number>, files: Set<string>): Promise<Record<string, Outcome>> {
  const pathOf = (eid: number) => engine.store.entityByEid(eid)?.path;
  const ofEids = (ranked: number[]): Outcome => ({
    rank: firstHit(ranked.slice(0, 10), (e) => eids.has(e)),
    fileRank: firstHit(filesOf(ranked.map(pathOf)), (f) => files.has(f)),
    top5: ranked.slice(0, 5),
  });
  const detailed = await engine.searchDetailed({ query, limit: 20, files: true });
  const out: Record<string, Outcome> = {};
  for (const [name, ranked] of Object.entries(detailed.perStream)) out[name] = ofEids(ranked);
  if (detailed.perStream.static) {
    const rrf = reciprocalRankFusion({ lexical: detailed.perStream.lexical ?? [], static: detailed.perStream.static }).map((f) => f.eid);
    out['rrf(lexical+static)'] = ofEids(rrf);
  }
  const fused = detailed.results.map((r) => engine.store.entity(r.id)?.eid ?? -1);
  out.nsccn = {
    ...ofEids(fused),
    fileRank: firstHit(detailed.files?.map((f) => f.file) ?? filesOf(detailed.results.map((r) => r.file)), (f) => files.has(f)),
  };
  out['bm25-functions'] = ofEids(b.functions.search(query, 100));
  const bm25Files = b.files.search(query, 10);
  out['bm25-files'] = { rank: Infinity, fileRank: firstHit(bm25Files, (f) => files.has(f)), top5: bm25Files.slice(0, 5) };
  return out;
}

/** The stdlib without tests, in a temp dir, with the sampled docstrings replaced by `pass`. */
export function makeEvalCopy(stdlib: string, picked: DocumentedFunction[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-eval-stdlib-'));
  const byFile = new Map<string, DocumentedFunction[]>();
  for (const p of picked) byFile.set(p.path, [...(byFile.get(p.path) ?? []), p]);
  const found = discover(stdlib, { extensions: EXTENSIONS, exclude: EXCLUDES, maxFileBytes: 1 << 20 }, new IgnoreRules(stdlib, EXCLUDES));
  for (const f of found.files) {
    const dest = path.join(dir, f.path);
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    const edits = byFile.get(f.path);
    if (!edits) fs.copyFileSync(path.join(stdlib, f.path), dest);
    else fs.writeFileSync(dest, removeDocstrings(fs.readFileSync(path.join(stdlib, f.path), 'utf8'), edits));
  }
  return dir;
}

const secs = (ms: number) => Math.round(ms / 100) / 10;

const SYSTEM_ORDER = ['bm25-files', 'bm25-functions', 'lexical', 'exact', 'static', 'rrf(lexical+static)', 'nsccn'];
const systemOrder = (a: string, b: string) => {
  const w = (s: string) => (SYSTEM_ORDER.includes(s) ? SYSTEM_ORDER.indexOf(s) : SYSTEM_ORDER.length - 1.5);
  return w(a) - w(b) || (a < b ? -1 : a > b ? 1 : 0);
};

export function formatTable(r: RetrievalEvalResult): string {
  const blocks: string[] = [];
  for (const [set, m] of Object.entries(r.sets)) {
    const rows = Object.keys(m.all).sort(systemOrder);
    const width = Math.max(20, ...rows.map((s) => s.length));
    const n = (s: 'all' | 'dev' | 'test') => Object.values(m[s])[0]?.queries ?? 0;
    const head = `${set.padEnd(width)}  MRR@10 R@1    R@5    R@10   F@1    F@5    hub5   | dev MRR F@5    test MRR F@5   (n=${n('all')}: dev ${n('dev')}, test ${n('test')})`;
    const f = (x: number | undefined) => (x ?? NaN).toFixed(3).padEnd(6);
    const lines = rows.map((s) => {
      const a = m.all[s];
      return `${s.padEnd(width)}  ${[a.mrr10, a.recall1, a.recall5, a.recall10, a.file1, a.file5, a.hub5].map(f).join(' ')} | ${f(m.dev[s]?.mrr10)}  ${f(m.dev[s]?.file5)} ${f(m.test[s]?.mrr10)}   ${f(m.test[s]?.file5)}`;
    });
    blocks.push([head, ...lines].join('\n'));
  }
  return blocks.join('\n\n');
}

/** `npm run eval -- retrieval [--sample 600] [--seed 7] [--model ID] [--quantization Q] [--out FILE] [--stdlib DIR] [--reuse DIR] [--keep] [--verbose]`. */
export function parseRetrievalArgs(argv: string[]): RetrievalEvalOptions {
  const f = readFlags(argv, {
    sample: { type: 'string' },
    seed: { type: 'string' },
    model: { type: 'string' },
    quantization: { type: 'string' },
    out: { type: 'string' },
    stdlib: { type: 'string' },
    reuse: { type: 'string' },
    keep: { type: 'boolean' },
    verbose: { type: 'boolean' },
  });
  const model = stringFlag(f.model);
  const quantization = stringFlag(f.quantization) as ModelSettings['quantization'] | undefined;
  return strip({
    sample: positiveFlag('sample', f.sample),
    seed: numberFlag('seed', f.seed),
    embeddings: model || quantization ? strip({ model, quantization }) : undefined,
    out: stringFlag(f.out),
    stdlib: stringFlag(f.stdlib),
    reuse: stringFlag(f.reuse),
    keepCopy: onFlag(f.keep),
    verbose: onFlag(f.verbose),
  });
}

if (require.main === module) {
  runRetrievalEval(parseRetrievalArgs(process.argv.slice(2))).then(
    (r) => {
      console.log(formatTable(r));
      for (const n of r.notes) console.log(`note: ${n}`);
    },
    (e: Error) => {
      console.error(`eval: ${e.message}`);
      process.exit(1);
    },
  );
}
