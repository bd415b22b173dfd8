// The tables of a vector space (vectors.ts) and the changes of their layout: a space made for
// a model and width (and remade for another), dropped, its bit table switched on (the vectors
// move to re-scoring rows) or off (back into vec0), and an older index's tables brought up to
// date when it opens. VectorStore composes it; what it changes, VectorStore's prepared
// statements and the bits it holds in memory no longer match (`stale`).
import type { Statement } from 'better-sqlite3';
import type { Db } from './db';
import { fromQ8, toQ8 } from './q8';

const SPACE_NAME = /^[a-z][a-z0-9_]{0,30}$/;

export function tables(space: string): { f: string; q8: string; floats: string; b: string; legacyB: string } {
  // Space names become table names: only a fixed, safe alphabet is accepted.
  if (!SPACE_NAME.test(space)) throw new Error(`invalid vector space name ${JSON.stringify(space)}`);
  // `floats`: the re-scoring rows as float32, as indexes made before `q8` hold them (and, for a
  // moment, a move out of vec0). `legacyB`: the vec0 bit table of indexes made before the scan
  // moved into memory.
  return { f: `vec_${space}_f`, q8: `vec_${space}_q8`, floats: `vec_${space}_floats`, b: `vec_${space}_bits`, legacyB: `vec_${space}_b` };
}

/** Rows moved between tables a chunk at a time (a whole space read at once is ~1 KB a vector). */
const MOVE_CHUNK = 4096;

/** A float32 vector stored as a blob, copied out (a blob's offset need not be aligned for floats). */
export function floatsOf(blob: Uint8Array): Float32Array {
  return new Float32Array(Uint8Array.from(blob).buffer);
}

/** The statements of vectors.ts that a layout change reads and writes. */
export interface LayoutStatements {
  space: Statement;
  setSpace: Statement;
  deleteSpace: Statement;
  deleteItems: Statement;
  tableExists: Statement;
  bumpBits: Statement;
}

/** Told of a space whose prepared statements, or bits held in memory, a layout change made stale. */
export interface Stale {
  statements(space: string): void;
  bits(space: string): void;
}

export class VectorLayout {
  constructor(
    private readonly db: Db,
    private readonly s: LayoutStatements,
    private readonly stale: Stale,
  ) {}

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
    if (!fresh && this.exists(t.legacyB)) {
      // An index made before the bit scan moved into memory: the same bits, in a plain table.
      // A read-only index keeps its old table and searches the float vectors instead.
      this.stale.statements(space);
      try {
        this.db.transaction(() => {
          this.db.exec(`DROP TABLE ${t.legacyB}`);
          this.createBits(space);
        })();
      } catch {
        /* read-only: float search */
      }
    }
    if (!fresh && this.exists(t.b) && !this.exists(t.q8)) {
      // Bits on, the vectors still as floats: in vec0 (an index made before they moved out) or
      // in float rows (made before the rows were bytes). Made re-scoring rows now; a read-only
      // index re-scores from where they are, the float rows alike, vec0 slower.
      this.stale.statements(space);
      try {
        this.db.transaction(() => this.toRescoreRows(space, dims))();
      } catch {
        /* read-only */
      }
    }
    if (fresh) {
      this.stale.statements(space);
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
    this.stale.statements(space);
    this.db.transaction(() => this.dropTables(space))();
  }

  private dropTables(space: string): void {
    const t = tables(space);
    this.db.exec(`DROP TABLE IF EXISTS ${t.f}; DROP TABLE IF EXISTS ${t.q8}; DROP TABLE IF EXISTS ${t.floats}; DROP TABLE IF EXISTS ${t.b}; DROP TABLE IF EXISTS ${t.legacyB};`);
    this.s.deleteItems.run(space);
    this.s.deleteSpace.run(space);
    this.s.bumpBits.run(space);
    this.stale.bits(space);
  }

