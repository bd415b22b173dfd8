// Which stored references a change may have moved. An edit records what it changed in a `Work`
// (names, classes and types that came or went, files, layout folders, call sites); `collect`
// turns that into the references to resolve again: the changed files' own, plus those elsewhere
// whose resolution depends on what moved. A superset is correct, a missing one is a stale edge:
// test/incremental-vs-cold.test.ts holds the two to the same graph.
import type { Store } from '../store/store';
import { lastSegment } from '../dotted';
import type { RefDbRow, RefResolveRow } from '../store/read-rows';
import { dirOf, type CallSite, type Ent, type SymbolModel } from './model';
import { PendingRefs } from './pending';
import type { RefInput } from './resolve';
import { methodNamesBelow, type DispatchResolver } from './dispatch';

export interface PendingRef {
  rid: number;
  input: RefInput;
}

/** References waiting for resolution, and what may have moved the resolution of others. */
export interface Work {
  /** New rows: no edges yet. */
  pending: PendingRefs;
  /** Kept rows of files whose resolution context changed. */
  recheck: number[];
  /** Names that appeared or disappeared: references ending in them may resolve differently. */
  names: Set<string>;
  /** Classes (by name) that gained or lost a method: references to them and their subclasses too. */
  classes: Set<string>;
  /** Class names that appeared or went: references whose receiver is typed by such a name too. */
  types: Set<string>;
  /**
   * Classes (by name) whose attributes hold other types now (attribute types, property getters):
   * references typed by them or their subclasses, and those in their subclasses' files.
   */
  retyped: Set<string>;
  /**
   * Names of module globals whose type changed, came or went, and of their modules: the files
   * importing them resolve again (`log.go()` after `log = X()` became `log = Y()`).
   */
  globals: Set<string>;
  /**
   * Files that appeared or went (path → module name): imports that name their module, and for
   * a package's own module, everything inside the package, may bind differently now.
   */
  files: Map<string, string | null>;
  /**
   * Folders where a layout file (`__init__.py`, `setup.py`) appeared or went: every file below
   * may be imported under other names now, and its own imports may pick other files.
   */
  layouts: Set<string>;
  /**
   * Call sites whose callee or argument types changed, as they are now (`sites`) and what the
   * old ones called (`calleeIds`, read from their edges before the rows went): the parameters
   * of those functions are typed by their callers, and what is typed through them may move.
   */
  sites: CallSite[];
  calleeIds: Set<string>;
}

export function newWork(): Work {
  return { pending: new PendingRefs(), recheck: [], names: new Set(), classes: new Set(), types: new Set(), retyped: new Set(), globals: new Set(), files: new Map(), layouts: new Set(), sites: [], calleeIds: new Set() };
}

/** Nothing waits to be resolved. */
export function isIdle(w: Work): boolean {
  // Every field of a Work is a list or a collection: none listed again here, so none forgotten.
  return Object.values(w).every((v: { length?: number; size?: number }) => (v.size ?? v.length) === 0);
}

/** A run whose new references are this share of the index's resolves every reference again. */
const LARGE_RUN_SHARE = 0.25;
/** ... and at least this many (the share of a small workspace is reached by one file). */
const LARGE_RUN_MIN_REFS = 5000;

export class Invalidation {
  constructor(
    private readonly model: SymbolModel,
    private readonly store: Store,
    private readonly resolver: DispatchResolver,
  ) {}

