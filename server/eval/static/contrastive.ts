// Contrastive training of the static table: word vectors such that the IDF-weighted mean of a
// text's words lands near the mean of its code's words, and away from the other code in the
// batch (InfoNCE with in-batch negatives, both directions, as in sentence-transformers'
// MultipleNegativesRankingLoss). Batches are made of runs of pairs from the same file, so many
// negatives are hard ones: same module, same vocabulary, different function. Plain TypeScript,
// sequential and seeded: the same pairs and options give the same table, bit for bit.
import type { WeightedText } from '../../src/engine/embed/static-embedder';
import { staticWords, wordRows } from '../../src/engine/embed/terms';
import { mulberry32 } from '../random';
import type { Pair } from './pairs';

export interface ContrastiveOptions {
  epochs: number;
  batch: number;
  /** Pairs per same-file run inside a batch (hard negatives). */
  run: number;
  temperature: number;
  learningRate: number;
  seed: number;
  /**
   * With a query side: train it as the code side plus a residual (query rows = code rows + own
   * rows, the residual starting at zero), so that words no training query used still move with
   * the code side. On return `t.query` holds the full query rows.
   */
  residual?: boolean;
  /** Learning rate of the query side relative to `learningRate`. */
  queryRate?: number;
  log?: (m: string) => void;
}

/** A text as the table sees it: word rows and their weights (idf · √count · part weight). */
interface Bag {
  ids: Int32Array;
  w: Float32Array;
}

export interface Table {
  words: number;
  dims: number;
  /** words × dims, float, trained in place (the code side, and the query side when `query` is absent). */
  vectors: Float32Array;
  /** words × dims: the query-side table of an asymmetric model (prose words), trained jointly. */
  query?: Float32Array;
  idf: Float32Array;
  index: Map<string, number>;
}

function bag(t: Table, parts: WeightedText[], cache: Map<string, number[]>): Bag | null {
  const counts = new Map<number, number>();
  for (const [text, weight] of parts) {
    if (!text || !(weight > 0)) continue;
    for (const w of staticWords(text)) for (const i of wordRows(w, t.index, cache)) counts.set(i, (counts.get(i) ?? 0) + weight);
  }
  if (!counts.size) return null;
  const ids = Int32Array.from(counts.keys());
  const w = Float32Array.from(ids, (i) => t.idf[i] * Math.sqrt(counts.get(i)!));
  return { ids, w };
}

/** Sum of weighted rows into `out` (dims), returns its norm. */
function embed(d: number, vectors: Float32Array, b: Bag, out: Float64Array, extra?: Float32Array): number {
  out.fill(0);
  for (let j = 0; j < b.ids.length; j++) {
    const row = b.ids[j] * d;
    const w = b.w[j];
    for (let k = 0; k < d; k++) out[k] += w * vectors[row + k];
    if (extra) for (let k = 0; k < d; k++) out[k] += w * extra[row + k];
  }
  let n = 0;
  for (let k = 0; k < d; k++) n += out[k] * out[k];
  return Math.sqrt(n) || 1;
}

