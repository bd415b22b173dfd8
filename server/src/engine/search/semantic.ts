// Semantic search streams: embed the query with the same embedder that embedded the entities,
// then take the nearest vectors of that space. A stream answers with what is stored now — vectors
// fill in in the background (DESIGN invariant 5) — and never makes a query wait on a busy or
// broken model for long: past its time budget it answers nothing and lexical search carries on.
import type { Embedder } from '../embed/embedder';
import type { VectorStore } from '../store/vectors';
import { proseOf } from './query';
import type { SearchStream, StreamHit } from './types';

export interface VectorStreamOptions {
  /** Force float (false) or binary (true) search; default: binary when the space has bits. */
  binary?: boolean;
  /** Longest wait for the query's embedding, in ms. */
  budgetMs?: number;
}

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
      const v = await withBudget(this.embedder.embed([proseOf(query)], 'query'), this.opts.budgetMs ?? 2000);
      const q = v?.[0];
      if (!q || !q.some((x) => x !== 0)) return []; // nothing the embedder knows: no direction
      return this.vectors.knn(this.space, q, k, { binary: this.opts.binary }).map((h) => ({ eid: h.eid, score: 1 - h.distance }));
    } catch {
      return [];
    }
  }
}

function withBudget<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
