// Trains the static code-embedding table shipped as server/assets/static-embeddings.bin: word
// vectors from the co-occurrence of identifier sub-words and docstring words inside the
// functions of this machine's Python site-packages (real third-party code), reduced by SVD of
// the PPMI matrix. Reproducible: same site-packages and options → same file.
//
//   npm run train-static -- [--root DIR] [--out FILE] [--dims 128] [--vocab 30000] ...
//
// The standard library is the retrieval eval set, so it is never trained on. Site-packages
// also holds copies of stdlib code (vendored backports, setuptools' distutils, ...): every
// function whose docstring's first sentence also opens a stdlib docstring is left out, so that
// no eval query was seen next to its answer during training.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { encodeStaticTable, type StaticTable } from '../src/engine/embed/static-asset';
import { buildCorpus, forEachEntity } from './static/corpus';
import { chooseVocabulary, ppmiMatrix, remapDocuments } from './static/ppmi';
import { randomizedSvd } from './static/svd';
import { firstSentence, sentenceKey } from './docstrings';
import { sitePackagesPath, stdlibPath, STDLIB_EXCLUDES } from './python-paths';

export interface TrainOptions {
  root?: string;
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
  log?: (m: string) => void;
}

export interface TrainResult {
  out: string;
  bytes: number;
  files: number;
  documents: number;
  words: number;
  dims: number;
  seconds: Record<string, number>;
}

const DEFAULTS = { dims: 256, vocab: 30000, contexts: 6000, minDf: 5, maxPerRow: 400, sigmaPower: 0, powerIterations: 2, sampleEvery: 1, seed: 1 };

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
  const corpus = await buildCorpus({ root, sampleEvery: o.sampleEvery, skipDocstring: skip });
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

  const table = quantize(svd.u, svd.sigma, svd.rank, o.sigmaPower, vocab.words, vocab.df, vocab.documents, {
    trainedOn: 'python site-packages',
    files: corpus.files,
    documents,
    options: { vocab: o.vocab, contexts: o.contexts, minDf: o.minDf, maxPerRow: o.maxPerRow, sigmaPower: o.sigmaPower, powerIterations: o.powerIterations, sampleEvery: o.sampleEvery, seed: o.seed, decontaminate: o.decontaminate !== false },
  });
  const bytes = encodeStaticTable(table);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, bytes);
  lap('write');
  log(`wrote ${out} (${(bytes.length / 1e6).toFixed(2)} MB, ${table.header.words} words × ${table.header.dims})`);
  return { out, bytes: bytes.length, files: corpus.files, documents, words: table.header.words, dims: table.header.dims, seconds };
}

/** Rows U·Σ^p, normalized, then int8 with one scale per row; IDF from document frequency. */
function quantize(u: Float64Array, sigma: Float64Array, dims: number, power: number, words: string[], df: Int32Array, documents: number, provenance: Record<string, unknown>): StaticTable {
  const n = words.length;
  const vectors = new Int8Array(n * dims);
  const scale = new Float32Array(n);
  const idf = new Float32Array(n);
  const row = new Float64Array(dims);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      row[d] = u[i * dims + d] * Math.pow(sigma[d], power);
      norm += row[d] * row[d];
    }
    norm = Math.sqrt(norm) || 1;
    let max = 0;
    for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(row[d] / norm));
    const s = max > 0 ? max / 127 : 1;
    for (let d = 0; d < dims; d++) vectors[i * dims + d] = Math.round(row[d] / norm / s);
    scale[i] = s;
    idf[i] = Math.log((documents + 1) / (df[i] + 1)) + 1;
  }
  return { header: { dims, words: n, ...provenance }, vocab: words, idf, scale, vectors };
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
    o[key] = key === 'root' || key === 'out' ? v : Number(v);
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