export function trainContrastive(t: Table, pairs: Pair[], o: ContrastiveOptions): { loss: number[]; pairs: number } {
  const log = o.log ?? (() => {});
  const usable: Array<{ key: string; q: Bag; c: Bag }> = [];
  // Sorted by where the code is, then by the texts: pairs arrive in the order parser workers
  // finish, and a key can repeat (a function defined twice in one module).
  const sortKey = (p: Pair) => `${p.key}\0${p.query}\0${JSON.stringify(p.code)}`;
  const sorted = pairs.map((p) => ({ p, k: sortKey(p) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const glued = new Map<string, number[]>();
  for (const { p } of sorted) {
    const q = bag(t, [[p.query, 1]], glued);
    const c = bag(t, p.code, glued);
    if (q && c) usable.push({ key: p.key, q, c });
  }
  // Runs of consecutive pairs (same file, then neighbouring files) are the shuffling unit.
  const runs: number[][] = [];
  for (let i = 0; i < usable.length; i += o.run) runs.push([...Array(Math.min(o.run, usable.length - i)).keys()].map((k) => i + k));
  const rand = mulberry32(o.seed);
  const d = t.dims;
  const B = o.batch;
  const accum = new Float32Array(t.vectors.length).fill(1e-6); // Adagrad
  const residual = Boolean(t.query && o.residual);
  if (residual) t.query!.fill(0);
  const qv = t.query ?? t.vectors;
  const qAccum = t.query ? new Float32Array(t.query.length).fill(1e-6) : accum;
  const qRate = o.learningRate * (o.queryRate ?? 1);
  const q = Array.from({ length: B }, () => new Float64Array(d));
  const c = Array.from({ length: B }, () => new Float64Array(d));
  const qn = new Float64Array(B);
  const cn = new Float64Array(B);
  const dq = Array.from({ length: B }, () => new Float64Array(d));
  const dc = Array.from({ length: B }, () => new Float64Array(d));
  const s = new Float64Array(B * B);
  const losses: number[] = [];
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = runs.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [runs[i], runs[j]] = [runs[j], runs[i]];
    }
    const order = runs.flat();
    let total = 0;
    let batches = 0;
    for (let start = 0; start + B <= order.length; start += B) {
      const items = order.slice(start, start + B).map((i) => usable[i]);
      for (let i = 0; i < B; i++) {
        qn[i] = residual ? embed(d, t.vectors, items[i].q, q[i], qv) : embed(d, qv, items[i].q, q[i]);
        cn[i] = embed(d, t.vectors, items[i].c, c[i]);
        for (let k = 0; k < d; k++) {
          q[i][k] /= qn[i];
          c[i][k] /= cn[i];
        }
      }
      for (let i = 0; i < B; i++) {
        for (let j = 0; j < B; j++) {
          let dot = 0;
          for (let k = 0; k < d; k++) dot += q[i][k] * c[j][k];
          s[i * B + j] = dot / o.temperature;
        }
      }
      // Symmetric InfoNCE: rows (text → code) and columns (code → text); dS = softmax − I.
      const g = new Float64Array(B * B);
      let loss = 0;
      for (let pass = 0; pass < 2; pass++) {
        for (let i = 0; i < B; i++) {
          const at = (j: number) => (pass === 0 ? i * B + j : j * B + i);
          let max = -Infinity;
          for (let j = 0; j < B; j++) max = Math.max(max, s[at(j)]);
          let z = 0;
          for (let j = 0; j < B; j++) z += Math.exp(s[at(j)] - max);
          loss += -(s[at(i)] - max - Math.log(z));
          for (let j = 0; j < B; j++) g[at(j)] += (Math.exp(s[at(j)] - max) / z - (i === j ? 1 : 0)) / (2 * B * o.temperature);
        }
      }
      total += loss / (2 * B);
      batches++;
      for (let i = 0; i < B; i++) {
        dq[i].fill(0);
        dc[i].fill(0);
      }
      for (let i = 0; i < B; i++) {
        for (let j = 0; j < B; j++) {
          const gij = g[i * B + j];
          if (gij === 0) continue;
          for (let k = 0; k < d; k++) {
            dq[i][k] += gij * c[j][k];
            dc[j][k] += gij * q[i][k];
          }
        }
      }
      for (let i = 0; i < B; i++) {
        backprop(d, qv, items[i].q, q[i], qn[i], dq[i], qAccum, qRate);
        if (residual) backprop(d, t.vectors, items[i].q, q[i], qn[i], dq[i], accum, o.learningRate);
        backprop(d, t.vectors, items[i].c, c[i], cn[i], dc[i], accum, o.learningRate);
      }
    }
    losses.push(Math.round((total / Math.max(1, batches)) * 1e4) / 1e4);
    log(`  contrastive epoch ${epoch + 1}/${o.epochs}: loss ${losses[losses.length - 1]} over ${batches} batches of ${B}`);
  }
  if (residual) for (let i = 0; i < t.query!.length; i++) t.query![i] += t.vectors[i];
  return { loss: losses, pairs: usable.length };
}

/** Through the normalization (dU = (dE − E·(E·dE)) / |U|) to each word row, Adagrad step. */
function backprop(d: number, vectors: Float32Array, b: Bag, e: Float64Array, norm: number, de: Float64Array, accum: Float32Array, lr: number): void {
  let dot = 0;
  for (let k = 0; k < d; k++) dot += e[k] * de[k];
  for (let j = 0; j < b.ids.length; j++) {
    const row = b.ids[j] * d;
    const w = b.w[j] / norm;
    for (let k = 0; k < d; k++) {
      const grad = w * (de[k] - e[k] * dot);
      accum[row + k] += grad * grad;
      vectors[row + k] -= (lr * grad) / Math.sqrt(accum[row + k]);
    }
  }
}
