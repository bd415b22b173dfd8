// All SQL for files, entities, refs, edges, imports and attribute types (DESIGN invariant 2).
// Statements are prepared once; writes happen inside transactions opened by the caller through
// `transaction()`, so an index run commits in batches and a crash loses nothing already committed.
import type { Relation } from '../../../../protocol';
import type { ConfigKind, FileExtraction, RawRef, ReceiverKind } from '../languages/types';
import { CACHE_KIB, type Db } from './db';
import { lastSegment } from '../dotted';
import { decodeCallArgs, encodeCallArgs } from './call-args-row';
import type { AttrTypeTuple, CallArgsTuple, EntityDbRow, EntityLiteTuple, FileRow, FileStamp, RefDbRow, RefEdgeDbRow, RefResolveRow, ImportTuple, ModelFileRows } from './read-rows';
import { splitIdentifier } from './words';
import { entityParams, pathWords, refColumns, refValues, sameEntity, StoredRefs, type HashMemo, type OldEntity, type OldRef } from './write-rows';
import { BULK_INDEXES, DDL } from './schema';

/** The page cache of a bulk load (see `beginBulkLoad`). */
const BULK_CACHE_KIB = 4 * 1024;
import { prepareStatements, type Statements } from './statements';

export interface FileMeta {
  path: string;
  language: string;
  module: string | null;
  hash: string;
  size: number;
  mtimeMs: number;
}

export interface ResolvedTarget {
  target: string;
  ambiguous: boolean;
  caught: boolean;
  /** A dispatch edge: an override the call may reach, not the method it names. */
  dispatch?: boolean;
}

export interface ReplaceResult {
  fid: number;
  /** References that are new: they need resolving. */
  refs: Array<{ rid: number; ref: RawRef }>;
  /** Rows of references that were already there (with their edges). */
  kept: number[];
  removedIds: string[];
  /** References elsewhere whose edges pointed at a removed entity: they must be resolved again. */
  orphaned: number[];
}

export interface DeleteResult {
  removedIds: string[];
  orphaned: number[];
}

export interface RankingFacts {
  body: string;
  callers: number;
}

export class Store {
  private readonly s: Statements;
  /**
   * Set during a bulk load: ids of the entities written so far, so edges are inserted without
   * a lookup per target (and kept true when an edit rewrites a file meanwhile).
   */
  private bulk: { eids: Map<string, number>; lexicalFrom: number } | null = null;
  /**
   * The rows of the file written last, as replaceFile left them: a buffer being edited is
   * rewritten on every keystroke, and reading its rows back each time would cost more than
   * the write.
   */
  private last: { fid: number; entities: OldEntity[]; refs: OldRef[] } | null = null;
  /** `entity_generation` bumps this connection made (so a reader can tell whether another process wrote). */
  private ownGenerations = 0;
  /**
   * Told of this connection's writes to the lexical index: the entity whose row was written or
   * deleted, or `null` for many at once (a bulk fill). search/common-terms.ts keeps scores read
   * from it.
   */
  readonly lexicalWritten = new Set<(eid: number | null) => void>();
  /** Entities' last hashed content (write-rows.ts `HashMemo`): a buffer rewritten at each keystroke. */
  private readonly hashMemo: HashMemo = new Map();

  constructor(readonly db: Db) {
    db.function('nsccn_split', { deterministic: true }, (t: unknown) => splitIdentifier(String(t ?? '')));
    // Called once per entity row with the same path many times in a row.
    let lastPath = '';
    let lastWords = '';
    db.function('nsccn_path_words', { deterministic: true }, (t: unknown) => {
      const p = String(t ?? '');
      if (p !== lastPath) [lastPath, lastWords] = [p, pathWords(p)];
      return lastWords;
    });
    this.s = prepareStatements(db);
  }

