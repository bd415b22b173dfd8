// All SQL for entity vectors (DESIGN invariant 2). One *space* per embedder (`static`, `model`):
// a sqlite-vec `vec0` float table with cosine distance (rowid = entities.eid), optionally a
// plain table of the same vectors quantized to one bit per dimension for large indexes (the
// Hamming scan runs in memory, `bits.ts`; the best candidates are re-scored with the float
// vectors), and a bookkeeping row per vector saying which content it was computed from, so that
// only entities whose content changed are embedded again. Tables are our own (IF NOT EXISTS):
// schema.ts and its version are untouched, and the index stays derived data.
// With the bits on, the vectors move out of vec0 into a plain table keyed by eid (`q8`), one
// signed byte per dimension (q8.ts): re-scoring reads a few hundred vectors one by one, and vec0
// reads each through its chunk's 1 MB overflow chain (0.17 ms apiece on the stdlib, against 8 µs
// from a plain table); its KNN scan, the one thing vec0 does better, is not used while the bits
// are on. vec0 then stays empty. Indexes made before the rows were bytes kept float32 rows in
// `floats`: moved into `q8` when the space opens (a read-only index re-scores from them).
import type { Statement } from 'better-sqlite3';
import { BitIndex, signBits } from './bits';
import { BitsSnapshots } from './bits-snapshot';
import { CHANGE_KEY_SQL, loadVectorExtension, type Db } from './db';
import type { EntityDbRow } from './read-rows';
import { fromQ8, norm, rowDistance, toQ8 } from './q8';
import { floatsOf, tables, VectorLayout } from './vector-tables';

/** Entity kinds that get a vector: code entities with a body or a docstring. */
const EMBEDDED_KINDS = `('module', 'class', 'function', 'method')`;
/** sqlite-vec refuses larger k in one KNN query. */
export const MAX_KNN = 4096;
/** Neighbours asked of vec0 past k, to see whether a tie at the k-th place runs on (`knnPastTies`). */
const KNN_TIE_SLACK = 16;

