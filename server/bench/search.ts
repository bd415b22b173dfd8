// Search benchmark: `nsccn/search` latency (p50/p99) at 10K and 100K entities of real code
// (prefixes of this machine's Python site-packages), float vs binary vector search; embedding
// throughput of the static table and of a transformer (the tiny test model: it measures the
// machinery — thread, tokenizer, ONNX runtime, transfer — not a real model's arithmetic); and
// index bytes per entity, per table.
//
//   node dist/server/bench/search.js [--scales 10000,100000] [--out FILE]
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { ModelEmbedder } from '../src/engine/embed/model-embedder';
import { decideModel } from '../src/engine/embed/model-settings';
import { defaultStaticTablePath } from '../src/engine/embed/static-asset';
import { StaticEmbedder } from '../src/engine/embed/static-embedder';
import { embeddingText } from '../src/engine/embed/text';
import { EXTENSIONS } from '../src/engine/languages/registry';
import { VectorStore } from '../src/engine/store/vectors';
import { discover, IgnoreRules } from '../src/engine/workspace/discover';
import { sitePackagesPath } from '../eval/python-paths';
import { loadBugReports } from '../eval/retrieval/query-sets';
import { buildTinyModel } from '../../test/helpers/tiny-model';

const QUERIES = [
  'parse a date string', 'read a configuration file', 'send an http request with headers', 'compute the inverse of a matrix',
  'validate an email address', 'serialize an object to json', 'retry on failure with backoff', 'connect to a database',
  'compress data with gzip', 'format a log message', 'split a path into directory and name', 'hash a password',
  'download a file from a url', 'sort items by key', 'convert bytes to a string', 'create a temporary directory',
  'escape html characters', 'read a csv file', 'start a thread pool', 'raise an error when the value is invalid',
  'get_logger', 'HTTPConnection', 'to_dict', 'parse_args', 'DataFrame', 'load yaml', 'tokenize source code',
  'random number generator seed', 'encode base64', 'cache results of a function', 'walk a directory tree',
  'register a plugin', 'render a template', 'match a regular expression', 'open a socket', 'sum of squares',
  'merge two dictionaries', 'check file permissions', 'build a command line interface', 'timezone conversion',
];

const REPORTS = loadBugReports().map((r) => r.query);

export interface LatencyStats {
  p50: number;
  p99: number;
  mean: number;
  runs: number;
}

export interface ScaleResult {
  target: number;
  files: number;
  entities: number;
  embeddable: number;
  indexSeconds: number;
  /** Wait for the static vectors after the last index pass (they fill in while indexing runs). */
  staticEmbedWaitSeconds: number;
  search: { float: LatencyStats; binary: LatencyStats };
  /**
   * The same 40 questions once each, asked of a server just opened (its lexical stream reads each
   * common word on first use): what the first searches cost, before `search`'s state (a server
   * past its first seconds: common words read, search/common-terms.ts).
   */
  searchFresh: { float: LatencyStats; binary: LatencyStats };
  /** Whole bug reports as queries (server/eval/data/bug-reports.txt): the long-query path. */
  searchReports: { float: LatencyStats; binary: LatencyStats };
  staticStream: { float: LatencyStats; binary: LatencyStats };
  bytesPerEntity: Record<string, number>;
}

export interface SearchBenchResult {
  machine: { cpus: number; node: string };
  scales: ScaleResult[];
  embeddingsPerSecond: { static: number; tinyModel: number; tinyModelBatch: number };
}

export interface SearchBenchOptions {
  scales?: number[];
  out?: string | null;
  log?: (m: string) => void;
}