  /**
   * Before loading many files into an empty index: drop the secondary indexes (rebuilt by
   * `endBulkLoad`), which turns millions of random B-tree inserts into a few sorts.
   */
  beginBulkLoad(): void {
    for (const name of BULK_INDEXES) this.db.exec(`DROP INDEX IF EXISTS ${name}`);
    // Derived data built from scratch: skip syncs (only a power cut can lose them, and the run
    // marker then makes the next run redo the work), and write pages once: a WAL writes them
    // twice (log, then checkpoint). A rollback journal on disk, not in memory: pages appended
    // to the file are not journaled, so it costs little, and a killed process leaves a
    // database SQLite rolls back to the last commit instead of a corrupt one. Another process
    // holding the index open keeps it in WAL mode, which is only slower.
    this.db.pragma('synchronous = OFF');
    try {
      this.db.pragma('journal_mode = TRUNCATE');
    } catch {
      /* stays in WAL */
    }
    this.db.pragma('wal_autocheckpoint = 0');
    // Rows are appended (the indexes kept grow at their ends): a small cache writes them as fast,
    // and the 16 MB one filled with dirty pages on top of the run's peak (stdlib: 315 → 300 MB).
    this.db.pragma(`cache_size = -${BULK_CACHE_KIB}`);
    const eids = new Map<string, number>();
    for (const r of this.s.entityEids.iterate() as IterableIterator<{ id: string; eid: number }>) eids.set(r.id, r.eid);
    this.bulk = { eids, lexicalFrom: this.maxEid() + 1 };
  }

  /** Between `beginBulkLoad` and `endBulkLoad`. */
  get inBulkLoad(): boolean {
    return this.bulk !== null;
  }

  /** Ends a bulk load: the rest of the lexical index, then the indexes. Returns the milliseconds of the lexical fill. */
  endBulkLoad(): number {
    if (!this.bulk) return 0;
    const lexicalMs = this.transaction(() => this.fillLexical());
    this.bulk = null;
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
    return lexicalMs;
  }

  /** Opens a transaction that spans awaits; `transaction()` calls inside it become savepoints. */
  beginLong(): void {
    if (!this.db.inTransaction) this.db.exec(this.db.readonly ? 'BEGIN' : 'BEGIN IMMEDIATE');
  }

  /** Returns the milliseconds of the lexical fill (a bulk load's) it did first. */
  commitLong(): number {
    if (!this.db.inTransaction) return 0;
    const lexicalMs = this.bulk ? this.fillLexical() : 0;
    this.db.exec('COMMIT');
    return lexicalMs;
  }

  /**
   * Bulk load: indexes for search the entities written since the last fill, in one statement
   * outside any savepoint. (FTS5 writes a segment at every savepoint, so a row at a time per
   * batch makes both the load and the later merges several times slower.)
   */
  private fillLexical(): number {
    const t = performance.now();
    const bulk = this.bulk!;
    this.s.ftsFill.run(bulk.lexicalFrom);
    this.lexicalWrite(null);
    bulk.lexicalFrom = Math.max(bulk.lexicalFrom, this.maxEid() + 1);
    return performance.now() - t;
  }

  private maxEid(): number {
    return (this.s.maxEid.get() as { n: number }).n;
  }

  transaction<T>(fn: () => T): T {
    try {
      // IMMEDIATE: the write lock is taken (or waited for) at BEGIN. A deferred transaction that
      // reads first cannot wait at its first write if another process committed meanwhile
      // (WAL answers SQLITE_BUSY at once), which failed a second writer as "the index is busy".
      // Inside a transaction this is a savepoint either way.
      const tx = this.db.transaction(fn);
      return (this.db.readonly ? tx : tx.immediate)();
    } catch (e) {
      this.last = null; // rolled back: the cached rows may not be what the file holds
      throw e;
    }
  }

  /** A write transaction that takes the write lock at once (for claims that must not race). */
  immediate<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  // --- meta (facts about the index itself) ---------------------------------------------------

  meta(key: string): string | null {
    return (this.s.metaGet.get(key) as { value: string } | undefined)?.value ?? null;
  }

  setMeta(key: string, value: string | null): void {
    if (value === null) this.s.metaDelete.run(key);
    else this.s.metaSet.run(key, value);
  }

  /**
   * Counts the writes that may have changed entity rows (every method that writes them bumps it,
   * in the caller's transaction): a record made at one count holds while the count has not
   * moved, in any process (embed/complete.ts).
   */
  entityGeneration(): number {
    return Number(this.meta('entity_generation') ?? 0);
  }

  /** How many of the generation's bumps this connection made (rolled-back ones included). */
  ownGenerationBumps(): number {
    return this.ownGenerations;
  }

  private bumpGeneration(): void {
    this.ownGenerations++;
    this.s.bumpEntityGeneration.run();
  }

  private lexicalWrite(eid: number | null): void {
    for (const f of this.lexicalWritten) f(eid);
  }

  // --- files -------------------------------------------------------------------------------

