// Positive pointwise mutual information between words that occur in the same function: how much
// more often than chance "socket" and `recv` share a function, or "encoding" and `codec`. The
// result is a sparse words × contexts matrix, input to the SVD that gives word vectors.
//
// Co-occurrence is counted per document (a function's distinct words), contexts are the most
// frequent words, and the context distribution is smoothed with exponent 0.75 (Levy, Goldberg
// and Dagan 2015), which keeps rare contexts from producing huge PMI values.
import type { Corpus } from './corpus';

export interface Vocabulary {
  words: string[];
  /** Number of training documents containing each word. */
  df: Int32Array;
  documents: number;
}

export interface SparseMatrix {
  rows: number;
  cols: number;
  rowStart: Int32Array;
  col: Int32Array;
  val: Float32Array;
}

export interface PpmiOptions {
  vocabSize: number;
  contexts: number;
  minDf: number;
  /** Keep at most this many strongest entries per row (denoises and bounds SVD cost). */
  maxPerRow: number;
  /** Minimum co-occurrence count for an entry to be trusted. */
  minCount: number;
  alpha: number;
}

/** Most frequent words (by document frequency) become the vocabulary, in that order. */
export function chooseVocabulary(c: Corpus, size: number, minDf: number): { vocab: Vocabulary; remap: Int32Array } {
  const df = new Int32Array(c.words.length);
  for (let i = 0; i < c.ids.length; i++) df[c.ids[i]]++;
  const order = [...df.keys()].filter((i) => df[i] >= minDf);
  order.sort((a, b) => df[b] - df[a] || (c.words[a] < c.words[b] ? -1 : 1));
  const chosen = order.slice(0, size);
  const remap = new Int32Array(c.words.length).fill(-1);
  chosen.forEach((old, i) => (remap[old] = i));
  return {
    vocab: { words: chosen.map((i) => c.words[i]), df: Int32Array.from(chosen.map((i) => df[i])), documents: c.offsets.length - 1 },
    remap,
  };
}

/** Documents in vocabulary ids (unknown words dropped), as CSR. */
export function remapDocuments(c: Corpus, remap: Int32Array): { offsets: Int32Array; ids: Int32Array } {
  const offsets = new Int32Array(c.offsets.length);
  const ids = new Int32Array(c.ids.length);
  let n = 0;
  for (let d = 0; d + 1 < c.offsets.length; d++) {
    for (let i = c.offsets[d]; i < c.offsets[d + 1]; i++) {
      const v = remap[c.ids[i]];
      if (v >= 0) ids[n++] = v;
    }
    offsets[d + 1] = n;
  }
  return { offsets, ids: ids.slice(0, n) };
}

export function ppmiMatrix(docs: { offsets: Int32Array; ids: Int32Array }, vocabSize: number, o: PpmiOptions): SparseMatrix {
  const C = Math.min(o.contexts, vocabSize); // vocabulary ids are frequency ranks: contexts = ids < C
  const nDocs = docs.offsets.length - 1;
  // Inverted index word → documents, and each document's count of context words.
  const postingsCount = new Int32Array(vocabSize + 1);
  const ctxInDoc = new Int32Array(nDocs);
  for (let d = 0; d < nDocs; d++) {
    for (let i = docs.offsets[d]; i < docs.offsets[d + 1]; i++) {
      postingsCount[docs.ids[i] + 1]++;
      if (docs.ids[i] < C) ctxInDoc[d]++;
    }
  }
  const postStart = new Int32Array(vocabSize + 1);
  for (let w = 0; w < vocabSize; w++) postStart[w + 1] = postStart[w] + postingsCount[w + 1];
  const postings = new Int32Array(postStart[vocabSize]);
  const fill = postStart.slice(0, vocabSize);
  for (let d = 0; d < nDocs; d++) for (let i = docs.offsets[d]; i < docs.offsets[d + 1]; i++) postings[fill[docs.ids[i]]++] = d;

  // Marginals: n(c) = Σ_{d ∋ c} (|d| − 1); n(w) = Σ_{d ∋ w} (|d ∩ C| − [w ∈ C]).
  const colSum = new Float64Array(C);
  const rowSum = new Float64Array(vocabSize);
  for (let w = 0; w < vocabSize; w++) {
    for (let p = postStart[w]; p < postStart[w + 1]; p++) {
      const d = postings[p];
      if (w < C) colSum[w] += docs.offsets[d + 1] - docs.offsets[d] - 1;
      rowSum[w] += ctxInDoc[d] - (w < C ? 1 : 0);
    }
  }
  let smoothTotal = 0;
  for (let c = 0; c < C; c++) smoothTotal += Math.pow(colSum[c], o.alpha);
  const logPc = new Float64Array(C);
  for (let c = 0; c < C; c++) logPc[c] = colSum[c] > 0 ? Math.log(Math.pow(colSum[c], o.alpha) / smoothTotal) : Infinity;

  const rowStart = new Int32Array(vocabSize + 1);
  const cols: number[] = [];
  const vals: number[] = [];
  const acc = new Float64Array(C);
  const touched: number[] = [];
  for (let w = 0; w < vocabSize; w++) {
    touched.length = 0;
    for (let p = postStart[w]; p < postStart[w + 1]; p++) {
      const d = postings[p];
      for (let i = docs.offsets[d]; i < docs.offsets[d + 1]; i++) {
        const c = docs.ids[i];
        if (c >= C || c === w) continue;
        if (acc[c] === 0) touched.push(c);
        acc[c]++;
      }
    }
    const entries: Array<[number, number]> = [];
    const logRow = Math.log(rowSum[w] || 1);
    for (const c of touched) {
      const n = acc[c];
      acc[c] = 0;
      if (n < o.minCount) continue;
      const pmi = Math.log(n) - logRow - logPc[c];
      if (pmi > 0) entries.push([c, pmi]);
    }
    entries.sort((a, b) => b[1] - a[1] || a[0] - b[0]); // ties by column: independent of document order
    const kept = entries.slice(0, o.maxPerRow).sort((a, b) => a[0] - b[0]);
    for (const [c, v] of kept) {
      cols.push(c);
      vals.push(v);
    }
    rowStart[w + 1] = cols.length;
  }
  return { rows: vocabSize, cols: C, rowStart, col: Int32Array.from(cols), val: Float32Array.from(vals) };
}