export async function runSearchBench(opts: SearchBenchOptions = {}): Promise<SearchBenchResult> {
  const log = opts.log ?? ((m: string) => console.error(m));
  const source = sitePackagesPath();
  const pool = discover(source, { extensions: EXTENSIONS, exclude: [], maxFileBytes: 1 << 20 }, new IgnoreRules(source, []));
  // Spread the prefix over many packages: every 7th file in path order, then the rest.
  const order = [...pool.files.filter((_, i) => i % 7 === 0), ...pool.files.filter((_, i) => i % 7 !== 0)];
  const scales: ScaleResult[] = [];
  let sampleTexts: string[] = [];
  for (const target of opts.scales ?? [10_000, 100_000]) {
    const r = await benchScale(source, order, target, log);
    scales.push(r.result);
    if (!sampleTexts.length) sampleTexts = r.texts;
  }
  const embeddingsPerSecond = await embeddingThroughput(sampleTexts, log);
  const result: SearchBenchResult = { machine: { cpus: os.availableParallelism(), node: process.version }, scales, embeddingsPerSecond };
  if (opts.out !== null) {
    const out = opts.out ?? path.resolve('bench-results', 'bench-search.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  }
  return result;
}

async function benchScale(source: string, order: Array<{ path: string; size: number }>, target: number, log: (m: string) => void): Promise<{ result: ScaleResult; texts: string[] }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `nsccn-bench-search-${target}-`));
  const dbPath = path.join(root, '.nsccn', 'index.db');
  try {
    // Copy files until the index holds `target` embeddable entities (site-packages averages about
    // 200 bytes of Python per embeddable entity; small steps keep the overshoot small).
    let copied = 0;
    let embeddable = 0;
    let indexSeconds = 0;
    let engine = await Engine.open({ root, dbPath, embeddings: { model: 'none', quantization: 'float' } });
    while (embeddable < target && copied < order.length) {
      let bytes = Math.max(50_000, (target - embeddable) * 150);
      while (bytes > 0 && copied < order.length) {
        const f = order[copied++];
        const dest = path.join(root, f.path);
        fs.mkdirSync(path.dirname(dest), { recursive: true });
        fs.copyFileSync(path.join(source, f.path), dest);
        bytes -= f.size;
      }
      indexSeconds += (await engine.indexWorkspace()).seconds;
      embeddable = new VectorStore(engine.store.db).embeddableCount();
    }
    const t0 = performance.now();
    await engine.embeddings.idle();
    const staticEmbedWaitSeconds = (performance.now() - t0) / 1000;
    const entities = engine.status().entities;
    log(`bench: ${target}: ${copied} files, ${entities} entities (${embeddable} embeddable), indexed in ${indexSeconds.toFixed(1)} s, static vectors in ${staticEmbedWaitSeconds.toFixed(1)} s`);
    const float = await latencies(engine);
    const texts = sampleEntityTexts(engine, 2048);
    await engine.close();

    engine = await Engine.open({ root, dbPath, embeddings: { model: 'none', quantization: 'binary' } });
    await engine.embeddings.idle();
    const binary = await latencies(engine);
    const bytesPerEntity = tableBytes(engine, embeddable);
    await engine.close();
    return {
      result: {
        target,
        files: copied,
        entities,
        embeddable,
        indexSeconds: round(indexSeconds),
        staticEmbedWaitSeconds: round(staticEmbedWaitSeconds),
        search: { float: float.search, binary: binary.search },
        searchFresh: { float: float.fresh, binary: binary.fresh },
        searchReports: { float: float.reports, binary: binary.reports },
        staticStream: { float: float.stream, binary: binary.stream },
        bytesPerEntity,
      },
      texts,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function latencies(engine: Engine): Promise<{ search: LatencyStats; fresh: LatencyStats; stream: LatencyStats; reports: LatencyStats }> {
  const stream = engine.embeddings.streams().find((s) => s.name === 'static');
  const fresh: number[] = [];
  for (const q of QUERIES) {
    const t = performance.now();
    await engine.search({ query: q, limit: 20 });
    fresh.push(performance.now() - t);
  }
  await engine.warmSearch();
  const search: number[] = [];
  const streamTimes: number[] = [];
  for (let round = 0; round < 5; round++) {
    for (const q of QUERIES) {
      let t = performance.now();
      await engine.search({ query: q, limit: 20 });
      search.push(performance.now() - t);
      if (stream) {
        t = performance.now();
        await stream.search(q, 60);
        streamTimes.push(performance.now() - t);
      }
    }
  }
  const reports: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const q of REPORTS) {
      const t = performance.now();
      await engine.search({ query: q, limit: 20, files: true });
      reports.push(performance.now() - t);
    }
  }
  return { search: stats(search), fresh: stats(fresh), stream: stats(streamTimes), reports: stats(reports) };
}

function stats(ms: number[]): LatencyStats {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
  return { p50: round(at(0.5)), p99: round(at(0.99)), mean: round(s.reduce((a, b) => a + b, 0) / (s.length || 1)), runs: s.length };
}

/** Bytes per embeddable entity of each kind of table, from SQLite's own page accounting. */
function tableBytes(engine: Engine, embeddable: number): Record<string, number> {
  const db = engine.store.db;
  db.pragma('wal_checkpoint(TRUNCATE)');
  const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all() as Array<{ name: string; bytes: number }>;
  const groups: Record<string, number> = { floatVectors: 0, rescoreRows: 0, binaryVectors: 0, vectorBookkeeping: 0, graphAndLexical: 0 };
  for (const r of rows) {
    // With the bits on, vec0 is empty and the re-scoring rows (a byte per dimension) hold the vectors.
    if (/^vec_(static|model)_q8/.test(r.name)) groups.rescoreRows += r.bytes;
    else if (r.name.startsWith('vec_static_f') || r.name.startsWith('vec_model_f')) groups.floatVectors += r.bytes;
    else if (r.name.startsWith('vec_static_b') || r.name.startsWith('vec_model_b')) groups.binaryVectors += r.bytes;
    else if (r.name.startsWith('vec_')) groups.vectorBookkeeping += r.bytes;
    else groups.graphAndLexical += r.bytes;
  }
  return Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, round(v / Math.max(1, embeddable))]));
}

