// The file format of the static code-embedding table (server/assets/static-embeddings.bin):
// one binary file, written by server/eval/train-static.ts and read at start-up.
//
//   "NSCCNSE1"                     8 bytes magic
//   u32 LE n, n bytes              JSON header: {dims, words, digest, ...provenance}
//   u32 LE n, n bytes              vocabulary, UTF-8, one word per line, row order
//   f32 LE × words                 inverse document frequency of each word
//   f32 LE × words                 int8 scale of each row (value = int8 · scale)
//   i8 × words·dims                word vectors, row after row
//   when the header has `query: true` (an asymmetric table: one side for queries, one for code):
//   f32 LE × words                 int8 scale of each query-side row
//   i8 × words·dims                query-side word vectors (the rows above are the code side)
//
// int8 rows with one scale each keep the file at about a quarter of float32 for a loss of
// precision far below what averaging word vectors cares about.
//
// `digest` (written by `encodeStaticTable`) is the SHA-256 of the rows, scales and IDF: the
// embedder's id, which decides whether stored vectors are current. Hashing the 3.4 MB at every
// start was ~8 ms of each `nsccn search` (node:crypto's load and the hash); a table without
// one (an older file) is hashed when read.
import * as fs from 'node:fs';
import { nodeCrypto } from '../digest';
import * as os from 'node:os';
import * as path from 'node:path';

const MAGIC = 'NSCCNSE1';
const LITTLE_ENDIAN = os.endianness() === 'LE';

export interface StaticTableHeader {
  dims: number;
  words: number;
  /** `tableDigest` of the arrays, hex; absent from tables written before it was. */
  digest?: string;
  [provenance: string]: unknown;
}

export interface StaticTable {
  header: StaticTableHeader;
  vocab: string[];
  idf: Float32Array;
  scale: Float32Array;
  /** words × dims, row-major: the code side (and the query side too when `query` is absent). */
  vectors: Int8Array;
  /** The query side of an asymmetric table: prose is embedded with these rows, code with `vectors`. */
  query?: { scale: Float32Array; vectors: Int8Array };
}

export function encodeStaticTable(t: StaticTable): Buffer {
  const { dims, words } = t.header;
  if (t.vocab.length !== words || t.idf.length !== words || t.scale.length !== words || t.vectors.length !== words * dims) {
    throw new Error('static table: header, vocabulary and arrays disagree in size');
  }
  if (Boolean(t.header.query) !== Boolean(t.query) || (t.query && (t.query.scale.length !== words || t.query.vectors.length !== words * dims))) {
    throw new Error('static table: the query side disagrees with the header');
  }
  if (t.vocab.some((w) => w.includes('\n'))) throw new Error('static table: a word contains a newline');
  const header = Buffer.from(JSON.stringify({ ...t.header, digest: tableDigest(t) }), 'utf8');
  const vocab = Buffer.from(t.vocab.join('\n'), 'utf8');
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const f32 = (a: Float32Array) => {
    const b = Buffer.alloc(a.length * 4);
    a.forEach((x, i) => b.writeFloatLE(x, i * 4));
    return b;
  };
  return Buffer.concat([
    Buffer.from(MAGIC, 'latin1'),
    u32(header.length),
    header,
    u32(vocab.length),
    vocab,
    f32(t.idf),
    f32(t.scale),
    Buffer.from(t.vectors.buffer, t.vectors.byteOffset, t.vectors.byteLength),
    ...(t.query ? [f32(t.query.scale), Buffer.from(t.query.vectors.buffer, t.query.vectors.byteOffset, t.query.vectors.byteLength)] : []),
  ]);
}

export function decodeStaticTable(buf: Buffer): StaticTable {
  let at = 0;
  const need = (n: number, what: string) => {
    if (at + n > buf.length) throw new Error(`static table is truncated (reading ${what})`);
  };
  need(8, 'magic');
  if (buf.toString('latin1', 0, 8) !== MAGIC) throw new Error('not a static embedding table (bad magic)');
  at = 8;
  const block = (what: string): Buffer => {
    need(4, what);
    const n = buf.readUInt32LE(at);
    at += 4;
    need(n, what);
    const out = buf.subarray(at, at + n);
    at += n;
    return out;
  };
  const header = JSON.parse(block('header').toString('utf8')) as StaticTableHeader;
  const { dims, words } = header;
  if (!Number.isInteger(dims) || dims <= 0 || !Number.isInteger(words) || words <= 0) throw new Error('static table header is invalid');
  if (header.digest !== undefined && !/^[0-9a-f]{64}$/.test(String(header.digest))) throw new Error('static table header has an invalid digest');
  const vocab = block('vocabulary').toString('utf8').split('\n');
  if (vocab.length !== words) throw new Error(`static table vocabulary has ${vocab.length} words, header says ${words}`);
  const f32 = (n: number, what: string) => {
    need(n * 4, what);
    let a: Float32Array;
    // The file is little-endian, as is nearly every machine: a copy of the bytes (aligned) is
    // the array. Read value by value, the two arrays took most of a search's start-up (~10 ms).
    if (LITTLE_ENDIAN) a = new Float32Array(buf.buffer.slice(buf.byteOffset + at, buf.byteOffset + at + n * 4));
    else {
      a = new Float32Array(n);
      for (let i = 0; i < n; i++) a[i] = buf.readFloatLE(at + i * 4);
    }
    at += n * 4;
    return a;
  };
  const idf = f32(words, 'idf');
  const scale = f32(words, 'scales');
  need(words * dims, 'vectors');
  // Views on the file's bytes, not copies (int8 needs no alignment): the buffer is the table's.
  const vectors = new Int8Array(buf.buffer, buf.byteOffset + at, words * dims);
  at += words * dims;
  let query: StaticTable['query'];
  if (header.query) {
    const qScale = f32(words, 'query scales');
    need(words * dims, 'query vectors');
    const qVectors = new Int8Array(buf.buffer, buf.byteOffset + at, words * dims);
    at += words * dims;
    query = { scale: qScale, vectors: qVectors };
  }
  if (at !== buf.length) throw new Error(`static table has ${buf.length - at} unexpected trailing bytes`);
  return { header, vocab, idf, scale, vectors, ...(query ? { query } : {}) };
}

/** SHA-256 (hex) of what the vectors are made of: code-side vectors, scales and IDF, then the query side's. */
export function tableDigest(t: Omit<StaticTable, 'header' | 'vocab'>): string {
  const h = nodeCrypto().createHash('sha256');
  const bytes = (a: ArrayBufferView) => h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  bytes(t.vectors);
  bytes(t.scale);
  bytes(t.idf);
  if (t.query) {
    bytes(t.query.vectors);
    bytes(t.query.scale);
  }
  return h.digest('hex');
}

/**
 * Where the shipped table is: `server/assets/` of the package, found from this file both in
 * the TypeScript sources (server/src/engine/embed) and in the build (dist/server/src/engine/embed).
 */
export function defaultStaticTablePath(): string | null {
  const name = 'static-embeddings.bin';
  const candidates = [
    path.resolve(__dirname, '../../../assets', name),
    path.resolve(__dirname, '../../../../../server/assets', name),
  ];
  return candidates.find((p) => fs.existsSync(p)) ?? null;
}