  file(path: string): FileRow | undefined {
    return this.s.fileByPath.get(path) as FileRow | undefined;
  }

  files(): FileRow[] {
    return this.s.allFiles.all() as FileRow[];
  }

  /** Every file's stamp by path, in path order: read by every index run and freshness check. */
  fileStamps(): Map<string, FileStamp> {
    const out = new Map<string, FileStamp>();
    for (const [fid, path, hash, size, mtimeMs] of this.s.fileStamps.all() as Array<[number, string, string, number, number]>) out.set(path, { fid, hash, size, mtimeMs });
    return out;
  }

  touchFile(fid: number, mtimeMs: number, size: number): void {
    this.s.touchFile.run(mtimeMs, size, fid);
  }

  /**
   * During a bulk load, writes a file the index does not hold yet with plain inserts (no
   * diffing, no lookups). Returns null when the file is already there: use `replaceFile`.
   */
  insertFile(meta: FileMeta, ex: FileExtraction): ReplaceResult | null {
    this.bumpGeneration();
    const bulk = this.bulk;
    if (!bulk || this.s.fileByPath.get(meta.path)) return null;
    // An id already held (elsewhere, or twice in this file) is for the upserts to sort out. Told
    // from the run's id map, not by a failed insert: a savepoint per file to roll one back costs
    // more than the inserts.
    const ids = new Set<string>();
    for (const e of ex.entities) {
      if (bulk.eids.has(e.id) || ids.has(e.id)) return null;
      ids.add(e.id);
    }
    return this.insertNewFile(bulk, meta, ex);
  }

  private insertNewFile(bulk: NonNullable<Store['bulk']>, meta: FileMeta, ex: FileExtraction): ReplaceResult {
    const fid = Number(this.s.insertFile.run(meta.path, meta.language, meta.module, meta.hash, meta.size, meta.mtimeMs, ex.syntaxErrors).lastInsertRowid);
    const eids = new Map<string, number>();
    for (const e of ex.entities) {
      const eid = Number(this.s.insertEntity.run(entityParams(e, fid)).lastInsertRowid);
      eids.set(e.id, eid);
      bulk.eids.set(e.id, eid);
    }
    const refs: Array<{ rid: number; ref: RawRef }> = [];
    for (const ref of ex.refs) {
      const src = eids.get(ref.from);
      if (src !== undefined) refs.push({ rid: this.insertRef(fid, src, ref), ref });
    }
    this.insertBindings(fid, ex);
    return { fid, refs, kept: [], removedIds: [], orphaned: [] };
  }