function sampleEntityTexts(engine: Engine, n: number): string[] {
  const vs = new VectorStore(engine.store.db);
  const rows = (engine.store.db.prepare(`SELECT eid FROM entities WHERE fid IS NOT NULL AND kind IN ('function', 'method', 'class') ORDER BY eid LIMIT ?`).all(n) as Array<{ eid: number }>)
    .map((r) => vs.entity(r.eid))
    .filter((e) => e !== undefined);
  return rows.map(embeddingText);
}

async function embeddingThroughput(texts: string[], log: (m: string) => void): Promise<SearchBenchResult['embeddingsPerSecond']> {
  const out = { static: 0, tinyModel: 0, tinyModelBatch: 16 };
  const table = defaultStaticTablePath();
  if (table && texts.length) {
    const emb = StaticEmbedder.load(table);
    const t = performance.now();
    await emb.embed(texts);
    out.static = Math.round(texts.length / ((performance.now() - t) / 1000));
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-model-'));
  try {
    const tiny = buildTinyModel(dir, { name: 'tiny', dims: 384, quantized: true });
    const d = decideModel({ model: tiny.dir }, {});
    if (d.kind !== 'load' || !texts.length) return out;
    const m = await ModelEmbedder.load(d.plan);
    try {
      await m.embed(texts.slice(0, 16));
      const t = performance.now();
      for (let i = 0; i < texts.length; i += out.tinyModelBatch) await m.embed(texts.slice(i, i + out.tinyModelBatch));
      out.tinyModel = Math.round(texts.length / ((performance.now() - t) / 1000));
    } finally {
      await m.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  log(`bench: embeddings/s static ${out.static}, tiny model ${out.tinyModel}`);
  return out;
}

const round = (x: number) => Math.round(x * 100) / 100;

export function formatBench(r: SearchBenchResult): string {
  const lines = ['entities   search p50/p99 ms (float)   (binary)     static stream p50/p99 (float)  (binary)    bytes/entity (float vec, byte rows, bit vec, rest)'];
  for (const s of r.scales) {
    const b = s.bytesPerEntity;
    lines.push(
      `${String(s.embeddable).padEnd(10)} ${`${s.search.float.p50} / ${s.search.float.p99}`.padEnd(27)} ${`${s.search.binary.p50} / ${s.search.binary.p99}`.padEnd(12)} ${`${s.staticStream.float.p50} / ${s.staticStream.float.p99}`.padEnd(30)} ${`${s.staticStream.binary.p50} / ${s.staticStream.binary.p99}`.padEnd(11)} ${b.floatVectors}, ${b.rescoreRows}, ${b.binaryVectors}, ${round(b.graphAndLexical + b.vectorBookkeeping)}`,
    );
  }
  for (const s of r.scales) lines.push(`${s.embeddable} entities, the first 40 questions of a server just opened: p50/p99 ms ${s.searchFresh.float.p50} / ${s.searchFresh.float.p99} (float), ${s.searchFresh.binary.p50} / ${s.searchFresh.binary.p99} (binary)`);
  for (const s of r.scales) lines.push(`${s.embeddable} entities, bug reports as queries (search + files): p50/p99 ms ${s.searchReports.float.p50} / ${s.searchReports.float.p99} (float), ${s.searchReports.binary.p50} / ${s.searchReports.binary.p99} (binary)`);
  lines.push(`embeddings/s: static table ${r.embeddingsPerSecond.static}, tiny transformer ${r.embeddingsPerSecond.tinyModel} (batches of ${r.embeddingsPerSecond.tinyModelBatch})`);
  return lines.join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const opts: SearchBenchOptions = {};
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === '--scales') opts.scales = args[i + 1].split(',').map(Number);
    else if (args[i] === '--out') opts.out = args[i + 1];
    else {
      console.error(`unknown option ${args[i]}`);
      process.exit(2);
    }
  }
  if (opts.scales?.some((n) => !(Number.isInteger(n) && n > 0))) {
    console.error('--scales needs positive integers, e.g. 10000,100000');
    process.exit(2);
  }
  runSearchBench(opts).then(
    (r) => console.log(formatBench(r)),
    (e: Error) => {
      console.error(`bench: ${e.message}`);
      process.exit(1);
    },
  );
}
