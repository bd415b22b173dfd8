// All SQL for files, entities, refs, edges, imports and attribute types (DESIGN invariant 2),
// behind the one object the rest of the engine holds. Statements are prepared once; writes happen
// inside transactions opened by the caller through `transaction()`, so an index run commits in
// batches and a crash loses nothing already committed. What takes more than a statement or two
// lives in the parts Store composes: a file's writes (file-writer.ts), a first index's bulk load
// (bulk-load.ts) and the queries of resolution and invalidation (resolution-queries.ts).
import type { FileExtraction } from '../languages/types';
import { BulkLoad } from './bulk-load';
import type { Db } from './db';
import { FileWriter, type DeleteResult, type FileMeta, type ReplaceResult } from './file-writer';
import type { CallArgsTuple, EntityDbRow, FileRow, FileStamp, ModelFileRows, RefDbRow, RefEdgeDbRow, RefResolveRow } from './read-rows';
import { ResolutionQueries } from './resolution-queries';
import { prepareStatements, type Statements } from './statements';
import { splitIdentifier } from './words';
import { pathWords } from './write-rows';

export type { DeleteResult, FileMeta, ReplaceResult } from './file-writer';

export interface ResolvedTarget {
  target: string;
  ambiguous: boolean;
  caught: boolean;
  /** A dispatch edge: an override the call may reach, not the method it names. */
  dispatch?: boolean;
}

export interface RankingFacts {
  body: string;
  callers: number;
}

/** What `Store.unchanged` keeps, and the change key it was read at. */
interface Unchanged {
  key?: string;
  stamps?: ReadonlyMap<string, FileStamp>;
  counts?: { files: number; entities: number; edges: number };
}

