// Trains the static code-embedding table shipped as server/assets/static-embeddings.bin, in two
// stages: (1) word vectors from the co-occurrence of identifier sub-words and docstring words
// inside the functions of this machine's Python site-packages (real third-party code), reduced
// by SVD of the PPMI matrix; (2) contrastive training of those vectors on (text → code) pairs
// (static/pairs.ts: docstring → function, name → body from site-packages, JSDoc → function from
// node_modules) with in-batch negatives (static/contrastive.ts): three trainings with different
// seeds are averaged, and the average is interpolated back towards the SVD rows (60 % trained).
// Vendored code and the packages other evaluations use are never read (static/exclusions.ts).
// Reproducible: same inputs and options → the same file, byte for byte.
//
//   npm run train-static -- [--root DIR] [--node-modules DIR] [--out FILE] [--dims 256]
//     [--vocab 30000] [--epochs 2] [--batch 512] [--temperature 0.05] [--learning-rate 0.05]
//     [--runs 3] [--interpolate 0.6] [--asymmetric 1 [--residual 1]] [--comments 1]
//     [--declarations 1] [--cache FILE] [--pairs-out FILE] ...
//
// --cache FILE keeps stage 1 (vocabulary, IDF, SVD rows, Python pairs: ~3 min) in FILE, so that
// experiments with the contrastive stage start from it.
//
// The standard library is the retrieval eval set, so it is never trained on. Site-packages
// also holds copies of stdlib code (vendored backports, setuptools' distutils, ...): every
// function whose docstring's first sentence also opens a stdlib docstring is left out, so that
// no eval query was seen next to its answer during training.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_EMBED_CHARS } from '../src/engine/embed/text';
import { encodeStaticTable, type StaticTable } from '../src/engine/embed/static-asset';
import { buildCorpus, forEachEntity } from './static/corpus';
import { trainContrastive, type Table } from './static/contrastive';
import { TRAINING_EXCLUDES } from './static/exclusions';
import { commentKeys, commentPairs } from './static/comment-pairs';
import { declarationPairs, jsDocPairs, pythonPairCollector, type Pair } from './static/pairs';
import { chooseVocabulary, ppmiMatrix, remapDocuments } from './static/ppmi';
import { randomizedSvd } from './static/svd';
import { firstSentence, sentenceKey } from './docstrings';
import { sitePackagesPath, stdlibPath, STDLIB_EXCLUDES } from './python-paths';

export interface TrainOptions {
  root?: string;
  /** Also write the table before the contrastive stage here (to measure what that stage adds). */
  initOut?: string;
  /** JavaScript/TypeScript for JSDoc pairs; default: this project's node_modules. */
  nodeModules?: string;
  out?: string;
  dims?: number;
  vocab?: number;
  contexts?: number;
  minDf?: number;
  maxPerRow?: number;
  /** Exponent of the singular values in the word vectors (0 = U alone, 1 = UΣ). */
  sigmaPower?: number;
  powerIterations?: number;
  sampleEvery?: number;
  decontaminate?: boolean;
  seed?: number;
  /** Contrastive stage: 0 epochs keeps the PPMI + SVD vectors alone. */
  epochs?: number;
  batch?: number;
  run?: number;
  temperature?: number;
  learningRate?: number;
  /** A separate query-side table (prose words), trained jointly with the code-side one. */
  asymmetric?: boolean;
  /**
   * Weight of the trained rows in the shipped table, the rest being the PPMI + SVD rows they
   * started from (1 = trained rows alone). Interpolating back towards the start, as WiSE-FT
   * does for fine-tuned models, undoes part of what the contrastive stage overfits.
   */
  interpolate?: number;
  /** Contrastive trainings (seeds contrastiveSeed, +1, ...) averaged into the table. */
  runs?: number;
  /** Seed of the first contrastive training (default: `seed`, which also seeds the SVD). */
  contrastiveSeed?: number;
  /** Asymmetric: the query side is the code side plus a trained residual (see contrastive.ts). */
  residual?: boolean;
  /** Asymmetric: the query side's learning rate relative to `learningRate`. */
  queryRate?: number;
  /** Also train on comment → code pairs from the Python under `root` (static/comment-pairs.ts). */
  comments?: boolean;
  /** Also train on JSDoc → declaration pairs from the type declarations (.d.ts) under node_modules. */
  declarations?: boolean;
  /**
   * Write the (text → code) pairs here as JSON lines ({key, source, query, code}: the code side's
   * texts joined, as a model would read them) and stop before the contrastive stage: the input of
   * the small-transformer experiment (server/eval/transformer/).
   */
  pairsOut?: string;
  /**
   * Reuse the corpus stage (vocabulary, IDF, SVD rows, Python pairs) from this file when it
   * exists, else write it there: experiments then run only the contrastive stage. The cache is
   * exact (float32 rows, pair texts), so a cached run writes the same table as a fresh one.
   */
  cache?: string;
  log?: (m: string) => void;
}

