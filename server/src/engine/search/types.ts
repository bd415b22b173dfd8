// What every search stream offers the fusion step: a ranked list of entities with the stream's
// own score. Streams know nothing of each other; fusion (./fuse.ts) combines their ranks, and
// the reranker (./rerank.ts) also reads the scores that mean something across queries (the
// vector streams' cosine similarity).

export interface StreamHit {
  eid: number;
  /** Higher is better; comparable within one stream's answer (cosine for vector streams). */
  score: number;
}

export interface SearchStream {
  /** Short name shown in status and in per-stream ranks: `lexical`, `static`, `model:<id>`. */
  readonly name: string;
  /** Best first, at most `k`. Never throws for a query it cannot serve: returns []. */
  search(query: string, k: number): Promise<StreamHit[]>;
}