  /**
   * Brings the rows of one file in line with a fresh extraction, touching only what changed:
   * entities are upserted by id (an entity keeps its eid, and its embedding, across edits) and
   * re-indexed for search only when their text changed; a reference that is still there keeps
   * its row and its edges (only its position is updated). Returns the new references (to be
   * resolved), the kept ones, and the ids that disappeared.
   */
  replaceFile(meta: FileMeta, ex: FileExtraction): ReplaceResult {
    this.bumpGeneration();
    const isNew = !this.s.fileByPath.get(meta.path);
    const { fid } = this.s.upsertFile.get({ ...meta, syntaxErrors: ex.syntaxErrors }) as { fid: number };
    const cached = this.last?.fid === fid ? this.last : null;
    this.last = null;
    const old = new Map<string, OldEntity>();
    if (!isNew) for (const r of cached ? cached.entities : (this.s.entitiesOfFid.all(fid) as OldEntity[])) old.set(r.id, r);
    const nowEntities: OldEntity[] = [];
    const words = pathWords(meta.path);
    const eids = new Map<string, number>();
    for (const e of ex.entities) {
      const params = entityParams(e, fid, this.hashMemo);
      const prev = old.get(e.id);
      if (prev) old.delete(e.id);
      if (prev && sameEntity(prev, params)) {
        eids.set(e.id, prev.eid);
        nowEntities.push(prev);
        continue;
      }
      if (prev && prev.content_hash !== params.contentHash) {
        this.s.ftsDelete.run(prev.eid);
        this.lexicalWrite(prev.eid);
      }
      const { eid } = this.s.upsertEntity.get(params) as { eid: number };
      eids.set(e.id, eid);
      this.bulk?.eids.set(e.id, eid);
      nowEntities.push({ eid, id: e.id, kind: params.kind, name: params.name, qname: params.qname, parent: params.parent, sr: params.sr, sc: params.sc, er: params.er, ec: params.ec, nsr: params.nsr, nsc: params.nsc, ner: params.ner, nec: params.nec, content_hash: params.contentHash });
      // During a bulk load, rows above the watermark are indexed for search at the next commit.
      if ((!this.bulk || eid < this.bulk.lexicalFrom) && (!prev || prev.content_hash !== params.contentHash)) {
        this.s.ftsInsert.run(eid, e.name, splitIdentifier(e.qname), e.signature, e.docstring ?? '', words, e.body, e.literals ?? '');
        this.lexicalWrite(eid);
      }
    }
    const removedIds: string[] = [];
    const orphaned: number[] = [];
    for (const [id, o] of old) {
      this.removeEntity(o.eid, orphaned);
      this.bulk?.eids.delete(id);
      removedIds.push(id);
    }
    const refs: Array<{ rid: number; ref: RawRef }> = [];
    const kept: number[] = [];
    const nowRefs: OldRef[] = [];
    // Old references by what they say (not where): a match keeps its row and edges.
    const previous = new StoredRefs();
    if (!isNew) {
      for (const r of cached ? cached.refs : (this.s.refsOfFid.all(fid) as OldRef[])) previous.add(r);
      this.s.deleteImportsOfFile.run(fid);
      this.s.deleteAttrTypesOfFile.run(fid);
      this.s.deleteCallArgsOfFile.run(fid);
      this.s.deleteSkeleton.run(fid);
    }
    for (const ref of ex.refs) {
      const src = eids.get(ref.from);
      if (src === undefined) continue;
      const v = refValues(ref);
      const match = previous.take(src, ref.relation, ref.target, v);
      const sp = ref.span;
      if (match) {
        if (match.sr !== sp.start.row || match.sc !== sp.start.column || match.er !== sp.end.row || match.ec !== sp.end.column) {
          this.s.moveRef.run(sp.start.row, sp.start.column, sp.end.row, sp.end.column, match.rid);
        }
        kept.push(match.rid);
        // The row is this file's alone (read for this call, or the cache this call replaces).
        match.sr = sp.start.row;
        match.sc = sp.start.column;
        match.er = sp.end.row;
        match.ec = sp.end.column;
        nowRefs.push(match);
      } else {
        const rid = this.insertRef(fid, src, ref);
        refs.push({ rid, ref });
        nowRefs.push({ rid, src, relation: ref.relation, target: ref.target, ...refColumns(v), sr: sp.start.row, sc: sp.start.column, er: sp.end.row, ec: sp.end.column });
      }
    }
    for (const r of previous.rest()) {
      this.s.deleteEdgesOfRef.run(r.rid);
      this.s.deleteRef.run(r.rid);
    }
    this.insertBindings(fid, ex);
    if (!this.bulk) this.last = { fid, entities: nowEntities, refs: nowRefs };
    return { fid, refs, kept, removedIds, orphaned };
  }

  private insertBindings(fid: number, ex: FileExtraction): void {
    for (const b of ex.imports) {
      const s = b.span;
      this.s.insertImport.run(fid, b.from, b.local, b.module, b.member, s.start.row, s.start.column, s.end.row, s.end.column);
    }
    for (const a of ex.attrTypes) this.s.insertAttrType.run(fid, a.cls, a.attr, a.type);
    const calls = ex.callArgs ?? [];
    if (calls.length > 0) {
      const rows: CallArgsTuple[] = calls.map((c) => [c.from, c.target, c.receiver ? c.receiver.kind : null, c.receiver?.kind === 'typed' ? c.receiver.type : null, c.args]);
      this.s.insertCallArgs.run(fid, encodeCallArgs(rows));
    }
  }

  /** Moves the rows of a file's entities and references below `afterRow` by `delta` lines. */
  shiftRows(path: string, afterRow: number, delta: number): void {
    const f = this.file(path);
    if (!f) return;
    const p = { fid: f.fid, row: afterRow, d: delta };
    this.s.shiftEntities.run(p);
    this.s.shiftRefs.run(p);
    if (this.last?.fid === f.fid) {
      const move = (r: number) => (r > afterRow ? r + delta : r);
      for (const e of this.last.entities) {
        if (e.er <= afterRow) continue;
        e.sr = move(e.sr);
        e.er += delta;
        e.nsr = move(e.nsr);
        e.ner = move(e.ner);
      }
      for (const r of this.last.refs) {
        if (r.er <= afterRow) continue;
        r.sr = move(r.sr);
        r.er += delta;
      }
    }
  }