export interface TrainResult {
  out: string;
  bytes: number;
  files: number;
  documents: number;
  words: number;
  dims: number;
  pairs: Record<string, number>;
  loss: number[];
  seconds: Record<string, number>;
}

const DEFAULTS = {
  dims: 256, vocab: 30000, contexts: 6000, minDf: 5, maxPerRow: 400, sigmaPower: 0, powerIterations: 2, sampleEvery: 1, seed: 1,
  epochs: 2, batch: 512, run: 16, temperature: 0.05, learningRate: 0.05, asymmetric: false, runs: 3, interpolate: 0.6, residual: false, queryRate: 1, comments: false, declarations: false,
};

interface Stage1 {
  words: string[];
  idf: Float32Array;
  vectors: Float32Array;
  dims: number;
  files: number;
  documents: number;
  pairs: Pair[];
}

function saveStage1(file: string, s: Stage1, key: string): void {
  const meta = Buffer.from(JSON.stringify({ key, words: s.words, dims: s.dims, files: s.files, documents: s.documents, pairs: s.pairs }), 'utf8');
  const len = Buffer.alloc(8);
  len.writeUInt32LE(meta.length, 0);
  len.writeUInt32LE(s.words.length, 4);
  fs.writeFileSync(file, Buffer.concat([len, meta, Buffer.from(s.idf.buffer, s.idf.byteOffset, s.idf.byteLength), Buffer.from(s.vectors.buffer, s.vectors.byteOffset, s.vectors.byteLength)]));
}

function loadStage1(file: string, key: string): Stage1 | null {
  if (!fs.existsSync(file)) return null;
  const buf = fs.readFileSync(file);
  const m = buf.readUInt32LE(0);
  const n = buf.readUInt32LE(4);
  const meta = JSON.parse(buf.subarray(8, 8 + m).toString('utf8')) as Omit<Stage1, 'idf' | 'vectors'> & { key: string };
  if (meta.key !== key) return null;
  const at = 8 + m;
  const copy = (from: number, count: number) => new Float32Array(buf.buffer.slice(buf.byteOffset + from, buf.byteOffset + from + count * 4));
  return { ...meta, idf: copy(at, n), vectors: copy(at + n * 4, n * meta.dims) };
}