  /** `everything`: every reference in the index again (after an interrupted run). */
  collect(w: Work, selective: boolean, everything = false): { fresh: PendingRefs; again: PendingRef[] } {
    const fresh = w.pending;
    const again: PendingRef[] = [];
    // A run that wrote a large share of the index (a branch switch, a folder copied in) moves
    // so many names that the selective pass picks nearly every reference anyway, reading them
    // name by name and file by file: 906 files added to 2,271 picked 98 % of the old references
    // in 6.7 s, where reading them all takes 3.0 s.
    if (!everything && selective && fresh.length >= LARGE_RUN_MIN_REFS && fresh.length > this.store.refCount() * LARGE_RUN_SHARE) everything = true;
    if (everything) {
      const seen = new Set<number>();
      for (let k = 0; k < fresh.length; k++) seen.add(fresh.rid(k));
      for (const r of this.store.allRefs()) if (!seen.has(r.rid)) again.push({ rid: r.rid, input: fromRow(r) });
    } else if (selective) {
      const seen = new Set<number>();
      for (let k = 0; k < fresh.length; k++) seen.add(fresh.rid(k));
      const add = (r: RefDbRow) => {
        if (seen.has(r.rid)) return;
        seen.add(r.rid);
        again.push({ rid: r.rid, input: fromRow(r) });
      };
      // Every reference of a file, read once however many reasons name the file.
      const filesDone = new Set<string>();
      const addFile = (path: string) => {
        if (filesDone.has(path)) return;
        filesDone.add(path);
        for (const r of this.store.refsOfFile(path)) add(r);
      };
      for (const r of this.store.refsByRid(w.recheck)) add(r);
      const below = w.classes.size ? this.subclassNames(w.classes) : null;
      const names = below ? new Set([...w.names, ...below]) : new Set(w.names);
      // A class that came, went or has other bases: a call of it or of a subclass may construct
      // through another constructor now, so the parameters of the one it called are typed by
      // other callers (below). Read before these calls are resolved again.
      if (below) for (const n of below) for (const id of this.store.callTargetsNamed(n)) w.calleeIds.add(id);
      // Files whose imports may bind other modules now: their own references, and what other
      // files reach through their bindings (`from .app import Service` where app.py re-exports
      // `from service import Service`): references ending in the names they bind.
      const rebound = this.filesImporting(w.files);
      if (w.layouts.size) {
        const moved = this.filesBelow(w.layouts);
        for (const path of moved.keys()) rebound.add(path);
        for (const path of this.filesImporting(moved)) rebound.add(path);
      }
      for (const path of rebound) for (const b of this.model.files.get(path)?.bindings ?? []) if (b.local) names.add(lastSegment(b.local));
      // A class that appears or goes moves the overrides calls on its ancestors may dispatch to.
      if (w.types.size) for (const n of methodNamesBelow(this.model, w.types)) names.add(n);
      // A name imported under another name is referred to by that one, and so on down a chain
      // (`export default User` binds `default`, imported as `DefaultUser` elsewhere).
      for (const todo = [...names]; todo.length; ) {
        for (const local of this.store.aliasesOf(todo.pop()!)) {
          const n = lastSegment(local);
          if (!names.has(n)) names.add(n), todo.push(n);
        }
      }
      for (const name of names) for (const r of this.store.refsWithLast(name)) add(r);
      for (const path of rebound) addFile(path);
      const typedNames = new Set(names);
      const globals = new Set(w.globals);
      if (w.retyped.size) {
        const below = this.holdersOf(w.retyped);
        for (const n of below) typedNames.add(n);
        // Where the classes are defined (calls through `self` in a subclass), and the globals
        // holding one (`current_app: Flask`): calls through them where they are imported.
        const reach = this.reachOfClasses(below);
        for (const path of reach.files) addFile(path);
        for (const n of reach.globals) globals.add(n);
      }
      for (const path of this.store.pathsImportingNames(globals)) addFile(path);
      if (w.sites.length || w.calleeIds.size) {
        // Parameters typed by their callers: the references typed through a parameter of a
        // function whose call sites changed (every reference of its file when an attribute
        // holds one, `self.repo = repo`), and receivers typed through what it returns.
        for (const [file, fns] of this.calleesOf(w)) {
          const fs = this.model.files.get(file);
          const prefixes = fns.map((f) => `param:${f.qname}:`);
          const inAttrs = [...(fs?.attrTypes.values() ?? [])].some((m) => [...m.values()].some((t) => prefixes.some((p) => t.includes(p))));
          if (inAttrs) {
            addFile(file);
            for (const e of fs?.byQname.values() ?? []) if (e.returns) typedNames.add(e.name);
          } else {
            for (const r of this.store.paramTypedRefsOfFile(file)) if (prefixes.some((p) => r.rtype!.includes(p))) add(r);
            for (const f of fns) if (f.returns) typedNames.add(f.name);
          }
        }
      }
      if (w.types.size || typedNames.size) {
        // Receivers typed through a name that moved: `x = make(); x.run()`, a fixture `fixture:db`.
        const typed = this.store.typedRefsMentioning([...new Set([...w.types, ...typedNames])]);
        for (const r of this.store.refsByRid(typed.map((t) => t.rid))) add(r);
      }
    }
    return { fresh, again };
  }