  /** Kept references of a file with what resolution needs (after a change of its imports). */
  refsByRid(rids: number[]): RefDbRow[] {
    return rids.map((rid) => this.s.refByRid.get(rid) as RefDbRow).filter((r) => !!r);
  }

  private insertRef(fid: number, src: number, r: RawRef): number {
    const v = refValues(r);
    const s = r.span;
    // Environment keys and file paths are names whole; `settings.DEBUG` ends in `DEBUG`, like a call.
    const last = r.relation === 'READS_CONFIG' && (r.configKind === 'env' || r.configKind === 'file') ? r.target : lastSegment(r.target);
    const info = this.s.insertRef.run(fid, src, r.relation, r.target, last, v.receiver, v.rtype, v.configKind, v.catches, v.reraise, v.access, s.start.row, s.start.column, s.end.row, s.end.column);
    return Number(info.lastInsertRowid);
  }

  /**
   * An entity goes, and with it the edges into it (eids are never reused, so they would dangle
   * forever); the references those edges came from are collected in `orphaned` to be resolved again.
   */
  private removeEntity(eid: number, orphaned: number[]): void {
    this.s.ftsDelete.run(eid);
    this.lexicalWrite(eid);
    this.s.deleteEntity.run(eid);
    for (const r of this.s.refsIntoEid.all(eid) as Array<{ rid: number }>) orphaned.push(r.rid);
    this.s.deleteEdgesIntoEid.run(eid);
  }

  /** Deletes a file and all it contributed; returns the entity ids that went with it. */
  deleteFile(path: string): DeleteResult {
    this.bumpGeneration();
    const f = this.file(path);
    if (!f) return { removedIds: [], orphaned: [] };
    if (this.last?.fid === f.fid) this.last = null;
    const removed: string[] = [];
    const orphaned: number[] = [];
    for (const r of this.s.entityIdsOfFile.all(f.fid) as Array<{ eid: number; id: string }>) {
      this.removeEntity(r.eid, orphaned);
      this.bulk?.eids.delete(r.id);
      removed.push(r.id);
    }
    this.s.deleteEdgesOfFile.run(f.fid);
    this.s.deleteRefsOfFile.run(f.fid);
    this.s.deleteImportsOfFile.run(f.fid);
    this.s.deleteAttrTypesOfFile.run(f.fid);
    this.s.deleteCallArgsOfFile.run(f.fid);
    this.s.deleteSkeleton.run(f.fid);
    this.s.deleteFile.run(f.fid);
    return { removedIds: removed, orphaned };
  }

  // --- edges -------------------------------------------------------------------------------

  setEdges(rid: number, targets: ResolvedTarget[]): void {
    this.s.deleteEdgesOfRef.run(rid);
    this.insertEdges(rid, targets);
  }

  insertEdges(rid: number, targets: ResolvedTarget[]): void {
    for (const t of targets) {
      const dst = this.bulk?.eids.get(t.target);
      const dispatch = t.dispatch ? 1 : 0;
      if (dst !== undefined) this.s.insertEdgeEid.run(rid, dst, t.ambiguous ? 1 : 0, t.caught ? 1 : 0, dispatch);
      else this.s.insertEdge.run(rid, t.ambiguous ? 1 : 0, t.caught ? 1 : 0, dispatch, t.target);
    }
  }

  /** Config and file targets are entities without a file, created on first use. */
  ensureVirtualEntity(id: string, kind: 'config' | 'file', name: string): void {
    this.bumpGeneration();
    this.s.upsertVirtual.run(id, kind, name, name, kind === 'config' ? `config ${name}` : `file ${name}`);
  }

  pruneVirtualEntities(): void {
    this.s.pruneVirtual.run();
  }

  // --- reads -------------------------------------------------------------------------------

  entity(id: string): EntityDbRow | undefined {
    return this.s.entityById.get(id) as EntityDbRow | undefined;
  }

  entityByEid(eid: number): EntityDbRow | undefined {
    return this.s.entityByEid.get(eid) as EntityDbRow | undefined;
  }

  /** `entityByEid` of many in one statement (search's candidates: a few hundred). */
  entitiesByEid(eids: readonly number[]): Map<number, EntityDbRow> {
    return new Map((this.s.entitiesByEid.all(JSON.stringify(eids)) as EntityDbRow[]).map((r) => [r.eid, r]));
  }