export class Store {
  private readonly s: Statements;
  /** Set between `beginBulkLoad` and `endBulkLoad`. */
  private bulk: BulkLoad | null = null;
  private readonly writer: FileWriter;
  private readonly resolution: ResolutionQueries;
  /** `entity_generation` bumps this connection made (so a reader can tell whether another process wrote). */
  private ownGenerations = 0;
  /**
   * Told of this connection's writes to the lexical index: the entity whose row was written or
   * deleted, or `null` for many at once (a bulk fill). search/common-terms.ts keeps scores read
   * from it.
   */
  readonly lexicalWritten = new Set<(eid: number | null) => void>();
  private kept: Unchanged = {};

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
    this.resolution = new ResolutionQueries(this.s, db);
    this.writer = new FileWriter(
      this.s,
      (eid) => this.lexicalWrite(eid),
      (rtype) => this.resolution.typeWritten(rtype),
    );
  }

  // --- bulk load (bulk-load.ts) ------------------------------------------------------------

  /** Before loading many files into an empty index (`BulkLoad.begin`). */
  beginBulkLoad(): void {
    this.bulk = BulkLoad.begin(this.db, this.s, (eid) => this.lexicalWrite(eid));
  }

  /** Between `beginBulkLoad` and `endBulkLoad`. */
  get inBulkLoad(): boolean {
    return this.bulk !== null;
  }

  /** Ends a bulk load: the rest of the lexical index, then the indexes. Returns the milliseconds of the lexical fill. */
  endBulkLoad(): number {
    const bulk = this.bulk;
    if (!bulk) return 0;
    const lexicalMs = this.transaction(() => bulk.fillLexical());
    this.bulk = null;
    bulk.end();
    return lexicalMs;
  }

  // --- transactions ------------------------------------------------------------------------

  /** Opens a transaction that spans awaits; `transaction()` calls inside it become savepoints. */
  beginLong(): void {
    if (!this.db.inTransaction) this.db.exec(this.db.readonly ? 'BEGIN' : 'BEGIN IMMEDIATE');
  }

  /** Returns the milliseconds of the lexical fill (a bulk load's) it did first. */
  commitLong(): number {
    if (!this.db.inTransaction) return 0;
    const lexicalMs = this.bulk ? this.bulk.fillLexical() : 0;
    this.db.exec('COMMIT');
    return lexicalMs;
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
      this.writer.forget();
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
  /**
   * Every file's stamp, by path. Kept while nothing is written (`unchanged`): every index
   * run and up-to-date check reads them (site-packages: 17K files, ~33 ms).
   */
  fileStamps(): ReadonlyMap<string, FileStamp> {
    return this.unchanged('stamps', () => {
      const out = new Map<string, FileStamp>();
      for (const [fid, path, hash, size, mtimeMs] of this.s.fileStamps.all() as Array<[number, string, string, number, number]>) out.set(path, { fid, hash, size, mtimeMs });
      return out;
    });
  }

  touchFile(fid: number, mtimeMs: number, size: number): void {
    this.s.touchFile.run(mtimeMs, size, fid);
  }

  // --- file writes (file-writer.ts): each bumps the entity generation first ------------------

  insertFile(meta: FileMeta, ex: FileExtraction): ReplaceResult | null {
    this.bumpGeneration();
    return this.writer.insertFile(meta, ex, this.bulk);
  }

  replaceFile(meta: FileMeta, ex: FileExtraction): ReplaceResult {
    this.bumpGeneration();
    return this.writer.replaceFile(meta, ex, this.bulk);
  }

  shiftRows(path: string, afterRow: number, delta: number): void {
    const f = this.file(path);
    if (f) this.writer.shiftRows(f.fid, afterRow, delta);
  }

  deleteFile(path: string): DeleteResult {
    this.bumpGeneration();
    const f = this.file(path);
    return f ? this.writer.deleteFile(f.fid, this.bulk) : { removedIds: [], orphaned: [] };
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

  /** `entitiesWithQname` in files whose path holds `folder` (`requests/api`: a dotted name's module, as a path). */
  entitiesWithQnameUnder(qname: string, folder: string): EntityDbRow[] {
    const like = `%${folder.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.s.entitiesByQnameUnder.all(qname.slice(qname.lastIndexOf('.') + 1), qname, like) as EntityDbRow[];
  }

  /** Ids of entities whose name starts with `prefix` (for suggestions; by the name index). */
  idsNamedFrom(prefix: string): string[] {
    return (this.s.idsNamedFrom.all(prefix, `${prefix}\uffff`) as Array<{ id: string }>).map((r) => r.id);
  }

  /** Ids matching a SQL LIKE pattern (for suggestions). */
  idsLike(pattern: string): string[] {
    return (this.s.idsLike.all(pattern) as Array<{ id: string }>).map((r) => r.id);
  }

  // --- what resolution and invalidation ask (resolution-queries.ts) --------------------------

  modelRows(after?: string, limit?: number): Generator<[fid: number, rows: ModelFileRows]> {
    return this.resolution.modelRows(after, limit);
  }

  /** `modelRows` of every file after `after`, read by another thread (null when it cannot be). */
  modelRowsFromReader(after?: string): Generator<[fid: number, rows: ModelFileRows]> | null {
    return this.resolution.modelRowsFromReader(after);
  }

  callArgsOf(path: string): CallArgsTuple[] {
    return this.resolution.callArgsOf(path);
  }

  callArgsNamed(path: string, name: string): CallArgsTuple[] {
    return this.resolution.callArgsNamed(path, name);
  }

  pathsReferring(last: string): string[] {
    return this.resolution.pathsReferring(last);
  }

  pathsImportingName(name: string): string[] {
    return this.resolution.pathsImportingName(name);
  }

  pathsImportingNames(names: Iterable<string>): string[] {
    return this.resolution.pathsImportingNames(names);
  }

  typedRefsMentioning(names: string[]): Array<{ rid: number; rtype: string }> {
    return this.resolution.typedRefsMentioning(names);
  }

  aliasesOf(name: string): string[] {
    return this.resolution.aliasesOf(name);
  }

  pathsUnder(dir: string): string[] {
    return this.resolution.pathsUnder(dir);
  }

  refsOfFile(path: string): RefDbRow[] {
    return this.resolution.refsOfFile(path);
  }

  callTargetsOfFile(path: string, names?: ReadonlySet<string> | null): Map<string, string[]> {
    return this.resolution.callTargetsOfFile(path, names);
  }

  paramTypedRefsOfFile(path: string): RefDbRow[] {
    return this.resolution.paramTypedRefsOfFile(path);
  }

  allRefs(): RefDbRow[] {
    return this.resolution.allRefs();
  }

  refsByRid(rids: number[]): RefDbRow[] {
    return this.resolution.refsByRid(rids);
  }

  /** A generator itself: the bulk load is the one there at the first chunk, not at this call. */
  *refChunks(chunk: number): Generator<RefResolveRow[]> {
    yield* this.resolution.refChunks(chunk, this.bulk);
  }

  callTargetsNamed(last: string): string[] {
    return this.resolution.callTargetsNamed(last);
  }

  refsWithLast(last: string): RefDbRow[] {
    return this.resolution.refsWithLast(last);
  }

  // --- graph and index facts ----------------------------------------------------------------

  /** Entities (eids) that raise the exception class `eid` where it is not caught, at most `limit`. */
  raisersOf(eid: number, limit: number): number[] {
    return this.s.raisers.all(eid, limit) as number[];
  }

  /** The CALLS, INHERITS and IMPORTS edges from one of `ids` to another, as [source, target] ids. */
  linksAmong(ids: readonly string[]): Array<[string, string]> {
    return this.s.linksAmong.all({ ids: JSON.stringify(ids) }) as Array<[string, string]>;
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

  /** Files, entities and edges; kept while nothing is written (counting site-packages' 886K edges: ~13 ms a run). */
  counts(): { files: number; entities: number; edges: number } {
    const n = (st: { get(): unknown }) => (st.get() as { n: number }).n;
    return { ...this.unchanged('counts', () => ({ files: n(this.s.countFiles), entities: n(this.s.countEntities), edges: n(this.s.countEdges) })) };
  }

  /**
   * `read()`, or what it gave last time if nothing was written to the index since (the change
   * key, db.ts `CHANGE_KEY_SQL`). Never inside a transaction: what it reads there may yet be
   * rolled back.
   */
  private unchanged<K extends keyof Unchanged>(what: K, read: () => NonNullable<Unchanged[K]>): NonNullable<Unchanged[K]> {
    if (this.db.inTransaction) return read();
    const key = this.s.changeKey.get() as string;
    if (this.kept.key !== key) this.kept = { key };
    return (this.kept[what] ??= read());
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

  // --- cached skeletons --------------------------------------------------------------------

  skeleton(path: string): { hash: string; json: string } | undefined {
    return this.s.skeletonGet.get(path) as { hash: string; json: string } | undefined;
  }

  putSkeleton(path: string, hash: string, json: string): void {
    this.s.skeletonPut.run(path, hash, json);
  }
}
