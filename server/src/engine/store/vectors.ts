// All SQL for entity vectors (DESIGN invariant 2). One *space* per embedder (`static`, `model`):
// a sqlite-vec `vec0` float table with cosine distance (rowid = entities.eid), optionally a
// `bit[]` table of the same vectors quantized to one bit per dimension for large indexes (KNN
// over Hamming distance, then the best candidates re-scored with the float vectors), and a
// bookkeeping row per vector saying which content it was computed from, so that only entities
// whose content changed are embedded again. Tables are our own (IF NOT EXISTS): schema.ts and
// its version are untouched, and the index stays derived data.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db';
import type { EntityDbRow } from './read-rows';

/** Entity kinds that get a vector: code entities with a body or a docstring. */
const EMBEDDED_KINDS = `('module', 'class', 'function', 'method')`;
/** sqlite-vec refuses larger k in one KNN query. */
export const MAX_KNN = 4096;

/** An entity row with what its vector is made from (`body` words) and of (`hash`: the content it was made for). */
export type EmbeddableEntity = Pick<EntityDbRow, 'eid' | 'id' | 'kind' | 'name' | 'qname' | 'signature' | 'docstring'> & {
  path: string;
  body: string;
  hash: string;
};

export interface VectorHit {
  eid: number;
  /** Cosine distance, 0 (same direction) to 2. */
  distance: number;
}

export interface VectorItem {
  eid: number;
  id: string;
  hash: string;
  /** Null when the embedder found nothing to go on: recorded as done, but never a neighbour. */
  vector: Float32Array | null;
}

const SPACE_NAME = /^[a-z][a-z0-9_]{0,30}$/;

function tables(space: string): { f: string; b: string } {
  // Space names become table names: only a fixed, safe alphabet is accepted.
  if (!SPACE_NAME.test(space)) throw new Error(`invalid vector space name ${JSON.stringify(space)}`);
  return { f: `vec_${space}_f`, b: `vec_${space}_b` };
}

interface SpaceStatements {
  delF: Statement;
  insF: Statement;
  knnF: Statement;
  distance: Statement;
  delB: Statement | null;
  insB: Statement | null;
  knnB: Statement | null;
}

export class VectorStore {
  private readonly s;
  /** Per-space statements; invalidated whenever a space's tables are created or dropped. */
  private readonly prepared = new Map<string, SpaceStatements>();

