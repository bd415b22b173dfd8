// What every search stream offers the fusion step: a ranked list of entity rowids (eids).
// Streams know nothing of each other; fusion (./fuse.ts) combines their ranks.

export interface SearchStream {
  /** Short name shown in status and in per-stream ranks: `lexical`, `static`, `model:<id>`. */
  readonly name: string;
  /** Entity eids, best first, at most `k`. Never throws for a query it cannot serve: returns []. */
  search(query: string, k: number): Promise<number[]>;
}