  /** What search ranking reads beyond an entity's row: its body words and how many entities call it. */
  rankingFacts(eids: readonly number[]): Map<number, RankingFacts> {
    const rows = this.s.rankingFacts.all(JSON.stringify(eids)) as Array<RankingFacts & { eid: number }>;
    return new Map(rows.map(({ eid, ...facts }) => [eid, facts]));
  }

  entitiesOfFile(path: string): EntityDbRow[] {
    return this.s.entitiesOfPath.all(path) as EntityDbRow[];
  }

  entitiesNamed(name: string): EntityDbRow[] {
    return this.s.entitiesByName.all(name) as EntityDbRow[];
  }

  /** Code entities whose qualified name is `qname` (`Flask.wsgi_app`), in id order (at most 20). */
  entitiesWithQname(qname: string): EntityDbRow[] {
    return this.s.entitiesByQname.all(qname.slice(qname.lastIndexOf('.') + 1), qname) as EntityDbRow[];
  }

  /** Ids matching a SQL LIKE pattern (for suggestions). */
  idsLike(pattern: string): string[] {
    return (this.s.idsLike.all(pattern) as Array<{ id: string }>).map((r) => r.id);
  }

  /**
   * What the symbol model holds of each file (entities, import bindings, attribute types), file
   * by file in path order (the order of `files()`): SQLite gathers a file's rows into one JSON
   * array per table, which parses in a fraction of the time that reading the rows one by one into
   * JS takes, and only one file's rows are in the heap at a time. (No other statement may run on
   * this connection until the loop ends.) From the file after path `after` on, `limit` files
   * (all when negative): the model can be read a slice at a time.
   */
  *modelRows(after = '', limit = -1): Generator<[fid: number, rows: ModelFileRows]> {
    for (const row of this.s.modelRows.iterate(after, limit) as IterableIterator<ModelRowsJson>) yield [row[0], parseModelRows(row)];
  }

  /** One file's call sites with argument types (none when it has no row). */
  callArgsOf(path: string): CallArgsTuple[] {
    const json = this.s.callArgsOfPath.get(path) as string | undefined;
    return json ? decodeCallArgs(json) : [];
  }

  /** Files with a reference whose last segment is `last`, of any relation. */
  pathsReferring(last: string): string[] {
    return this.s.pathsReferring.all(last) as string[];
  }

  /** Files whose import statements may bind the module or package named `name` (its last segment). */
  pathsImportingName(name: string): string[] {
    return (this.s.pathsImportingName.all({ n: name }) as Array<{ path: string }>).map((r) => r.path);
  }

  /**
   * `pathsImportingName` of each of `names`, together. Each name is a scan of the imports (its
   * patterns cannot use an index); past a few names, one scan tests every row against them all
   * (an index run that adds a thousand files asks for a thousand names).
   */
  pathsImportingNames(names: Iterable<string>): string[] {
    const list = [...new Set(names)];
    if (list.length <= 2) return [...new Set(list.flatMap((n) => this.pathsImportingName(n)))];
    // LIKE compares ASCII letters without case; so does this.
    const wanted = new Set(list.map((n) => n.toLowerCase()));
    const out = new Set<string>();
    for (const [path, member, module] of this.s.importedNames.iterate() as IterableIterator<[string, string | null, string]>) {
      if (out.has(path)) continue;
      if ((member !== null && wanted.has(member.toLowerCase())) || namesModule(module.toLowerCase(), wanted)) out.add(path);
    }
    return [...out];
  }

    /**
   * The typed references whose receiver type has one of `names` as a word (`\w+`): `Repo` is in
   * `call:Repo`, not in `call:RepoView`. Every edit that moves a name asks. One name: a scan of
   * the typed refs' index (~4 ms on the stdlib's 69K typed refs, 13 ms on site-packages' 220K).
   * More: each distinct type (8K; 31K) is tested here once and its refs read back by the index,
   * ~6–8 and 33–54 ms whatever the count (a scan per name took 37 and 124 ms for ten names).
   */
  typedRefsMentioning(names: string[]): Array<{ rid: number; rtype: string }> {
    if (!names.length) return [];
    const wanted = new Set(names);
    if (wanted.size === 1) {
      const out = new Map<number, string>();
      for (const n of wanted) for (const r of this.s.typedRefsMentioningOne.all(n) as Array<{ rid: number; rtype: string }>) if (hasWordOf(r.rtype, wanted)) out.set(r.rid, r.rtype);
      return [...out].map(([rid, rtype]) => ({ rid, rtype }));
    }
    const types = (this.s.refTypes.all() as string[]).filter((t) => hasWordOf(t, wanted));
    return types.length ? (this.s.refsOfTypes.all(JSON.stringify(types)) as Array<{ rid: number; rtype: string }>) : [];
  }