export async function trainStatic(options: TrainOptions = {}): Promise<TrainResult> {
  const o = { ...DEFAULTS, ...options };
  const log = o.log ?? ((m: string) => console.log(m));
  const root = o.root ?? sitePackagesPath();
  const out = o.out ?? defaultOut();
  const seconds: Record<string, number> = {};
  let t = performance.now();
  const lap = (name: string) => {
    seconds[name] = Math.round(performance.now() - t) / 1000;
    t = performance.now();
  };

  const stage1Key = JSON.stringify({ root, dims: o.dims, vocab: o.vocab, contexts: o.contexts, minDf: o.minDf, maxPerRow: o.maxPerRow, sigmaPower: o.sigmaPower, powerIterations: o.powerIterations, sampleEvery: o.sampleEvery, seed: o.seed, decontaminate: o.decontaminate !== false });
  let s1 = o.cache ? loadStage1(o.cache, stage1Key) : null;
  if (s1) {
    log(`corpus stage from ${o.cache}`);
    lap('cache');
  } else {
    s1 = await corpusStage(o, root, log, lap);
    if (o.cache) saveStage1(o.cache, s1, stage1Key);
  }
  const { files, documents } = s1;
  const words = s1.words.length;
  const vocabWords = s1.words;
  const float: Table = { words, dims: s1.dims, vectors: s1.vectors, idf: s1.idf, index: new Map(vocabWords.map((w, i) => [w, i])) };
  const pairCounts: Record<string, number> = {};
  const loss: number[] = [];
  if (o.initOut) {
    fs.writeFileSync(o.initOut, encodeStaticTable(quantize({ ...float, vectors: float.vectors.slice() }, vocabWords, { trainedOn: 'python site-packages', files, documents, excluded: TRAINING_EXCLUDES })));
    log(`wrote ${o.initOut} (before the contrastive stage)`);
  }
  if (o.epochs > 0) {
    const modules = o.nodeModules ?? path.resolve(repoRoot(), 'node_modules');
    const js = fs.existsSync(modules) ? [...jsDocPairs(modules, TRAINING_EXCLUDES), ...(o.declarations ? declarationPairs(modules, TRAINING_EXCLUDES) : [])] : [];
    const pairs = [...s1.pairs, ...js, ...(o.comments ? pythonComments(root, o.decontaminate !== false) : [])];
    for (const p of pairs) pairCounts[p.source] = (pairCounts[p.source] ?? 0) + 1;
    log(`pairs: ${JSON.stringify(pairCounts)}`);
    lap('pairs');
    if (o.pairsOut) {
      writePairs(o.pairsOut, pairs);
      log(`wrote ${pairs.length} pairs to ${o.pairsOut}`);
      return { out: o.pairsOut, bytes: fs.statSync(o.pairsOut).size, files, documents, words, dims: float.dims, pairs: pairCounts, loss, seconds };
    }
    // `runs` trainings from the same start with seeds seed, seed+1, ... are averaged (a "model
    // soup"), then interpolated back towards the start by `interpolate`.
    const start = float.vectors.slice();
    const sum = new Float64Array(start.length);
    const qsum = o.asymmetric ? new Float64Array(start.length) : null;
    for (let k = 0; k < o.runs; k++) {
      const t: Table = { ...float, vectors: start.slice(), query: o.asymmetric ? start.slice() : undefined };
      if (o.runs > 1) log(`  training run ${k + 1}/${o.runs}`);
      const r = trainContrastive(t, pairs, { epochs: o.epochs, batch: o.batch, run: o.run, temperature: o.temperature, learningRate: o.learningRate, seed: (o.contrastiveSeed ?? o.seed) + k, residual: Boolean(o.residual), queryRate: o.queryRate, log });
      loss.push(...r.loss);
      pairCounts.used = r.pairs;
      for (let i = 0; i < sum.length; i++) sum[i] += t.vectors[i];
      if (qsum) for (let i = 0; i < qsum.length; i++) qsum[i] += t.query![i];
    }
    const a = o.interpolate;
    const mix = (acc: Float64Array) => Float32Array.from(acc, (x, i) => (a * x) / o.runs + (1 - a) * start[i]);
    float.vectors = mix(sum);
    if (qsum) float.query = mix(qsum);
    lap('contrastive');
  }
  const table = quantize(float, vocabWords, {
    trainedOn: o.epochs > 0 ? 'python site-packages (PPMI + SVD), then contrastive on docstring/name/JSDoc → code pairs' : 'python site-packages',
    files,
    documents,
    excluded: TRAINING_EXCLUDES,
    pairs: pairCounts,
    options: { vocab: o.vocab, contexts: o.contexts, minDf: o.minDf, maxPerRow: o.maxPerRow, sigmaPower: o.sigmaPower, powerIterations: o.powerIterations, sampleEvery: o.sampleEvery, seed: o.seed, decontaminate: o.decontaminate !== false, epochs: o.epochs, batch: o.batch, run: o.run, temperature: o.temperature, learningRate: o.learningRate, asymmetric: o.asymmetric, runs: o.runs, contrastiveSeed: o.contrastiveSeed, interpolate: o.interpolate, residual: o.residual, queryRate: o.queryRate, ...(o.comments ? { comments: true } : {}), ...(o.declarations ? { declarations: true } : {}) },
  });
  const bytes = encodeStaticTable(table);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, bytes);
  lap('write');
  log(`wrote ${out} (${(bytes.length / 1e6).toFixed(2)} MB, ${table.header.words} words × ${table.header.dims})`);
  return { out, bytes: bytes.length, files, documents, words: table.header.words, dims: table.header.dims, pairs: pairCounts, loss, seconds };
}