  /** The bit table of a space, filled from its float vectors (which move to the re-scoring rows). */
  private createBits(space: string): void {
    const t = tables(space);
    const dims = this.dims(space);
    if (!this.exists(t.q8) && !this.exists(t.floats)) this.floatsToRows(space, dims);
    this.db.exec(`CREATE TABLE ${t.b} (eid INTEGER PRIMARY KEY, bits BLOB NOT NULL)`);
    // From the floats, as `put` makes them; from the rows only where no floats are left (a
    // small positive component rounded to 0 there gets the bit of a negative one).
    if (this.exists(t.floats)) {
      this.db.exec(`INSERT INTO ${t.b}(eid, bits) SELECT eid, vec_quantize_binary(embedding) FROM ${t.floats}`);
      this.toRescoreRows(space, dims);
    } else this.db.exec(`INSERT INTO ${t.b}(eid, bits) SELECT eid, vec_quantize_binary(vec_int8(q)) FROM ${t.q8}`);
    this.s.bumpBits.run(space);
    this.stale.bits(space);
  }

  /** Moves the float vectors from vec0 to a plain float table, leaving vec0 empty (a drop: a DELETE is seconds). */
  private floatsToRows(space: string, dims: number): void {
    const t = tables(space);
    this.db.exec(`CREATE TABLE ${t.floats} (eid INTEGER PRIMARY KEY, embedding BLOB NOT NULL)`);
    this.db.exec(`INSERT INTO ${t.floats}(eid, embedding) SELECT rowid, embedding FROM ${t.f}`);
    this.db.exec(`DROP TABLE ${t.f}`);
    this.db.exec(`CREATE VIRTUAL TABLE ${t.f} USING vec0(embedding float[${dims}] distance_metric=cosine)`);
  }

  /** The float vectors (in vec0 or a float table) made re-scoring rows, a chunk at a time. */
  private toRescoreRows(space: string, dims: number): void {
    const t = tables(space);
    if (!this.exists(t.floats)) this.floatsToRows(space, dims);
    if (!this.exists(t.q8)) this.db.exec(`CREATE TABLE ${t.q8} (eid INTEGER PRIMARY KEY, q BLOB NOT NULL)`);
    const read = this.db.prepare(`SELECT eid, embedding FROM ${t.floats} WHERE eid > ? ORDER BY eid LIMIT ${MOVE_CHUNK}`);
    const write = this.db.prepare(`INSERT OR REPLACE INTO ${t.q8}(eid, q) VALUES (?, ?)`);
    for (let after = 0; ; ) {
      const rows = read.all(after) as Array<{ eid: number; embedding: Buffer }>;
      if (!rows.length) break;
      for (const r of rows) write.run(r.eid, toQ8(floatsOf(r.embedding)));
      after = rows[rows.length - 1].eid;
    }
    this.db.exec(`DROP TABLE ${t.floats}`);
  }

  exists(table: string): boolean {
    return this.s.tableExists.get(table) !== undefined;
  }

  dims(space: string): number {
    const cur = this.s.space.get(space) as { dims: number } | undefined;
    if (!cur) throw new Error(`vector space ${space} is not open`);
    return cur.dims;
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
    this.stale.statements(space);
    if (!on) {
      this.db.transaction(() => {
        if (this.exists(t.floats)) {
          this.db.exec(`INSERT INTO ${t.f}(rowid, embedding) SELECT eid, embedding FROM ${t.floats}`);
          this.db.exec(`DROP TABLE ${t.floats}`);
        }
        if (this.exists(t.q8)) {
          // Back into vec0 as the rows' directions (all cosine reads of them).
          const read = this.db.prepare(`SELECT eid, q FROM ${t.q8} WHERE eid > ? ORDER BY eid LIMIT ${MOVE_CHUNK}`);
          const write = this.db.prepare(`INSERT INTO ${t.f}(rowid, embedding) VALUES (?, ?)`);
          for (let after = 0; ; ) {
            const rows = read.all(after) as Array<{ eid: number; q: Buffer }>;
            if (!rows.length) break;
            for (const r of rows) write.run(BigInt(r.eid), fromQ8(r.q));
            after = rows[rows.length - 1].eid;
          }
          this.db.exec(`DROP TABLE ${t.q8}`);
        }
        this.db.exec(`DROP TABLE IF EXISTS ${t.b}`);
        this.s.bumpBits.run(space);
      })();
      this.stale.bits(space);
      return;
    }
    const dims = this.dims(space);
    if (!VectorLayout.binaryPossible(dims)) throw new Error(`binary vectors need a width divisible by 8, got ${dims}`);
    this.db.transaction(() => this.createBits(space))();
  }
}