  /** Local names that imports give `name` (`from m import name as local`). */
  aliasesOf(name: string): string[] {
    return (this.s.aliasesOfMember.all(name) as Array<{ local: string }>).map((r) => r.local);
  }

  /** Files below a directory (workspace-relative, no trailing `/`). */
  pathsUnder(dir: string): string[] {
    return (this.s.pathsUnder.all({ dir }) as Array<{ path: string }>).map((r) => r.path);
  }

  refsOfFile(path: string): RefDbRow[] {
    return this.s.refsOfPath.all(path) as RefDbRow[];
  }

  /** What the CALLS references of `path` resolve to (entity ids), by the callee's last segment; only those of `names` when given. */
  callTargetsOfFile(path: string, names?: ReadonlySet<string> | null): Map<string, string[]> {
    const out = new Map<string, string[]>();
    if (names && !names.size) return out;
    const rows = names ? this.s.callTargetsOfPathNamed.all(path, JSON.stringify([...names])) : this.s.callTargetsOfPath.all(path);
    for (const r of rows as Array<{ last: string; id: string }>) {
      const l = out.get(r.last);
      if (l) l.push(r.id);
      else out.set(r.last, [r.id]);
    }
    return out;
  }

  /** The refs of `path` whose receiver type goes through a parameter typed by its callers (`param:`). */
  paramTypedRefsOfFile(path: string): RefDbRow[] {
    return this.s.paramTypedRefsOfPath.all(path) as RefDbRow[];
  }

  allRefs(): RefDbRow[] {
    return this.s.allRefs.all() as RefDbRow[];
  }

  /**
   * Entity ids by eid. A bulk load holds them already (the same strings, no query): an array
   * indexed by eid, as eids of a first index are dense.
   */
  private entityIdsByEid(): { get(eid: number): string | undefined } {
    if (!this.bulk) return new Map(this.s.eidIds.all() as Array<[number, string]>);
    const ids: string[] = [];
    for (const [id, eid] of this.bulk.eids) ids[eid] = id;
    return { get: (eid) => ids[eid] ?? (this.s.idOfEid.get(eid) as string | undefined) };
  }

  /**
   * Every reference with what resolution reads, in rid order, `chunk` at a time (a large index
   * is never in memory whole). Paths and source ids come from maps, not joins: a join per row
   * made the read three times slower.
   */
  *refChunks(chunk: number): Generator<RefResolveRow[]> {
    const paths = new Map(this.s.fidPaths.all() as Array<[number, string]>);
    const ids = this.entityIdsByEid();
    let last = 0;
    for (;;) {
      const rows = this.s.refsAfterRid.all(last, chunk) as Array<[number, number, number, Relation, string, ReceiverKind | null, string | null, ConfigKind | null, string | null, number]>;
      if (!rows.length) return;
      const out: RefResolveRow[] = [];
      for (const [rid, fid, src, relation, target, receiver, rtype, config_kind, catches, access] of rows) {
        const path = paths.get(fid);
        const source = ids.get(src);
        if (path !== undefined && source !== undefined) out.push({ rid, path, source, relation, target, receiver, rtype, config_kind, catches, access });
      }
      yield out;
      last = rows[rows.length - 1][0];
      if (rows.length < chunk) return;
    }
  }

  /** The CALLS, INHERITS and IMPORTS edges from one of `ids` to another, as [source, target] ids. */
  /** Entities (eids) that raise the exception class `eid` where it is not caught, at most `limit`. */
  raisersOf(eid: number, limit: number): number[] {
    return this.s.raisers.all(eid, limit) as number[];
  }

  linksAmong(ids: readonly string[]): Array<[string, string]> {
    return this.s.linksAmong.all({ ids: JSON.stringify(ids) }) as Array<[string, string]>;
  }

  /** What the calls ending in `last` resolve to now (entity ids), wherever they are. */
  callTargetsNamed(last: string): string[] {
    return this.s.callTargetsNamed.all(last) as string[];
  }

  refsWithLast(last: string): RefDbRow[] {
    return this.s.refsByLast.all(last) as RefDbRow[];
  }

