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
  private dfStmt: { get(term: string): unknown } | null | undefined;
  private docsStmt: { get(): unknown } | undefined;

  constructor(private readonly db: Db) {
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

  /**
   * How many entities hold a (lower-case) term, from FTS5's own vocabulary (a temp fts5vocab
   * table: nothing is written to the index). null when the vocabulary cannot be read.
   */
  documentFrequency(term: string): number | null {
    if (this.dfStmt === undefined) {
      try {
        this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.entities_fts_terms USING fts5vocab(main, 'entities_fts', 'row')`);
        this.dfStmt = this.db.prepare('SELECT doc FROM temp.entities_fts_terms WHERE term = ?');
      } catch {
        this.dfStmt = null;
      }
    }
    if (!this.dfStmt) return null;
    const row = this.dfStmt.get(term) as { doc: number } | undefined;
    return row?.doc ?? 0;
  }

  /** Entities in the lexical index (for inverse document frequencies). */
  documents(): number {
    this.docsStmt ??= this.db.prepare('SELECT count(*) AS n FROM entities');
    return (this.docsStmt.get() as { n: number }).n;
  }
}
