// The read-only queries that resolution and invalidation ask of the stored references and
// imports: the symbol model file by file, references by name, type, file or rid, the files that
// import or refer to a name, and what calls resolve to. The Store answers each by delegating here.
import type { Relation } from '../../../../protocol';
import type { ConfigKind, ReceiverKind } from '../languages/types';
import type { BulkLoad } from './bulk-load';
import { decodeCallArgs } from './call-args-row';
import { parseModelRows, type CallArgsTuple, type ModelFileRows, type ModelRowsJson, type RefDbRow, type RefResolveRow } from './read-rows';
import type { Statements } from './statements';
import { hasWordOf } from './words';

export class ResolutionQueries {
  constructor(private readonly s: Statements) {}

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

/**
 * Does an import of `module` name one of `names` the way `pathsImportingName`'s patterns do: as
 * the whole module, a dotted segment, or a path's last part (`./models`, `./models/index`)?
 */
function namesModule(module: string, names: ReadonlySet<string>): boolean {
  if (names.has(module)) return true;
  for (const part of module.split(/[./]/)) if (part && names.has(part)) return true;
  return false;
}
