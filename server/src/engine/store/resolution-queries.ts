// The read-only queries that resolution and invalidation ask of the stored references and
// imports: the symbol model file by file, references by name, type, file or rid, the files that
// import or refer to a name, and what calls resolve to. The Store answers each by delegating here.
import type { Relation } from '../../../../protocol';
import type { ConfigKind, ReceiverKind } from '../languages/types';
import type { BulkLoad } from './bulk-load';
import { lastSegment } from '../dotted';
import { decodeCallArgs } from './call-args-row';
import { parseModelRows, type CallArgsTuple, type ModelFileRows, type ModelRowsJson, type RefDbRow, type RefResolveRow } from './read-rows';
import { MODEL_ROWS_AFTER, type Statements } from './statements';
import { hasWordOf } from './words';
import { nativeBinding, sqliteModulePath, type Db } from './db';
import { rowsFromReader } from './model-rows-reader';

export class ResolutionQueries {
  /** Receiver types as `typedRefsMentioning` knows them (null: not read yet). */
  private typesKnown: KnownTypes | null = null;
  /** call_args as schema 10 and older made it, one row per file (null: not looked at yet). */
  private rowPerFile: boolean | null = null;

  constructor(
    private readonly s: Statements,
    private readonly db: Db,
  ) {}

  /**
   * What the symbol model holds of each file (entities, import bindings, attribute types), file
   * by file in path order (the order of Store `files()`): SQLite gathers a file's rows into one
   * JSON array per table, which parses in a fraction of the time that reading the rows one by one
   * into JS takes, and only one file's rows are in the heap at a time. (No other statement may
   * run on this connection until the loop ends.) From the file after path `after` on, `limit`
   * files (all when negative): the model can be read a slice at a time.
   */
  *modelRows(after = '', limit = -1): Generator<[fid: number, rows: ModelFileRows]> {
    for (const row of this.s.modelRows.iterate(after, limit) as IterableIterator<ModelRowsJson>) yield [row[0], parseModelRows(row)];
  }

  /**
   * `modelRows(after)` of every file left, read by a worker thread while the caller builds from
   * them (model-rows-reader.ts). Ends early when the reader fails; the rows yielded are sound.
   * Null for an index that is not a file (another connection could not see it).
   */
  modelRowsFromReader(after = ''): Generator<[fid: number, rows: ModelFileRows]> | null {
    const dbPath = this.db.name;
    const sqlite = sqliteModulePath();
    if (!dbPath || dbPath === ':memory:' || this.db.memory || !sqlite) return null;
    return (function* (rows) {
      for (const row of rows) yield [row[0], parseModelRows(row)] as [number, ModelFileRows];
    })(rowsFromReader({ dbPath, sql: MODEL_ROWS_AFTER, after, sqlite, binding: nativeBinding() }));
  }

  /** One file's call sites with argument types (none when it has no row), grouped by callee name. */
  callArgsOf(path: string): CallArgsTuple[] {
    return (this.s.callArgsOfPath.all(path) as string[]).flatMap((json) => decodeCallArgs(json, path));
  }

