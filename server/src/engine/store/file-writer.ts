// Writes of one file's rows: a bulk load's plain inserts, `replaceFile`'s diff against what the
// index holds, line shifts and deletion. The Store bumps the entity generation before each and
// passes its bulk load, if one is running; a rolled-back transaction calls `forget`.
import { lastSegment } from '../dotted';
import type { FileExtraction, RawRef } from '../languages/types';
import type { BulkLoad } from './bulk-load';
import { encodeCallArgs } from './call-args-row';
import type { CallArgsTuple } from './read-rows';
import type { Statements } from './statements';
import { splitIdentifier } from './words';
import { entityParams, pathWords, refColumns, refValues, sameEntity, StoredRefs, type HashMemo, type OldEntity, type OldRef } from './write-rows';

/** A file's call_args rows: callee name → the row's JSON (call-args-row.ts). */
type CallRows = Map<string, string>;

export interface FileMeta {
  path: string;
  language: string;
  module: string | null;
  hash: string;
  size: number;
  mtimeMs: number;
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

export class FileWriter {
  /**
   * The rows of the file written last, as replaceFile left them: a buffer being edited is
   * rewritten on every keystroke, and reading its rows back each time would cost more than
   * the write.
   */
  private last: { fid: number; entities: OldEntity[]; refs: OldRef[]; calls: CallRows } | null = null;
  /** Entities' last hashed content (write-rows.ts `HashMemo`): a buffer rewritten at each keystroke. */
  private readonly hashMemo: HashMemo = new Map();

  constructor(
    private readonly s: Statements,
    /** Told of each entity written to or deleted from the lexical index (Store `lexicalWritten`). */
    private readonly lexicalWrite: (eid: number | null) => void,
    /** Told of the receiver type of each typed reference written (ResolutionQueries `typeWritten`). */
    private readonly typeWritten: (rtype: string) => void,
  ) {}

  /** Rolled back: the cached rows may not be what the file holds. */
  forget(): void {
    this.last = null;
  }