  constructor(private readonly db: Db) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS vec_spaces (space TEXT PRIMARY KEY, model TEXT NOT NULL, dims INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS vec_items (
        space TEXT NOT NULL, eid INTEGER NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL,
        PRIMARY KEY (space, eid)
      ) WITHOUT ROWID;
    `);
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      space: p('SELECT model, dims FROM vec_spaces WHERE space = ?'),
      setSpace: p('INSERT OR REPLACE INTO vec_spaces(space, model, dims) VALUES (?, ?, ?)'),
      deleteSpace: p('DELETE FROM vec_spaces WHERE space = ?'),
      deleteItems: p('DELETE FROM vec_items WHERE space = ?'),
      pendingEids: p(`SELECT e.eid FROM entities e
        LEFT JOIN vec_items s ON s.space = ? AND s.eid = e.eid
        WHERE e.fid IS NOT NULL AND e.kind IN ${EMBEDDED_KINDS}
          AND (s.eid IS NULL OR s.hash != e.content_hash OR s.id != e.id)
        ORDER BY e.eid`),
      entity: p(`SELECT e.eid, e.id, e.kind, e.name, e.qname, f.path, e.signature, e.docstring, e.body, e.content_hash AS hash
        FROM entities e JOIN files f ON f.fid = e.fid WHERE e.eid = ? AND e.kind IN ${EMBEDDED_KINDS}`),
      total: p(`SELECT count(*) AS n FROM entities WHERE fid IS NOT NULL AND kind IN ${EMBEDDED_KINDS}`),
      done: p(`SELECT count(*) AS n FROM vec_items s JOIN entities e ON e.eid = s.eid
        WHERE s.space = ? AND s.hash = e.content_hash AND s.id = e.id`),
      orphans: p(`SELECT s.eid FROM vec_items s LEFT JOIN entities e ON e.eid = s.eid
        WHERE s.space = ? AND (e.eid IS NULL OR e.fid IS NULL OR e.id != s.id)`),
      deleteItem: p('DELETE FROM vec_items WHERE space = ? AND eid = ?'),
      putItem: p('INSERT OR REPLACE INTO vec_items(space, eid, id, hash) VALUES (?, ?, ?, ?)'),
      tableExists: p("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?"),
    };
  }

  /**
   * Makes sure the tables of a space exist for this model and width. A different model or
   * width means every stored vector is meaningless: they are all dropped (re-embedding follows).
   * Returns true when the space was (re)created empty.
   */
  open(space: string, model: string, dims: number): boolean {
    if (!Number.isInteger(dims) || dims <= 0) throw new Error(`vector width must be a positive integer, got ${dims}`);
    const t = tables(space);
    const cur = this.s.space.get(space) as { model: string; dims: number } | undefined;
    const fresh = !cur || cur.model !== model || cur.dims !== dims || !this.exists(t.f);
    if (fresh) {
      this.prepared.delete(space);
      this.db.transaction(() => {
        this.dropTables(space);
        this.db.exec(`CREATE VIRTUAL TABLE ${t.f} USING vec0(embedding float[${dims}] distance_metric=cosine)`);
        this.s.setSpace.run(space, model, dims);
      })();
    }
    return fresh;
  }

  /** Removes a space entirely (its model was switched off). */
  drop(space: string): void {
    this.prepared.delete(space);
    this.db.transaction(() => this.dropTables(space))();
  }

  private dropTables(space: string): void {
    const t = tables(space);
    this.db.exec(`DROP TABLE IF EXISTS ${t.f}; DROP TABLE IF EXISTS ${t.b};`);
    this.s.deleteItems.run(space);
    this.s.deleteSpace.run(space);
  }

  private exists(table: string): boolean {
    return this.s.tableExists.get(table) !== undefined;
  }

  private dims(space: string): number {
    const cur = this.s.space.get(space) as { dims: number } | undefined;
    if (!cur) throw new Error(`vector space ${space} is not open`);
    return cur.dims;
  }

  private statements(space: string): SpaceStatements {
    let st = this.prepared.get(space);
    if (st) return st;
    const t = tables(space);
    const binary = this.hasBinary(space);
    const p = (sql: string) => this.db.prepare(sql);
    st = {
      delF: p(`DELETE FROM ${t.f} WHERE rowid = ?`),
      insF: p(`INSERT INTO ${t.f}(rowid, embedding) VALUES (?, ?)`),
      knnF: p(`SELECT rowid AS eid, distance FROM ${t.f} WHERE embedding MATCH ? AND k = ?`),
      distance: p(`SELECT vec_distance_cosine(embedding, ?) AS distance FROM ${t.f} WHERE rowid = ?`),
      delB: binary ? p(`DELETE FROM ${t.b} WHERE rowid = ?`) : null,
      insB: binary ? p(`INSERT INTO ${t.b}(rowid, embedding) VALUES (?, vec_quantize_binary(?))`) : null,
      knnB: binary ? p(`SELECT rowid AS eid FROM ${t.b} WHERE embedding MATCH vec_quantize_binary(?) AND k = ?`) : null,
    };
    this.prepared.set(space, st);
    return st;
  }

  /** Binary quantization needs a width that is a multiple of 8 (whole bytes). */
  static binaryPossible(dims: number): boolean {
    return dims % 8 === 0;
  }

  hasBinary(space: string): boolean {
    return this.exists(tables(space).b);
  }

  /** Switches the bit table on (filled from the float vectors) or off. */
  setBinary(space: string, on: boolean): void {
    const t = tables(space);
    if (on === this.hasBinary(space)) return;
    this.prepared.delete(space);
    if (!on) {
      this.db.exec(`DROP TABLE IF EXISTS ${t.b}`);
      return;
    }
    const dims = this.dims(space);
    if (!VectorStore.binaryPossible(dims)) throw new Error(`binary vectors need a width divisible by 8, got ${dims}`);
    this.db.transaction(() => {
      this.db.exec(`CREATE VIRTUAL TABLE ${t.b} USING vec0(embedding bit[${dims}])`);
      this.db.exec(`INSERT INTO ${t.b}(rowid, embedding) SELECT rowid, vec_quantize_binary(embedding) FROM ${t.f}`);
    })();
  }

  /** Eids of entities without an up-to-date vector in this space, oldest first. */
  pendingEids(space: string): number[] {
    return (this.s.pendingEids.all(space) as Array<{ eid: number }>).map((r) => r.eid);
  }

  /** What the embedders need to know about an entity; undefined when it is gone or not embeddable. */
  entity(eid: number): EmbeddableEntity | undefined {
    return this.s.entity.get(eid) as EmbeddableEntity | undefined;
  }

  counts(space: string): { done: number; total: number } {
    const total = (this.s.total.get() as { n: number }).n;
    const done = (this.s.done.get(space) as { n: number }).n;
    return { done, total };
  }

  /** Entities that can have a vector, whatever the space (for the binary threshold). */
  embeddableCount(): number {
    return (this.s.total.get() as { n: number }).n;
  }

  /** Stores vectors (replacing older ones of the same entities) in one transaction. */
  put(space: string, items: VectorItem[]): void {
    if (!items.length) return;
    const dims = this.dims(space);
    const { delF, insF, delB, insB } = this.statements(space);
    this.db.transaction(() => {
      for (const it of items) {
        if (it.vector && it.vector.length !== dims) throw new Error(`vector for eid ${it.eid} has ${it.vector.length} dimensions, the space has ${dims}`);
        const rowid = BigInt(it.eid);
        delF.run(rowid);
        delB?.run(rowid);
        if (it.vector) {
          insF.run(rowid, it.vector);
          insB?.run(rowid, it.vector);
        }
        this.s.putItem.run(space, it.eid, it.id, it.hash);
      }
    })();
  }

  /** Deletes vectors whose entity is gone (or is now another entity under a reused eid). */
  dropOrphans(space: string): number {
    const eids = (this.s.orphans.all(space) as Array<{ eid: number }>).map((r) => r.eid);
    if (!eids.length) return 0;
    const { delF, delB } = this.statements(space);
    this.db.transaction(() => {
      for (const eid of eids) {
        delF.run(BigInt(eid));
        delB?.run(BigInt(eid));
        this.s.deleteItem.run(space, eid);
      }
    })();
    return eids.length;
  }

  /**
   * Nearest entities to `query`, best first. With the bit table on, KNN runs over Hamming
   * distance for a pool of candidates (default 2·k, at least 64), which are then ranked by
   * their exact cosine distance; otherwise exact cosine KNN over the float table. sqlite-vec's
   * KNN cost grows with k (measured at 100K × 256 dims: bits 3 ms at k = 10, 17 ms at 128,
   * 75 ms at 480), so the pool stays small; re-scoring reads the candidates one by one
   * (≈ 1 ms for 120), which vec0 serves far faster than a `rowid IN (…)` scan.
   */
  knn(space: string, query: Float32Array, k: number, opts: { binary?: boolean; rescore?: number } = {}): VectorHit[] {
    if (!this.s.space.get(space) || !this.exists(tables(space).f)) return [];
    const n = Math.max(0, Math.min(MAX_KNN, Math.floor(k)));
    if (n === 0) return [];
    const st = this.statements(space);
    const useBinary = (opts.binary ?? true) && st.knnB !== null;
    if (!useBinary || !st.knnB) return st.knnF.all(query, n) as VectorHit[];
    const pool = Math.min(MAX_KNN, Math.max(n, opts.rescore ?? Math.max(2 * n, 64)));
    const candidates = st.knnB.all(query, pool) as Array<{ eid: number }>;
    const scored: VectorHit[] = [];
    for (const c of candidates) {
      const row = st.distance.get(query, BigInt(c.eid)) as { distance: number } | undefined;
      if (row) scored.push({ eid: c.eid, distance: row.distance });
    }
    scored.sort((a, b) => a.distance - b.distance || a.eid - b.eid);
    return scored.slice(0, n);
  }
}
