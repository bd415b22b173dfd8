// SQL of lexical search: BM25 over the FTS5 table, columns weighted so that a hit in a name
// outranks one in a docstring, which outranks one in a body.
import type { Db } from './db';

/** Column weights in table order: name, name_split, signature, docstring, path, body. */
const WEIGHTS = [10, 6, 3, 2, 1.5, 1];

export interface FtsHit {
  eid: number;
  score: number;
}

export class FtsIndex {
  private readonly stmt;

  constructor(db: Db) {
    this.stmt = db.prepare(
      `SELECT rowid AS eid, bm25(entities_fts, ${WEIGHTS.join(', ')}) AS score FROM entities_fts
       WHERE entities_fts MATCH ? ORDER BY score LIMIT ?`,
    );
  }

  /** `match` is an FTS5 query expression built by search/lexical.ts; a syntax error yields []. */
  search(match: string, k: number): FtsHit[] {
    try {
      return this.stmt.all(match, k) as FtsHit[];
    } catch {
      return [];
    }
  }
}