  /**
   * Names of the members of the classes `ids` and of every class their bases name, transitively,
   * by name alone (a superset of what the MRO holds, which is what re-resolution wants).
   */
  inheritedNames(ids: string[]): Set<string> {
    const classes = new Map<string, Ent[]>();
    const members = new Map<string, string[]>();
    for (const e of this.model.byId.values()) {
      if (e.kind === 'class') {
        const l = classes.get(e.name);
        if (l) l.push(e);
        else classes.set(e.name, [e]);
      }
      if (e.parent) {
        const l = members.get(e.parent);
        if (l) l.push(e.name);
        else members.set(e.parent, [e.name]);
      }
    }
    const out = new Set<string>();
    const seen = new Set<string>();
    const todo = ids.map((id) => this.model.byId.get(id)).filter((e): e is Ent => !!e);
    while (todo.length) {
      const c = todo.pop()!;
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      for (const n of members.get(c.id) ?? []) out.add(n);
      for (const b of c.bases ?? []) todo.push(...(classes.get(lastSegment(b.replace(/\[.*$/s, ''))) ?? []));
    }
    return out;
  }

  /**
   * Files whose imports may resolve differently now that `changed` files (path → module name)
   * appeared or went. A file whose module is named like its directory is that package's own
   * module (`shop/__init__.py` is `shop`): the files inside the package may bind through it.
   */
  private filesImporting(changed: Map<string, string | null>): Set<string> {
    const names = new Set<string>();
    const packages = new Set<string>();
    for (const [file, module] of changed) {
      const dir = dirOf(file);
      // A module named by its path (TypeScript: `src/models`) is imported by its last part.
      const name = module ? (module.includes('/') ? module.slice(module.lastIndexOf('/') + 1) : lastSegment(module)) : file.slice(file.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '');
      if (name) names.add(name);
      if (dir && name === dir.slice(dir.lastIndexOf('/') + 1)) packages.add(dir);
    }
    const out = new Set(this.store.pathsImportingNames(names));
    for (const dir of packages) for (const p of this.store.pathsUnder(dir)) out.add(p);
    for (const f of changed.keys()) out.delete(f); // their own refs are pending already, or gone
    return out;
  }

  /** The files below any of `dirs` ('' is the root), with their module names. */
  private filesBelow(dirs: Set<string>): Map<string, string | null> {
    const out = new Map<string, string | null>();
    const paths = dirs.has('') ? [...this.model.files.keys()] : [...dirs].flatMap((d) => this.store.pathsUnder(d));
    for (const p of paths) out.set(p, this.model.files.get(p)?.module ?? null);
    return out;
  }

  /**
   * `names` and the names of the classes that inherit from them, transitively, by the last
   * segment of their base expressions: a superset (names only), which is what re-resolution wants.
   */
  private subclassNames(names: Set<string>): Set<string> {
    return this.closure(names, false);
  }

  /**
   * `classes` and, transitively, their subclasses and the classes holding one of them in an
   * attribute or returning one from a property getter: what `self.a.r.go()` or `b.a.r.go()` runs
   * moves when `r`'s type changes in `A`, though neither `B` nor `C` changed. By name, a superset.
   */
  private holdersOf(classes: Set<string>): Set<string> {
    return this.closure(classes, true);
  }

  /** `start` and every class name reached from it by base links (and, with `holders`, holder links). */
  private closure(start: Set<string>, holders: boolean): Set<string> {
    const next = new Map<string, Set<string>>();
    const link = (from: string, to: string | undefined) => {
      if (!to) return;
      const l = next.get(from);
      if (l) l.add(to);
      else next.set(from, new Set([to]));
    };
    for (const e of this.model.byId.values()) {
      if (e.kind === 'class') for (const b of e.bases ?? []) link(lastSegment(b.replace(/\[.*$/s, '')), e.name);
      if (holders && e.property && e.parent && e.returns) for (const w of e.returns.match(/\w+/g) ?? []) link(w, this.model.byId.get(e.parent)?.name);
    }
    if (holders) {
      for (const fs of this.model.files.values()) {
        for (const [cls, attrs] of fs.attrTypes) {
          const name = this.model.byId.get(cls)?.name;
          for (const t of attrs.values()) for (const w of t.match(/\w+/g) ?? []) link(w, name);
        }
      }
    }
    const out = new Set(start);
    const todo = [...start];
    while (todo.length) for (const n of next.get(todo.pop()!) ?? []) if (!out.has(n)) out.add(n), todo.push(n);
    return out;
  }

  /**
   * In one pass over the model: the files defining a class named in `classes`, and the names of
   * the module globals whose recorded type mentions one of them, with their modules' names.
   */
  private reachOfClasses(classes: Set<string>): { files: Set<string>; globals: Set<string> } {
    const files = new Set<string>();
    const globals = new Set<string>();
    for (const e of this.model.byId.values()) {
      if (e.kind === 'class' && classes.has(e.name)) files.add(e.file);
      else if (e.kind === 'global' && e.returns && e.returns.match(/\w+/g)?.some((w) => classes.has(w))) {
        globals.add(e.name);
        const module = this.model.files.get(e.file)?.module;
        if (module) globals.add(lastSegment(module));
      }
    }
    return { files, globals };
  }

  /** The functions the work's changed call sites call now or called before, by file. */
  private calleesOf(w: Work): Map<string, Ent[]> {
    const fns = new Set<Ent>();
    for (const site of w.sites) for (const e of this.resolver.callees(site)) fns.add(e);
    for (const id of w.calleeIds) {
      const e = this.model.byId.get(id);
      if (e) fns.add(this.resolver.boundBy(e));
    }
    const out = new Map<string, Ent[]>();
    for (const f of fns) {
      if (f.kind !== 'function' && f.kind !== 'method') continue;
      const l = out.get(f.file);
      if (l) l.push(f);
      else out.set(f.file, [f]);
    }
    return out;
  }
}

export function fromRow(r: RefResolveRow): RefInput {
  return {
    file: r.path,
    source: r.source,
    relation: r.relation,
    target: r.target,
    receiver: r.receiver,
    rtype: r.rtype,
    configKind: r.config_kind,
    catches: r.catches ? (JSON.parse(r.catches) as string[]) : null,
    access: r.access === 1,
  };
}
