// Retrieval eval: docstring → function on the Python standard library. A seeded sample of
// documented functions and methods has its docstrings removed from an eval copy of the source;
// each docstring's first sentence is then the query, and the function it was taken from is the
// one right answer. Reports MRR@10 and Recall@1/5/10 for the lexical stream alone, each semantic
// stream alone, and every fusion of lexical with semantic streams (RRF, as the engine fuses).
//
//   node dist/server/eval/retrieval.js [--sample 600] [--seed 7] [--model none|<hub id>|<folder>]
//     [--quantization auto|float|binary] [--out FILE] [--keep]   (--keep leaves the eval copy on disk)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { entityId } from '../../protocol';
import type { ModelSettings } from '../src/engine/api';
import { Engine } from '../src/engine/engine';
import { reciprocalRankFusion } from '../src/engine/search/fuse';
import { EXTENSIONS } from '../src/engine/languages/registry';
import { discover, IgnoreRules } from '../src/engine/workspace/discover';
import { stdlibPath } from './python-paths';
import { listDocumentedFunctions, removeDocstrings, sample, usableQuestion, type DocumentedFunction } from './stdlib-sample';

export interface RetrievalEvalOptions {
  stdlib?: string;
  sample?: number;
  seed?: number;
  embeddings?: ModelSettings;
  out?: string | null;
  keepCopy?: boolean;
  log?: (m: string) => void;
}

export interface Metrics {
  queries: number;
  mrr10: number;
  recall1: number;
  recall5: number;
  recall10: number;
}

export interface RetrievalEvalResult {
  stdlib: string;
  candidates: number;
  sampled: number;
  evaluated: number;
  notIndexed: number;
  seed: number;
  streams: string[];
  notes: string[];
  /** Keyed by system: a stream name, or streams joined with `+` for their RRF fusion. */
  systems: Record<string, Metrics>;
  seconds: { prepare: number; index: number; embed: number; queries: number };
}

const EXCLUDES = ['test/', 'tests/', 'site-packages/', 'dist-packages/', 'idlelib/idle_test/'];

