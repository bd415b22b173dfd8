// A bulk load: many files written into an empty index by one run (a first index). The secondary
// indexes are dropped for its length and the lexical index filled in one statement per commit;
// entities are found by id in memory, not by lookups.
import { CACHE_KIB, type Db } from './db';
import { BULK_INDEXES, DDL } from './schema';
import type { Statements } from './statements';

/** The page cache of a bulk load (see `BulkLoad.begin`). */
const BULK_CACHE_KIB = 4 * 1024;

export class BulkLoad {
  /**
   * Ids of the entities written so far, so edges are inserted without a lookup per target (and
   * kept true when an edit rewrites a file meanwhile).
   */
  readonly eids = new Map<string, number>();
  /** Entities from this eid on are indexed for search by the next `fillLexical`, not one by one. */
  private lexicalFrom: number;

  private constructor(
    private readonly db: Db,
    private readonly s: Statements,
    private readonly lexicalWrite: (eid: number | null) => void,
  ) {
    for (const r of this.s.entityEids.iterate() as IterableIterator<{ id: string; eid: number }>) this.eids.set(r.id, r.eid);
    this.lexicalFrom = this.maxEid() + 1;
  }

  /**
   * Before loading many files into an empty index: drop the secondary indexes (rebuilt by
   * `end`), which turns millions of random B-tree inserts into a few sorts.
   */
  static begin(db: Db, s: Statements, lexicalWrite: (eid: number | null) => void): BulkLoad {
    for (const name of BULK_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
    // Derived data built from scratch: skip syncs (only a power cut can lose them, and the run
    // marker then makes the next run redo the work), and write pages once: a WAL writes them
    // twice (log, then checkpoint). A rollback journal on disk, not in memory: pages appended
    // to the file are not journaled, so it costs little, and a killed process leaves a
    // database SQLite rolls back to the last commit instead of a corrupt one. Another process
    // holding the index open keeps it in WAL mode, which is only slower.
    db.pragma('synchronous = OFF');
    try {
      db.pragma('journal_mode = TRUNCATE');
    } catch {
      /* stays in WAL */
    }
    db.pragma('wal_autocheckpoint = 0');
    // Rows are appended (the indexes kept grow at their ends): a small cache writes them as fast,
    // and the 16 MB one filled with dirty pages on top of the run's peak (stdlib: 315 → 300 MB).
    db.pragma(`cache_size = -${BULK_CACHE_KIB}`);
    return new BulkLoad(db, s, lexicalWrite);
  }

  /** Whether the entity `eid` is left to the next `fillLexical` (written during this load). */
  fillsLater(eid: number): boolean {
    return eid >= this.lexicalFrom;
  }

  /**
   * Indexes for search the entities written since the last fill, in one statement outside any
   * savepoint. (FTS5 writes a segment at every savepoint, so a row at a time per batch makes
   * both the load and the later merges several times slower.) Returns its milliseconds.
   */
  fillLexical(): number {
    const t = performance.now();
    this.s.ftsFill.run(this.lexicalFrom);
    this.lexicalWrite(null);
    this.lexicalFrom = Math.max(this.lexicalFrom, this.maxEid() + 1);
    return performance.now() - t;
  }

  /**
   * Entity ids by eid, from the ids held already (the same strings, no query): an array indexed
   * by eid, as eids of a first index are dense.
   */
  entityIds(): { get(eid: number): string | undefined } {
    const ids: string[] = [];
    for (const [id, eid] of this.eids) ids[eid] = id;
    return { get: (eid) => ids[eid] ?? (this.s.idOfEid.get(eid) as string | undefined) };
  }

  /** After the last fill has committed: the indexes back, statistics, and the usual journal and cache. */
  end(): void {
    // Sorted in temporary files, not in memory: building the indexes sorts every reference's
    // name (site-packages: 1.5M) and was the peak RSS of a first index there. Where no
    // temporary file can be made, in memory as before.
    try {
      this.db.pragma('temp_store = FILE');
      this.db.exec(DDL);
    } catch {
      this.db.pragma('temp_store = MEMORY');
      this.db.exec(DDL);
    } finally {
      this.db.pragma('temp_store = MEMORY');
    }
    // Statistics from a sample: the planner needs the shape, not exact counts.
    this.db.pragma('analysis_limit = 1000');
    this.db.exec('ANALYZE');
    try {
      this.db.pragma('journal_mode = WAL');
    } catch {
      /* another connection appeared meanwhile: it switches at the next open */
    }
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('wal_autocheckpoint = 1000');
    this.db.pragma(`cache_size = -${CACHE_KIB}`);
  }

  private maxEid(): number {
    return (this.s.maxEid.get() as { n: number }).n;
  }
}
