// Semantic search streams: embed the query with the same embedder that embedded the entities,
// then take the nearest vectors of that space. A stream answers with what is stored now — vectors
// fill in in the background (DESIGN invariant 5) — and never makes a query wait on a busy or
// broken model for long: past its time budget it answers nothing and lexical search carries on.
import type { Embedder } from '../embed/embedder';
import { norm } from '../store/q8';
import type { VectorStore } from '../store/vectors';
import { proseOf } from './query';
import type { SearchStream, StreamHit } from './types';

export interface VectorStreamOptions {
  /** Force float (false) or binary (true) search; default: binary when the space has bits. */
  binary?: boolean;
  /** Longest wait for the query's embedding, in ms. */
  budgetMs?: number;
  /** The entities whose names hold a word, best first (the lexical index): what stands in for a word the embedder cannot read. */
  holders?: (word: string, k: number) => number[];
}

/** Words the embedder cannot read that a query's vector takes from their holders, and how many holders each. */
const MAX_UNREAD = 4;
const HOLDERS = 20;

export class VectorStream implements SearchStream {
  constructor(
    readonly name: string,
    private readonly embedder: Embedder,
    private readonly vectors: VectorStore,
    private readonly space: string,
    private readonly opts: VectorStreamOptions = {},
  ) {}

  async search(query: string, k: number): Promise<StreamHit[]> {
    if (typeof query !== 'string' || !query.trim() || !(k > 0)) return [];
    try {
      const prose = proseOf(query);
      const v = await withBudget(this.embedder.embed([prose], 'query'), this.opts.budgetMs ?? 2000);
      const q = v?.[0] && this.withUnread(v[0], prose);
      if (!q || !q.some((x) => x !== 0)) return []; // nothing the embedder knows: no direction
      return this.vectors.knn(this.space, q, k, { binary: this.opts.binary }).map((h) => ({ eid: h.eid, score: 1 - h.distance }));
    } catch {
      return [];
    }
  }

  /**
   * The query's vector with each word the embedder cannot read (a project's own: `evolute`,
   * `diophantine`) standing for the mean vector of the entities whose names hold it, weighed by
   * the embedder (`unread`). Without it such a query is seen without its most telling word.
   * Names only: an English word the table lacks ("apostrophe", "night") is held by docstrings
   * all over a workspace, and their mean is noise (stdlib bug reports 0.655 with names only,
   * 0.646 with every column).
   */
  private withUnread(q: Float32Array, prose: string): Float32Array {
    const words = this.opts.holders && this.embedder.unread?.(prose);
    if (!words || !words.unread.length) return q;
    const out = Float32Array.from(q, (x) => x * words.readWeight);
    for (const word of words.unread.slice(0, MAX_UNREAD)) {
      const vectors = this.vectors.vectorsOf(this.space, this.opts.holders!(word, HOLDERS));
      if (!vectors.length) continue;
      // The holders' mean direction: their sum, scaled to the word's weight.
      const sum = new Float32Array(out.length);
      for (const v of vectors) for (let i = 0; i < sum.length; i++) sum[i] += v[i];
      const n = norm(sum);
      if (n > 0) for (let i = 0; i < sum.length; i++) out[i] += (words.unreadWeight * sum[i]) / n;
    }
    return out;
  }
}

function withBudget<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