  refsResolvedTo(target: string): RefDbRow[] {
    return this.s.refsToTarget.all(target) as RefDbRow[];
  }

  outgoing(source: string): RefEdgeDbRow[] {
    return this.s.outgoing.all(source) as RefEdgeDbRow[];
  }

  incoming(target: string): RefEdgeDbRow[] {
    return this.s.incoming.all(target) as RefEdgeDbRow[];
  }

  /** Unresolved refs whose last segment is `name` ("who calls foo" when foo is unknown). */
  incomingByName(name: string): RefEdgeDbRow[] {
    return this.s.incomingByName.all(name) as RefEdgeDbRow[];
  }

  counts(): { files: number; entities: number; edges: number } {
    const n = (st: { get(): unknown }) => (st.get() as { n: number }).n;
    return { files: n(this.s.countFiles), entities: n(this.s.countEntities), edges: n(this.s.countEdges) };
  }

  /** References in the index, resolved or not. */
  refCount(): number {
    return (this.s.countRefs.get() as { n: number }).n;
  }

  /**
   * How many rids lie between the first reference and the last: their count where none was
   * deleted (a first index), more otherwise. Two lookups, where counting reads every row
   * (site-packages' 1.5M: 3.6 s with the pages not cached).
   */
  refRidSpan(): number {
    return (this.s.refRidSpan.get() as { n: number }).n;
  }

  kindCounts(): Record<string, number> {
    return Object.fromEntries((this.s.entityKindCounts.all() as Array<{ kind: string; n: number }>).map((r) => [r.kind, r.n]));
  }

  /** Dispatch edges ("may call" an override); `relationCounts` counts the others. */
  dispatchCount(): number {
    return (this.s.countDispatchEdges.get() as { n: number }).n;
  }

  relationCounts(): Record<string, number> {
    return Object.fromEntries((this.s.edgeRelationCounts.all() as Array<{ relation: string; n: number }>).map((r) => [r.relation, r.n]));
  }

  unresolvedCount(): number {
    return (this.s.unresolvedCount.get() as { n: number }).n;
  }

  skeleton(path: string): { hash: string; json: string } | undefined {
    return this.s.skeletonGet.get(path) as { hash: string; json: string } | undefined;
  }

  putSkeleton(path: string, hash: string, json: string): void {
    this.s.skeletonPut.run(path, hash, json);
  }
}

/**
 * Does an import of `module` name one of `names` the way `pathsImportingName`'s patterns do: as
 * the whole module, a dotted segment, or a path's last part (`./models`, `./models/index`)?
 */
function namesModule(module: string, names: ReadonlySet<string>): boolean {
  if (names.has(module)) return true;
  for (const part of module.split(/[./]/)) if (part && names.has(part)) return true;
  return false;
}

type ModelRowsJson = [fid: number, entities: string, imports: string, attrTypes: string];

function parseModelRows([, entities, imports, attrTypes]: ModelRowsJson): ModelFileRows {
  return { entities: written(JSON.parse(entities) as EntityLiteTuple[]), imports: written(JSON.parse(imports) as ImportTuple[]), attrTypes: written(JSON.parse(attrTypes) as AttrTypeTuple[]) };
}

/** Rows in the order they were written: by the rowid each ends in (already so, unless SQLite read them another way). */
function written<T extends Array<unknown>>(rows: T[]): T[] {
  const order = (r: T) => r[r.length - 1] as number;
  for (let i = 1; i < rows.length; i++) if (order(rows[i - 1]) > order(rows[i])) return rows.sort((a, b) => order(a) - order(b));
  return rows;
}

/**
 * Does `text` hold one of `words` as a whole `\w+` word? A few words are looked for with
 * indexOf (native, no allocation); many, by splitting `text` into its words.
 */
function hasWordOf(text: string, words: ReadonlySet<string>): boolean {
  if (words.size > 16) {
    for (const w of text.match(WORD) ?? []) if (words.has(w)) return true;
    return false;
  }
  for (const w of words) {
    for (let i = text.indexOf(w); i >= 0; i = text.indexOf(w, i + 1)) {
      if (!isWordChar(text.charCodeAt(i - 1)) && !isWordChar(text.charCodeAt(i + w.length))) return true;
    }
  }
  return false;
}
const WORD = /\w+/g;

/** `\w` of a char code (NaN, outside the text: no). */
function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