  /** One file's call sites of callee name `name` (the target's last segment). */
  callArgsNamed(path: string, name: string): CallArgsTuple[] {
    if (this.rowPerFile === null) this.rowPerFile = !(this.db.pragma('table_info(call_args)') as Array<{ name: string }>).some((c) => c.name === 'name');
    // A read-only index of schema 10 or older (db.ts openReadOnly) has one row per file.
    if (this.rowPerFile) return this.callArgsOf(path).filter((t) => lastSegment(t[1]) === name);
    const json = this.s.callArgsOfPathNamed.get(path, name) as string | undefined;
    return json ? decodeCallArgs(json, path) : [];
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
   * `call:Repo`, not in `call:RepoView`. Every edit that moves a name asks. The first ask (all a
   * one-shot command makes) scans (`typedRefsScanned`); from the second, the names are looked up
   * in an index of the distinct types by word, made then (~60 ms on site-packages' 31K types)
   * and kept: well under a millisecond an ask, against 20–45 ms there for a scan.
   */
  typedRefsMentioning(names: string[]): TypedRef[] {
    const wanted = new Set(names.filter((n) => n));
    if (!wanted.size) return [];
    const known = this.knownTypes();
    if (known.asks++ === 0) return this.typedRefsScanned(known, wanted);
    known.types ??= new Set(this.s.refTypes.all() as string[]);
    known.byWord ??= typesByWord(known.types);
    const types = new Set<string>();
    for (const n of wanted) for (const t of known.byWord.get(n) ?? []) types.add(t);
    return this.refsOfTypes([...types]);
  }

  /**
   * `typedRefsMentioning` without an index: one name, a scan of the typed refs' index (stdlib
   * 69K typed refs, ~5 ms; site-packages 220K, ~14 ms); more, each distinct type (8K, ~7 ms;
   * 31K, ~37 ms) tested once, the types then kept for the index.
   */
  private typedRefsScanned(known: KnownTypes, wanted: ReadonlySet<string>): TypedRef[] {
    if (wanted.size === 1) {
      const out = new Map<number, string>();
      for (const n of wanted) for (const r of this.s.typedRefsMentioningOne.all(n) as TypedRef[]) if (hasWordOf(r.rtype, wanted)) out.set(r.rid, r.rtype);
      return [...out].map(([rid, rtype]) => ({ rid, rtype }));
    }
    known.types = new Set(this.s.refTypes.all() as string[]);
    return this.refsOfTypes([...known.types].filter((t) => hasWordOf(t, wanted)));
  }

  private refsOfTypes(types: string[]): TypedRef[] {
    return types.length ? (this.s.refsOfTypes.all(JSON.stringify(types)) as TypedRef[]) : [];
  }

  /** This connection wrote a reference with receiver type `rtype` (the file writer tells). */
  typeWritten(rtype: string): void {
    const known = this.typesKnown;
    if (!known?.types || known.types.has(rtype)) return;
    known.types.add(rtype);
    if (known.byWord) addByWord(known.byWord, rtype);
  }

  /**
   * What `typedRefsMentioning` keeps: the distinct receiver types once read, kept up to date by
   * `typeWritten`, and forgotten when another connection has committed (`data_version`). A type
   * whose last ref went stays: looking it up finds no rows, which is the same answer.
   */
  private knownTypes(): KnownTypes {
    const version = this.s.dataVersion.get() as number;
    if (this.typesKnown?.version !== version) this.typesKnown = { version, asks: 0, types: null, byWord: null };
    return this.typesKnown;
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

  /** Kept references of a file with what resolution needs (after a change of its imports). */
  refsByRid(rids: number[]): RefDbRow[] {
    return rids.map((rid) => this.s.refByRid.get(rid) as RefDbRow).filter((r) => !!r);
  }

  /** Entity ids by eid: a bulk load holds them already (`BulkLoad.entityIds`), else one query. */
  private entityIdsByEid(bulk: BulkLoad | null): { get(eid: number): string | undefined } {
    return bulk ? bulk.entityIds() : new Map(this.s.eidIds.all() as Array<[number, string]>);
  }

  /**
   * Every reference with what resolution reads, in rid order, `chunk` at a time (a large index
   * is never in memory whole). Paths and source ids come from maps, not joins: a join per row
   * made the read three times slower.
   */
  *refChunks(chunk: number, bulk: BulkLoad | null): Generator<RefResolveRow[]> {
    const paths = new Map(this.s.fidPaths.all() as Array<[number, string]>);
    const ids = this.entityIdsByEid(bulk);
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

  /** What the calls ending in `last` resolve to now (entity ids), wherever they are. */
  callTargetsNamed(last: string): string[] {
    return this.s.callTargetsNamed.all(last) as string[];
  }

  refsWithLast(last: string): RefDbRow[] {
    return this.s.refsByLast.all(last) as RefDbRow[];
  }
}

type TypedRef = { rid: number; rtype: string };

interface KnownTypes {
  /** `data_version` when made: another connection's commit moves it. */
  version: number;
  /** Asks since then. */
  asks: number;
  /** The distinct types, once read. */
  types: Set<string> | null;
  /** The types by each of their words, from the second ask. */
  byWord: Map<string, string[]> | null;
}

function typesByWord(types: Iterable<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of types) addByWord(out, t);
  return out;
}

function addByWord(byWord: Map<string, string[]>, rtype: string): void {
  for (const w of new Set(rtype.match(/\w+/g))) {
    const list = byWord.get(w);
    if (list) list.push(rtype);
    else byWord.set(w, [rtype]);
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