/** An entity row with what its vector is made from (`body` words) and of (`hash`: the content it was made for). */
export type EmbeddableEntity = Pick<EntityDbRow, 'eid' | 'id' | 'kind' | 'name' | 'qname' | 'signature' | 'docstring'> & {
  path: string;
  body: string;
  literals?: string;
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

interface SpaceStatements {
  /** The vectors, in vec0 or (bits on) in the re-scoring rows. */
  delF: Statement;
  insF: Statement;
  /** True when `insF` takes a re-scoring row (`toQ8`) rather than floats. */
  q8: boolean;
  /** True when `insF` replaces a row by its eid (a plain table; vec0's row must be deleted first). */
  upserts: boolean;
  /** vec0's KNN and one vector's distance (vec0 only: with re-scoring rows, `rowsOf` and `allRows`). */
  knnF: Statement;
  distance: Statement;
  /** One vector of vec0 by rowid (where there are no re-scoring rows). */
  vecOf: Statement;
  /** The re-scoring rows of a JSON list of eids, `{ eid, v }`, and every one (null without them). */
  rowsOf: Statement | null;
  allRows: Statement | null;
  delB: Statement | null;
  insB: Statement | null;
  allB: Statement | null;
}

/** A space's bits in memory, and the space's bit version they reflect. */
interface LoadedBits {
  version: number;
  index: BitIndex;
}

export class VectorStore {
  private readonly s;
  /** Per-space statements; invalidated whenever a space's tables are created or dropped. */
  private readonly prepared = new Map<string, SpaceStatements>();
  private readonly countCache = new Map<string, { key: string; done: number; total: number }>();
  private totalCache: { key: string; n: number } | null = null;
  private readonly bits = new Map<string, LoadedBits>();
  private readonly snapshots: BitsSnapshots;
  /** The spaces' tables and their layout changes (vector-tables.ts). */
  private readonly layout: VectorLayout;

  constructor(private readonly db: Db) {
    loadVectorExtension(db);
    db.exec(`
      CREATE TABLE IF NOT EXISTS vec_spaces (space TEXT PRIMARY KEY, model TEXT NOT NULL, dims INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS vec_items (
        space TEXT NOT NULL, eid INTEGER NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL,
        PRIMARY KEY (space, eid)
      ) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS vec_bits_version (space TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
    `);
    this.snapshots = new BitsSnapshots(db);
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
      pendingEidsOfFiles: p(`SELECT e.eid FROM files f JOIN entities e ON e.fid = f.fid
        LEFT JOIN vec_items s ON s.space = ? AND s.eid = e.eid
        WHERE f.path IN (SELECT value FROM json_each(?)) AND e.kind IN ${EMBEDDED_KINDS}
          AND (s.eid IS NULL OR s.hash != e.content_hash OR s.id != e.id)
        ORDER BY e.eid`),
      entity: p(`SELECT e.eid, e.id, e.kind, e.name, e.qname, f.path, e.signature, e.docstring, e.body, e.literals, e.content_hash AS hash
        FROM entities e JOIN files f ON f.fid = e.fid WHERE e.eid = ? AND e.kind IN ${EMBEDDED_KINDS}`),
      entities: p(`SELECT e.eid, e.id, e.kind, e.name, e.qname, f.path, e.signature, e.docstring, e.body, e.literals, e.content_hash AS hash
        FROM json_each(?) j JOIN entities e ON e.eid = j.value JOIN files f ON f.fid = e.fid WHERE e.kind IN ${EMBEDDED_KINDS} ORDER BY j.key`),
      total: p(`SELECT count(*) AS n FROM entities WHERE fid IS NOT NULL AND kind IN ${EMBEDDED_KINDS}`),
      done: p(`SELECT count(*) AS n FROM vec_items s JOIN entities e ON e.eid = s.eid
        WHERE s.space = ? AND s.hash = e.content_hash AND s.id = e.id`),
      orphans: p(`SELECT s.eid FROM vec_items s LEFT JOIN entities e ON e.eid = s.eid
        WHERE s.space = ? AND (e.eid IS NULL OR e.fid IS NULL OR e.id != s.id)`),
      deleteItem: p('DELETE FROM vec_items WHERE space = ? AND eid = ?'),
      putItem: p('INSERT OR REPLACE INTO vec_items(space, eid, id, hash) VALUES (?, ?, ?, ?)'),
      tableExists: p("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?"),
      changeKey: p(CHANGE_KEY_SQL).pluck(),
      // Every write to a space's bits bumps its version: a process holding the bits in memory
      // sees another's writes (or another VectorStore's on the same connection) and reloads.
      bitsVersion: p('SELECT v FROM vec_bits_version WHERE space = ?'),
      bumpBits: p('INSERT INTO vec_bits_version(space, v) VALUES (?, 1) ON CONFLICT(space) DO UPDATE SET v = v + 1'),
    };
    this.layout = new VectorLayout(db, this.s, {
      statements: (space) => this.prepared.delete(space),
      bits: (space) => this.bits.delete(space),
    });
  }

  /**
   * Makes sure the tables of a space exist for this model and width (a different model or width
   * drops every stored vector). Returns true when the space was (re)created empty.
   */
  open(space: string, model: string, dims: number): boolean {
    return this.layout.open(space, model, dims);
  }

  /** Removes a space entirely (its model was switched off). */
  drop(space: string): void {
    this.layout.drop(space);
  }

  /** Binary quantization needs a width that is a multiple of 8 (whole bytes). */
  static binaryPossible(dims: number): boolean {
    return VectorLayout.binaryPossible(dims);
  }

  hasBinary(space: string): boolean {
    return this.layout.hasBinary(space);
  }

  /** Switches the bit table on (filled from the float vectors) or off. */
  setBinary(space: string, on: boolean): void {
    this.layout.setBinary(space, on);
  }

  private statements(space: string): SpaceStatements {
    let st = this.prepared.get(space);
    if (st) return st;
    const t = tables(space);
    const binary = this.hasBinary(space);
    // With the bits on, the re-scoring rows; in a read-only index made before them, its float
    // rows (`rowDistance` reads either), or, older still, vec0 itself.
    const rows = !binary ? null : this.layout.exists(t.q8) ? { table: t.q8, col: 'q' } : this.layout.exists(t.floats) ? { table: t.floats, col: 'embedding' } : null;
    const p = (sql: string) => this.db.prepare(sql);
    st = {
      delF: p(rows ? `DELETE FROM ${rows.table} WHERE eid = ?` : `DELETE FROM ${t.f} WHERE rowid = ?`),
      insF: p(rows ? `INSERT OR REPLACE INTO ${rows.table}(eid, ${rows.col}) VALUES (?, ?)` : `INSERT INTO ${t.f}(rowid, embedding) VALUES (?, ?)`),
      q8: rows?.table === t.q8,
      upserts: rows !== null,
      knnF: p(`SELECT rowid AS eid, distance FROM ${t.f} WHERE embedding MATCH ? AND k = ?`),
      distance: p(`SELECT vec_distance_cosine(embedding, ?) AS distance FROM ${t.f} WHERE rowid = ?`),
      vecOf: p(`SELECT rowid AS eid, embedding AS v FROM ${t.f} WHERE rowid = ?`),
      rowsOf: rows ? p(`SELECT eid, ${rows.col} AS v FROM ${rows.table} WHERE eid IN (SELECT value FROM json_each(?))`) : null,
      allRows: rows ? p(`SELECT eid, ${rows.col} AS v FROM ${rows.table}`) : null,
      delB: binary ? p(`DELETE FROM ${t.b} WHERE eid = ?`) : null,
      insB: binary ? p(`INSERT OR REPLACE INTO ${t.b}(eid, bits) VALUES (?, ?)`) : null,
      // Every vector in one row: a Buffer per row made the first search on 74K vectors spend
      // 170–270 ms in allocation alone, against ~40 ms for the two strings (vectors.ts heldBits).
      allB: binary ? p(`SELECT group_concat(eid, ',' ORDER BY eid) AS eids, group_concat(hex(bits), '' ORDER BY eid) AS hex, count(*) AS n FROM ${t.b}`) : null,
    };
    this.prepared.set(space, st);
    return st;
  }

  /** Eids of entities without an up-to-date vector in this space, oldest first. */
  pendingEids(space: string): number[] {
    return (this.s.pendingEids.all(space) as Array<{ eid: number }>).map((r) => r.eid);
  }

  /** `pendingEids` among the entities of `paths`. */
  pendingEidsOfFiles(space: string, paths: readonly string[]): number[] {
    return (this.s.pendingEidsOfFiles.all(space, JSON.stringify(paths)) as Array<{ eid: number }>).map((r) => r.eid);
  }

  /** What the embedders need to know about an entity; undefined when it is gone or not embeddable. */
  entity(eid: number): EmbeddableEntity | undefined {
    return this.s.entity.get(eid) as EmbeddableEntity | undefined;
  }

  /** `entity` of each eid, in their order, in one query (those gone or not embedded left out). */
  entities(eids: readonly number[]): EmbeddableEntity[] {
    return this.s.entities.all(JSON.stringify(eids)) as EmbeddableEntity[];
  }

  /**
   * How many entities have a current vector in a space, of how many that can. Every search asks
   * (to say which streams are incomplete) and the count joins every entity, tens of ms at 100K:
   * it is kept until the database changes, in this connection or another.
   */
  counts(space: string): { done: number; total: number } {
    const key = this.changeKey();
    const hit = this.countCache.get(space);
    if (hit && hit.key === key) return { done: hit.done, total: hit.total };
    const total = this.embeddableCount();
    const done = (this.s.done.get(space) as { n: number }).n;
    this.countCache.set(space, { key, done, total });
    return { done, total };
  }

  /** Entities that can have a vector, whatever the space (for the binary threshold). */
  embeddableCount(): number {
    const key = this.changeKey();
    if (this.totalCache?.key !== key) this.totalCache = { key, n: (this.s.total.get() as { n: number }).n };
    return this.totalCache.n;
  }

  /** Moves with every write to the index (db.ts `CHANGE_KEY_SQL`, `v:c`). */
  changeKey(): string {
    return this.s.changeKey.get() as string;
  }

  /** Stores vectors (replacing older ones of the same entities) in one transaction. */
  put(space: string, items: VectorItem[]): void {
    if (!items.length) return;
    const dims = this.layout.dims(space);
    const { delF, insF, q8, upserts, delB, insB } = this.statements(space);
    const changed: Array<{ eid: number; bits: Uint8Array | null }> = [];
    this.db.transaction(() => {
      const before = this.bitsVersion(space);
      for (const it of items) {
        if (it.vector && it.vector.length !== dims) throw new Error(`vector for eid ${it.eid} has ${it.vector.length} dimensions, the space has ${dims}`);
        const rowid = BigInt(it.eid);
        if (it.vector) {
          // The plain tables replace a row by its eid: a delete first is only for vec0 (a first
          // fill of the stdlib's 73.7K vectors ran five statements each, now three).
          if (!upserts) delF.run(rowid);
          insF.run(rowid, q8 ? toQ8(it.vector) : it.vector);
          if (insB) {
            const bits = signBits(it.vector);
            insB.run(rowid, bits);
            changed.push({ eid: it.eid, bits });
          }
        } else {
          delF.run(rowid);
          if (delB) {
            delB.run(rowid);
            changed.push({ eid: it.eid, bits: null });
          }
        }
        this.s.putItem.run(space, it.eid, it.id, it.hash);
      }
      if (delB) this.bitsWritten(space, before, changed);
    })();
  }

  /** Deletes vectors whose entity is gone (or is now another entity under a reused eid). */
  dropOrphans(space: string): number {
    const eids = (this.s.orphans.all(space) as Array<{ eid: number }>).map((r) => r.eid);
    if (!eids.length) return 0;
    const { delF, delB } = this.statements(space);
    this.db.transaction(() => {
      const before = this.bitsVersion(space);
      for (const eid of eids) {
        delF.run(BigInt(eid));
        delB?.run(BigInt(eid));
        this.s.deleteItem.run(space, eid);
      }
      if (delB) this.bitsWritten(space, before, eids.map((eid) => ({ eid, bits: null })));
    })();
    return eids.length;
  }

  private bitsVersion(space: string): number {
    return (this.s.bitsVersion.get(space) as { v: number } | undefined)?.v ?? 0;
  }

  /**
   * After a write of bits: the version moves on, and bits held in memory follow the write when
   * they were current before it (else they are reloaded at the next search). A rolled-back
   * write leaves memory ahead of the table, at a version the table never reaches: reloaded too.
   */
  private bitsWritten(space: string, before: number, changed: Array<{ eid: number; bits: Uint8Array | null }>): void {
    this.s.bumpBits.run(space);
    const held = this.bits.get(space);
    if (!held) return;
    if (held.version !== before) {
      this.bits.delete(space);
      return;
    }
    for (const c of changed) {
      if (c.bits) held.index.set(c.eid, c.bits);
      else held.index.delete(c.eid);
    }
    held.version = this.bitsVersion(space);
  }

  /** A space's bits in memory, (re)loaded when another writer changed them. */
  private heldBits(space: string, all: Statement): BitIndex {
    const version = this.bitsVersion(space);
    const held = this.bits.get(space);
    if (held && held.version === version) return held.index;
    const width = this.layout.dims(space) / 8;
    let index = this.snapshots.read(space, version, width);
    if (!index) {
      index = new BitIndex(width);
      const packed = all.get() as { eids: string | null; hex: string | null; n: number };
      // Every row holds `width` bytes (vec_quantize_binary of `dims` floats): load checks it.
      if (packed.n > 0) index.load(packed.eids!.split(',').map(Number), Buffer.from(packed.hex!, 'hex'));
    }
    this.bits.set(space, { version, index });
    return index;
  }

  /**
   * Saves a space's bits whole for the next process's first search (bits-snapshot.ts), unless
   * that is already saved. The embedding service calls it when it has written vectors and its
   * queues are empty, or as a one-shot command closes after a search read the rows (`onlyIfHeld`):
   * a writer then, not a search.
   */
  saveBits(space: string, onlyIfHeld = false): void {
    if (onlyIfHeld && !this.bits.has(space)) return;
    if (!this.s.space.get(space) || !this.layout.exists(tables(space).f)) return;
    const st = this.statements(space);
    if (!st.allB) return;
    const version = this.bitsVersion(space);
    const width = this.layout.dims(space) / 8;
    if (this.snapshots.has(space, version, width)) return;
    this.snapshots.write(space, version, this.heldBits(space, st.allB));
  }

  /**
   * Loads what the first search of a space reads (its counts when asked, the bits held in
   * memory): a server does it once its queues are empty, so that first search does not.
   */
  warm(space: string, counts = true): void {
    if (!this.s.space.get(space) || !this.layout.exists(tables(space).f)) return;
    if (counts) this.counts(space);
    const st = this.statements(space);
    if (st.allB) this.heldBits(space, st.allB);
  }

  /** The stored vectors of `eids`, each of unit length (an eid without one is left out). */
  vectorsOf(space: string, eids: readonly number[]): Float32Array[] {
    if (!eids.length || !this.s.space.get(space) || !this.layout.exists(tables(space).f)) return [];
    const st = this.statements(space);
    const dims = this.layout.dims(space);
    const rows = st.rowsOf
      ? (st.rowsOf.all(JSON.stringify(eids)) as Array<{ v: Buffer }>)
      : eids.map((eid) => st.vecOf.get(BigInt(eid)) as { v: Buffer } | undefined).filter((r): r is { v: Buffer } => !!r);
    const out: Float32Array[] = [];
    for (const { v } of rows) {
      const x = v.length === dims ? fromQ8(v) : v.length === dims * 4 ? floatsOf(v) : null;
      const n = x ? norm(x) : 0;
      if (!x || n === 0) continue;
      for (let i = 0; i < dims; i++) x[i] /= n;
      out.push(x);
    }
    return out;
  }

  /**
   * Nearest entities to `query`, best first. With the bit table on, a pool of candidates
   * (default 2·k, at least 64) is taken by Hamming distance from the bits held in memory, then
   * ranked by cosine distance to their re-scoring rows (q8.ts: within rounding of the float
   * cosine); otherwise exact cosine KNN over the float table. Re-scoring reads the candidates
   * one by one from the plain table of rows (600 in ~5 ms on the stdlib; through vec0 they took
   * ~110 ms).
   */
  knn(space: string, query: Float32Array, k: number, opts: { binary?: boolean; rescore?: number } = {}): VectorHit[] {
    if (!this.s.space.get(space) || !this.layout.exists(tables(space).f)) return [];
    const n = Math.max(0, Math.min(MAX_KNN, Math.floor(k)));
    if (n === 0) return [];
    const st = this.statements(space);
    const useBinary = (opts.binary ?? true) && st.allB !== null;
    const qn = norm(query);
    const distances = (rows: Array<{ eid: number; v: Buffer }>): VectorHit[] => rows.map((r) => ({ eid: r.eid, distance: rowDistance(query, qn, r.v) }));
    let scored: VectorHit[] = [];
    if (!useBinary || !st.allB) {
      if (!st.allRows) scored = this.knnPastTies(st.knnF, query, n);
      // A float search asked for while the bits are on (they are being switched off): a scan.
      else scored = distances(st.allRows.all() as Array<{ eid: number; v: Buffer }>);
    } else {
      const pool = Math.max(n, opts.rescore ?? Math.max(2 * n, 64));
      const q = signBits(query);
      const candidates = this.heldBits(space, st.allB).nearest(q, pool);
      if (st.rowsOf) scored = distances(st.rowsOf.all(JSON.stringify(candidates)) as Array<{ eid: number; v: Buffer }>);
      else {
        for (const eid of candidates) {
          const row = st.distance.get(query, BigInt(eid)) as { distance: number } | undefined;
          if (row) scored.push({ eid, distance: row.distance });
        }
      }
    }
    scored.sort((a, b) => a.distance - b.distance || a.eid - b.eid);
    return scored.slice(0, n);
  }

  /**
   * vec0's `n` nearest and every entity as near as the n-th (best first by distance, in vec0's
   * order within a distance): the caller breaks ties by eid, so which of two equally near
   * entities makes the cut does not depend on k. Identical bodies (90 one-line wrappers) tie.
   */
  private knnPastTies(knn: Statement, query: Float32Array, n: number): VectorHit[] {
    let m = Math.min(MAX_KNN, n + KNN_TIE_SLACK);
    for (;;) {
      const rows = knn.all(query, m) as VectorHit[];
      const tieRunsOn = rows.length === m && rows.length > n && rows[rows.length - 1].distance === rows[n - 1].distance;
      if (!tieRunsOn || m === MAX_KNN) return rows;
      m = Math.min(MAX_KNN, m * 4);
    }
  }
}