export async function runRetrievalEval(opts: RetrievalEvalOptions = {}): Promise<RetrievalEvalResult> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const stdlib = opts.stdlib ?? stdlibPath();
  const seed = opts.seed ?? 7;
  const t0 = performance.now();
  const all = listDocumentedFunctions(stdlib).filter(usableQuestion);
  const picked = sample(all, opts.sample ?? 600, seed);
  const copy = makeEvalCopy(stdlib, picked);
  const tPrepared = performance.now();
  log(`eval: ${picked.length} questions from ${all.length} documented functions; copy at ${copy}`);

  const engine = await Engine.open({ root: copy, dbPath: path.join(copy, '.nsccn', 'index.db'), embeddings: opts.embeddings, log: (m) => log(`  ${m}`) });
  try {
    await engine.indexWorkspace();
    const tIndexed = performance.now();
    await engine.embeddings.idle();
    const tEmbedded = performance.now();
    const status = engine.status();
    log(`eval: indexed ${status.entities} entities; streams ${status.streams.join(', ')}`);

    const ranksBySystem = new Map<string, number[]>();
    const record = (system: string, rank: number) => {
      let r = ranksBySystem.get(system);
      if (!r) ranksBySystem.set(system, (r = []));
      r.push(rank);
    };
    let notIndexed = 0;
    for (const q of picked) {
      const row = engine.store.entity(entityId(q.kind, q.path, q.qname));
      if (!row) {
        notIndexed++;
        continue;
      }
      const { perStream } = await engine.searchDetailed({ query: q.query, limit: 10 });
      const names = Object.keys(perStream).sort(streamOrder);
      for (const name of names) record(name, rankOf(perStream[name], row.eid));
      // Every fusion that includes lexical, e.g. lexical+static, lexical+model:x, all streams.
      const semantic = names.filter((n) => n !== 'lexical');
      for (const subset of subsets(semantic)) {
        const members = ['lexical', ...subset];
        const fused = reciprocalRankFusion(Object.fromEntries(members.map((m) => [m, perStream[m] ?? []]))).map((f) => f.eid);
        record(members.join('+'), rankOf(fused, row.eid));
      }
    }
    const tQueried = performance.now();
    const systems = Object.fromEntries([...ranksBySystem].map(([name, ranks]) => [name, metrics(ranks)]));
    const result: RetrievalEvalResult = {
      stdlib,
      candidates: all.length,
      sampled: picked.length,
      evaluated: picked.length - notIndexed,
      notIndexed,
      seed,
      streams: status.streams,
      notes: status.notes,
      systems,
      seconds: {
        prepare: secs(tPrepared - t0),
        index: secs(tIndexed - tPrepared),
        embed: secs(tEmbedded - tIndexed),
        queries: secs(tQueried - tEmbedded),
      },
    };
    if (opts.out !== null) {
      const out = opts.out ?? path.resolve('bench-results', 'eval-retrieval.json');
      fs.mkdirSync(path.dirname(out), { recursive: true });
      fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    }
    return result;
  } finally {
    await engine.close();
    if (opts.keepCopy) log(`eval: copy and index kept at ${copy}`);
    else fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** The stdlib without tests, in a temp dir, with the sampled docstrings replaced by `pass`. */
function makeEvalCopy(stdlib: string, picked: DocumentedFunction[]): string {
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

function rankOf(eids: number[] | undefined, eid: number): number {
  const i = (eids ?? []).slice(0, 10).indexOf(eid);
  return i < 0 ? Infinity : i + 1;
}

function metrics(ranks: number[]): Metrics {
  const n = ranks.length || 1;
  const at = (k: number) => ranks.filter((r) => r <= k).length / n;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    queries: ranks.length,
    mrr10: round(ranks.reduce((s, r) => s + (r <= 10 ? 1 / r : 0), 0) / n),
    recall1: round(at(1)),
    recall5: round(at(5)),
    recall10: round(at(10)),
  };
}

function subsets<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let mask = 1; mask < 1 << items.length; mask++) out.push(items.filter((_, i) => mask & (1 << i)));
  return out;
}

function streamOrder(a: string, b: string): number {
  const w = (s: string) => (s === 'lexical' ? 0 : s === 'static' ? 1 : 2);
  return w(a) - w(b) || (a < b ? -1 : a > b ? 1 : 0);
}

const secs = (ms: number) => Math.round(ms / 100) / 10;

export function formatTable(r: RetrievalEvalResult): string {
  const rows = Object.entries(r.systems).sort(([a], [b]) => a.split('+').length - b.split('+').length || streamOrder(a, b));
  const width = Math.max(20, ...rows.map(([name]) => name.length));
  const head = `${'system'.padEnd(width)}  MRR@10  R@1    R@5    R@10   (n=${r.evaluated})`;
  const lines = rows.map(([name, m]) => `${name.padEnd(width)}  ${[m.mrr10, m.recall1, m.recall5, m.recall10].map((x) => x.toFixed(3).padEnd(6)).join(' ')}`);
  return [head, ...lines].join('\n');
}

function parseArgs(argv: string[]): RetrievalEvalOptions {
  const o: RetrievalEvalOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--keep') {
      o.keepCopy = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--sample') o.sample = Number(value);
    else if (flag === '--seed') o.seed = Number(value);
    else if (flag === '--model') o.embeddings = { ...o.embeddings, model: value };
    else if (flag === '--quantization') o.embeddings = { ...o.embeddings, quantization: value as ModelSettings['quantization'] };
    else if (flag === '--out') o.out = value;
    else if (flag === '--stdlib') o.stdlib = value;
    else throw new Error(`unknown option ${flag}`);
  }
  if (o.sample !== undefined && !(Number.isInteger(o.sample) && o.sample > 0)) throw new Error('--sample needs a positive integer');
  return o;
}

if (require.main === module) {
  runRetrievalEval(parseArgs(process.argv.slice(2))).then(
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