/** One JSON line per pair; the code side's texts in order, each clipped as the runtime clips what a model embeds. */
function writePairs(file: string, pairs: Pair[]): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (const p of pairs) {
      const code = p.code.map(([text]) => text.trim()).filter(Boolean).join('\n').slice(0, MAX_EMBED_CHARS);
      fs.writeSync(fd, JSON.stringify({ key: p.key, source: p.source, query: p.query, code }) + '\n');
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** comment → code pairs from `root`, less the comments the standard library also holds (decontamination as for docstrings). */
function pythonComments(root: string, decontaminate: boolean): Pair[] {
  const seen = decontaminate ? commentKeys(stdlibPath(), STDLIB_EXCLUDES) : null;
  return commentPairs(root, TRAINING_EXCLUDES, seen ? (k) => seen.has(k) : undefined);
}

/** Stage 1: the corpus of site-packages, its PPMI + SVD word vectors, and the Python pairs. */
async function corpusStage(o: typeof DEFAULTS & TrainOptions, root: string, log: (m: string) => void, lap: (name: string) => void): Promise<Stage1> {
  let skip: ((doc: string) => boolean) | undefined;
  if (o.decontaminate !== false) {
    const stdlib = stdlibPath();
    const keys = new Set<string>();
    await forEachEntity(stdlib, { exclude: STDLIB_EXCLUDES }, (e) => {
      const k = sentenceKey(firstSentence(e.docstring));
      if (k) keys.add(k);
    });
    skip = (doc) => keys.has(sentenceKey(firstSentence(doc)));
    log(`decontamination: ${keys.size} stdlib docstring openings excluded from training`);
    lap('decontaminate');
  }

  log(`reading ${root}`);
  const collector = pythonPairCollector(skip);
  const corpus = await buildCorpus({ root, exclude: TRAINING_EXCLUDES, sampleEvery: o.sampleEvery, skipDocstring: skip, onEntity: collector.visit });
  const documents = corpus.offsets.length - 1;
  log(`${corpus.files} files, ${documents} documents, ${corpus.words.length} distinct words`);
  lap('extract');

  const { vocab, remap } = chooseVocabulary(corpus, o.vocab, o.minDf);
  const docs = remapDocuments(corpus, remap);
  const matrix = ppmiMatrix(docs, vocab.words.length, { vocabSize: o.vocab, contexts: o.contexts, minDf: o.minDf, maxPerRow: o.maxPerRow, minCount: 2, alpha: 0.75 });
  log(`PPMI ${matrix.rows} × ${matrix.cols}, ${matrix.val.length} entries`);
  lap('ppmi');

  const svd = randomizedSvd(matrix, o.dims, { powerIterations: o.powerIterations, seed: o.seed });
  lap('svd');

  const words = vocab.words.length;
  return { words: vocab.words, dims: svd.rank, vectors: initialRows(svd.u, svd.sigma, words, svd.rank, o.sigmaPower), idf: idfOf(vocab.df, vocab.documents), files: corpus.files, documents, pairs: collector.pairs };
}

/** Rows U·Σ^p, normalized: the starting word vectors. */
function initialRows(u: Float64Array, sigma: Float64Array, n: number, dims: number, power: number): Float32Array {
  const out = new Float32Array(n * dims);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += (u[i * dims + d] * Math.pow(sigma[d], power)) ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) out[i * dims + d] = (u[i * dims + d] * Math.pow(sigma[d], power)) / norm;
  }
  return out;
}

function idfOf(df: Int32Array, documents: number): Float32Array {
  return Float32Array.from(df, (x) => Math.log((documents + 1) / (x + 1)) + 1);
}

/** int8 with one scale per row; the rows keep their trained lengths (a word's weight in a mean). */
function quantize(t: Table, words: string[], provenance: Record<string, unknown>): StaticTable {
  const code = quantizeRows(t.vectors, words.length, t.dims);
  const query = t.query ? quantizeRows(t.query, words.length, t.dims) : undefined;
  return { header: { dims: t.dims, words: words.length, ...(query ? { query: true } : {}), ...provenance }, vocab: words, idf: t.idf, scale: code.scale, vectors: code.vectors, ...(query ? { query } : {}) };
}

function quantizeRows(rows: Float32Array, n: number, dims: number): { scale: Float32Array; vectors: Int8Array } {
  const vectors = new Int8Array(n * dims);
  const scale = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(rows[i * dims + d]));
    const s = max > 0 ? max / 127 : 1;
    for (let d = 0; d < dims; d++) vectors[i * dims + d] = Math.round(rows[i * dims + d] / s);
    scale[i] = s;
  }
  return { scale, vectors };
}

function repoRoot(): string {
  const inBuild = __dirname.split(path.sep).includes('dist');
  return path.resolve(__dirname, inBuild ? '../../..' : '../..');
}

/** server/assets/static-embeddings.bin, from the build (dist/server/eval) or the sources (server/eval). */
function defaultOut(): string {
  const inBuild = __dirname.split(path.sep).includes('dist');
  return path.resolve(__dirname, inBuild ? '../../../server/assets' : '../assets', 'static-embeddings.bin');
}

function parseArgs(argv: string[]): TrainOptions {
  const o: Record<string, string | number | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)$/.exec(argv[i]);
    if (!m) throw new Error(`unexpected argument ${argv[i]}`);
    const key = m[1].replace(/-([a-z])/g, (_x, c: string) => c.toUpperCase());
    if (key === 'noDecontaminate') {
      o.decontaminate = false;
      continue;
    }
    const v = argv[++i];
    if (v === undefined) throw new Error(`--${m[1]} needs a value`);
    o[key] = key === 'root' || key === 'out' || key === 'nodeModules' || key === 'initOut' || key === 'cache' || key === 'pairsOut' ? v : Number(v);
    if (typeof o[key] === 'number' && !Number.isFinite(o[key])) throw new Error(`--${m[1]} needs a number, got ${v}`);
  }
  return o as TrainOptions;
}

if (require.main === module) {
  trainStatic(parseArgs(process.argv.slice(2))).then(
    (r) => console.log(JSON.stringify(r.seconds)),
    (e: Error) => {
      console.error(`train-static: ${e.message}`);
      process.exit(1);
    },
  );
}