  /**
   * During a bulk load, writes a file the index does not hold yet with plain inserts (no
   * diffing, no lookups). Returns null when the file is already there: use `replaceFile`.
   */
  insertFile(meta: FileMeta, ex: FileExtraction, bulk: BulkLoad | null): ReplaceResult | null {
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

  private insertNewFile(bulk: BulkLoad, meta: FileMeta, ex: FileExtraction): ReplaceResult {
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
    this.insertBindings(fid, meta.path, ex);
    return { fid, refs, kept: [], removedIds: [], orphaned: [] };
  }

  /**
   * Brings the rows of one file in line with a fresh extraction, touching only what changed:
   * entities are upserted by id (an entity keeps its eid, and its embedding, across edits) and
   * re-indexed for search only when their text changed; a reference that is still there keeps
   * its row and its edges (only its position is updated). Returns the new references (to be
   * resolved), the kept ones, and the ids that disappeared.
   */
  replaceFile(meta: FileMeta, ex: FileExtraction, bulk: BulkLoad | null): ReplaceResult {
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
      bulk?.eids.set(e.id, eid);
      nowEntities.push({ eid, id: e.id, kind: params.kind, name: params.name, qname: params.qname, parent: params.parent, sr: params.sr, sc: params.sc, er: params.er, ec: params.ec, nsr: params.nsr, nsc: params.nsc, ner: params.ner, nec: params.nec, content_hash: params.contentHash });
      // During a bulk load, rows above the watermark are indexed for search at the next commit.
      if ((!bulk || !bulk.fillsLater(eid)) && (!prev || prev.content_hash !== params.contentHash)) {
        this.s.ftsInsert.run(eid, e.name, splitIdentifier(e.qname), e.signature, e.docstring ?? '', words, e.body, e.literals ?? '');
        this.lexicalWrite(eid);
      }
    }
    const removedIds: string[] = [];
    const orphaned: number[] = [];
    for (const [id, o] of old) {
      this.removeEntity(o.eid, orphaned);
      bulk?.eids.delete(id);
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
    // A buffer edited at each keystroke changes the call sites of a name or two, not the file's
    // hundred rows: those that read the same stay.
    const calls = this.insertBindings(fid, meta.path, ex, isNew ? null : (cached?.calls ?? new Map(this.s.callArgsOfFid.all(fid) as Array<[string, string]>)));
    if (!bulk) this.last = { fid, entities: nowEntities, refs: nowRefs, calls };
    return { fid, refs, kept, removedIds, orphaned };
  }

  /** `before`: the file's call_args rows as they are (null: it has none yet). Returns them as written. */
  private insertBindings(fid: number, path: string, ex: FileExtraction, before: CallRows | null = null): CallRows {
    for (const b of ex.imports) {
      const s = b.span;
      this.s.insertImport.run(fid, b.from, b.local, b.module, b.member, s.start.row, s.start.column, s.end.row, s.end.column);
    }
    for (const a of ex.attrTypes) this.s.insertAttrType.run(fid, a.cls, a.attr, a.type);
    const byName = new Map<string, CallArgsTuple[]>();
    for (const c of ex.callArgs ?? []) {
      const row: CallArgsTuple = [c.from, c.target, c.receiver ? c.receiver.kind : null, c.receiver?.kind === 'typed' ? c.receiver.type : null, c.args];
      const name = lastSegment(c.target);
      const rows = byName.get(name);
      if (rows) rows.push(row);
      else byName.set(name, [row]);
    }
    const now: CallRows = new Map();
    for (const [name, rows] of byName) {
      const json = encodeCallArgs(rows, path);
      now.set(name, json);
      if (!before) this.s.insertCallArgs.run(fid, name, json);
      else if (before.get(name) !== json) this.s.upsertCallArgs.run(fid, name, json);
    }
    if (before) for (const name of before.keys()) if (!now.has(name)) this.s.deleteCallArgsNamed.run(fid, name);
    return now;
  }

  /** Moves the rows of the file `fid`'s entities and references below `afterRow` by `delta` lines. */
  shiftRows(fid: number, afterRow: number, delta: number): void {
    const p = { fid, row: afterRow, d: delta };
    this.s.shiftEntities.run(p);
    this.s.shiftRefs.run(p);
    if (this.last?.fid === fid) {
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

  private insertRef(fid: number, src: number, r: RawRef): number {
    const v = refValues(r);
    const s = r.span;
    // Environment keys and file paths are names whole; `settings.DEBUG` ends in `DEBUG`, like a call.
    const last = r.relation === 'READS_CONFIG' && (r.configKind === 'env' || r.configKind === 'file') ? r.target : lastSegment(r.target);
    const info = this.s.insertRef.run(fid, src, r.relation, r.target, last, v.receiver, v.rtype, v.configKind, v.catches, v.reraise, v.access, s.start.row, s.start.column, s.end.row, s.end.column);
    if (v.rtype !== null) this.typeWritten(v.rtype);
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

  /** Deletes the file `fid` and all it contributed; returns the entity ids that went with it. */
  deleteFile(fid: number, bulk: BulkLoad | null): DeleteResult {
    if (this.last?.fid === fid) this.last = null;
    const removed: string[] = [];
    const orphaned: number[] = [];
    for (const r of this.s.entityIdsOfFile.all(fid) as Array<{ eid: number; id: string }>) {
      this.removeEntity(r.eid, orphaned);
      bulk?.eids.delete(r.id);
      removed.push(r.id);
    }
    this.s.deleteEdgesOfFile.run(fid);
    this.s.deleteRefsOfFile.run(fid);
    this.s.deleteImportsOfFile.run(fid);
    this.s.deleteAttrTypesOfFile.run(fid);
    this.s.deleteCallArgsOfFile.run(fid);
    this.s.deleteSkeleton.run(fid);
    this.s.deleteFile.run(fid);
    return { removedIds: removed, orphaned };
  }
}
