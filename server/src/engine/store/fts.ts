// SQL of lexical search: BM25 over the FTS5 table, columns weighted so that a hit in a name
// outranks one in a docstring, which outranks one in a body.
import type { Db } from './db';

/** Column weights in table order: name, name_split, signature, docstring, path, body, literals. */
const WEIGHTS = [10, 6, 3, 2, 1.5, 1, 1];

export interface FtsHit {
  eid: number;
  score: number;
}

/** Every row an FTS5 query matches, with its BM25 score (higher is better), in rowid order. */
export interface ScoredRows {
  eids: Int32Array;
  scores: Float64Array;
}

export class FtsIndex {
  private readonly stmt;
  private readonly allStmt;
  private readonly rangeStmt;
  private readonly maxStmt;
  private dfStmt: { get(term: string): unknown } | null | undefined;
  private docsStmt: { get(): unknown } | undefined;
  private vocabPageStmt: { all(...args: unknown[]): unknown[] } | undefined;

  constructor(private readonly db: Db) {
    this.stmt = db.prepare(
      `SELECT rowid AS eid, bm25(entities_fts, ${WEIGHTS.join(', ')}) AS score FROM entities_fts
       WHERE entities_fts MATCH ? ORDER BY score, rowid LIMIT ?`,
    );
    const scored = `SELECT rowid, -bm25(entities_fts, ${WEIGHTS.join(', ')}) FROM entities_fts WHERE entities_fts MATCH ?`;
    this.allStmt = db.prepare(scored).raw();
    this.rangeStmt = db.prepare(`${scored} AND rowid BETWEEN ? AND ?`).raw();
    this.maxStmt = db.prepare('SELECT rowid FROM entities_fts ORDER BY rowid DESC LIMIT 1').raw();
  }

  /**
   * Every row `match` matches, scored, optionally only rowids `from`..`to` (FTS5 takes BM25's
   * document frequencies and lengths from the whole table either way: a range scores its rows
   * as the whole query would). null when FTS5 fails (a syntax error, a damaged index).
   */
  scoredRows(match: string, from?: number, to?: number): ScoredRows | null {
    let rows: Array<[number, number]>;
    try {
      rows = (from === undefined ? this.allStmt.all(match) : this.rangeStmt.all(match, from, to ?? from)) as Array<[number, number]>;
    } catch {
      return null;
    }
    const eids = new Int32Array(rows.length);
    const scores = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) [eids[i], scores[i]] = rows[i];
    return { eids, scores };
  }

  /** The largest rowid in the lexical index (0 when empty). */
  maxRowid(): number {
    return Number((this.maxStmt.get() as [number] | undefined)?.[0] ?? 0);
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
    if (!this.vocab()) return null;
    const row = this.dfStmt!.get(term) as { doc: number } | undefined;
    return row?.doc ?? 0;
  }

  private vocab(): boolean {
    if (this.dfStmt === undefined) {
      try {
        this.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.entities_fts_terms USING fts5vocab(main, 'entities_fts', 'row')`);
        this.dfStmt = this.db.prepare('SELECT doc FROM temp.entities_fts_terms WHERE term = ?');
      } catch {
        this.dfStmt = null;
      }
    }
    return this.dfStmt !== null;
  }

  /** Up to `limit` terms after `after` in term order, with how many entities hold each. */
  vocabulary(after: string, limit: number): Array<[string, number]> {
    if (!this.vocab()) return [];
    this.vocabPageStmt ??= this.db.prepare('SELECT term, doc FROM temp.entities_fts_terms WHERE term > ? ORDER BY term LIMIT ?').raw();
    return this.vocabPageStmt.all(after, limit) as Array<[string, number]>;
  }

  /** Entities in the lexical index (for inverse document frequencies). */
  documents(): number {
    this.docsStmt ??= this.db.prepare('SELECT count(*) AS n FROM entities');
    return (this.docsStmt.get() as { n: number }).n;
  }
}
