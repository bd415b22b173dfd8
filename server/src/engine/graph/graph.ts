// Keeps edges true as files change: applies extractions to the symbol model, then resolves the
// refs of changed files plus the refs elsewhere whose resolution may have moved (those naming
// an entity that appeared or disappeared).
import type { CallArgs, FileExtraction, LanguageSupport, ProjectFiles } from '../languages/types';
import type { DeleteResult, ReplaceResult, Store } from '../store/store';
import { lastSegment } from '../dotted';
import { dirOf, SymbolModel, type Ent, type FileSymbols } from './model';
import type { RefInput } from './resolve';
import type { CallSiteInput } from './call-sites';
import { DispatchResolver } from './dispatch';
import { fromRow, Invalidation, isIdle, newWork, type Work } from './invalidation';
import { ModelLoader } from './model-from-store';
import { sharedList } from './pools';

const CHUNK = 5000;

/** Called between chunks of a run's resolution: references resolved so far, of how many. */
export type Between = (resolved: number, total: number) => void;

export class Graph {
  model: SymbolModel;
  resolver: DispatchResolver;
  private invalidation: Invalidation;
  /** Work from edits and watched files: resolved by `flush`. */
  private live: Work = newWork();
  /**
   * Work from an index run in progress: resolved by `finishRun`, never by an edit's flush. A run
   * into an empty index (`fromStore`) keeps no pending references: every reference in the index
   * is new, and `finishRun` reads them back from the store a range at a time.
   */
  private run: (Work & { interleaved: boolean; fromStore: boolean; argLists: Map<string, string[]> }) | null = null;
  /**
   * What the call sites of the file about to be rewritten called, by callee name: of every callee
   * (a file that goes), or of those whose sites the new version changes (`moved`).
   */
  private oldCallTargets: { file: string; byName: Map<string, string[]>; moved: Set<string> | null } | null = null;

  /** `project`: the workspace's project files (tsconfig.json, package.json) for module names. */
  constructor(
    private readonly store: Store,
    public project?: ProjectFiles,
  ) {
    this.model = new SymbolModel(project);
    this.resolver = new DispatchResolver(this.model);
    this.invalidation = new Invalidation(this.model, store, this.resolver);
  }

  /**
   * Starts again from `project` (the project files read anew): module names, import bindings
   * and every cache built from them go. The model is built again at the next load; the caller
   * extracts and resolves every file again (workspace/indexer.ts), as a cold index would.
   */
  resetProject(project: ProjectFiles): void {
    this.project = project;
    this.renew();
  }

  /**
   * Forgets the symbol model (a large workspace's largest holding: site-packages ~280 MB of heap),
   * to be read again from the index at the next change, as a reopened index is. Only between
   * changes (false when a run, a load or resolution is under way): a one-shot command whose last
   * change is made (`nsccn index` before it embeds).
   */
  unload(): boolean {
    if (this.run || this.preloading || !isIdle(this.live)) return false;
    this.renew();
    return true;
  }

  /** An empty model, to be read from the index at the next load. */
  private renew(): void {
    this.model = new SymbolModel(this.project);
    this.resolver = new DispatchResolver(this.model);
    this.invalidation = new Invalidation(this.model, this.store, this.resolver);
    this.loaded = false;
    this.loader = null;
  }

  private loaded = false;
  /** A load in slices under way (`preload`), and its promise. */
  private loader: ModelLoader | null = null;
  private preloading: Promise<void> | null = null;

  /**
   * Builds the symbol model from the store (what a `preload` has not read yet). Lazy: answering
   * from an existing index needs only SQL, so opening a large workspace is quick; the model is
   * built at the first change.
   */
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    const loader = this.loader ?? new ModelLoader(this.model, this.store);
    this.loader = null;
    loader.rest();
  }

  /**
   * Builds the model a slice of about `sliceMs` at a time, yielding between slices: a server
   * whose user opened a file reads it before the first keystroke needs it (~1 s at once on the
   * stdlib). A change meanwhile calls `load`, which reads the rest first: no write can come
   * between two slices, so the slices read one state of the index. Resolves when the model is
   * read (or `stop` said so: a later `load` reads the rest through the same loader).
   */
  preload(sliceMs: number, stop: () => boolean): Promise<void> {
    if (this.loaded) return Promise.resolve();
    this.preloading ??= this.readInSlices(sliceMs, stop).finally(() => (this.preloading = null));
    return this.preloading;
  }

  private async readInSlices(sliceMs: number, stop: () => boolean): Promise<void> {
    const loader = (this.loader ??= new ModelLoader(this.model, this.store));
    // Ends when read, when `load` read the rest, or when `resetProject` dropped this model.
    while (!this.loaded && this.loader === loader && !stop()) {
      if (loader.step(sliceMs)) {
        this.loaded = true;
        this.loader = null;
        return;
      }
      await new Promise((r) => setImmediate(r));
    }
  }

  /**
   * Records a file's new extraction (already written by `store.replaceFile`). `kept` are the
   * rows of references that survived the edit with their edges; they are re-resolved only when
   * what their resolution depends on in this file moved (`contextMoved`).
   */
  fileChanged(file: string, language: LanguageSupport, module: string | null, ex: FileExtraction, written: Pick<ReplaceResult, 'refs' | 'kept' | 'removedIds' | 'orphaned'>, fromRun = false): void {
    this.load();
    const { refs, kept, removedIds } = written;
    const w = fromRun && this.run ? this.run : this.live;
    for (const rid of written.orphaned) w.recheck.push(rid);
    const before = this.model.files.get(file);
    if (!before) w.files.set(file, module);
    if (!before && language.isLayoutFile?.(file)) w.layouts.add(dirOf(file));
    // Every definition: byQname holds one of a name defined twice, and the other would count as
    // new on every edit.
    const beforeEnts = before ? definitions(before) : [];
    const oldIds = new Set(beforeEnts.map((e) => e.id));
    const oldLocals = new Set(before ? before.bindings.map((b) => b.local) : []);
    // Definitions whose role a decorator sets (an `@overload` stub, a property getter): a
    // change of role moves what their name resolves to, here and elsewhere.
    const role = (e: { overload?: boolean; property?: boolean }) => `${e.overload ? 'o' : ''}${e.property ? 'p' : ''}`;
    const oldRoles = new Map(beforeEnts.map((e) => [e.id, role(e)]));
    // A first index resolves everything from the store: no call site needs comparing.
    const intoEmpty = w === this.run && this.run.fromStore;
    // The callees whose call sites changed, and what their old sites called (`beforeWrite`); none
    // planned when the file had no call sites: every site of it is new.
    const planned = this.oldCallTargets?.file === file ? this.oldCallTargets : null;
    const oldReturns = new Map(beforeEnts.map((e) => [e.id, e.returns ?? null]));
    const oldAliases = new Map(beforeEnts.map((e) => [e.id, e.alias ?? null]));
    const oldBases = new Map(beforeEnts.filter((e) => e.kind === 'class').map((e) => [e.id, JSON.stringify(e.bases ?? [])]));
    // A class whose bases changed: members it inherited before, and inherits now, resolve anew.
    const rebased = ex.entities.filter((e) => e.kind === 'class' && oldBases.has(e.id) && oldBases.get(e.id) !== JSON.stringify(e.bases ?? [])).map((e) => e.id);
    if (rebased.length) for (const n of this.invalidation.inheritedNames(rebased)) w.names.add(n);
    // ... and so do the constructor calls of it and its subclasses.
    for (const id of rebased) w.classes.add(nameOfId(id));
    this.model.setFile({
      file,
      language,
      module,
      entities: ex.entities.map((e) => ({ id: e.id, kind: e.kind, name: e.name, qname: e.qname, file, parent: e.parent, bases: e.bases ?? null, returns: e.returns ?? null, alias: e.alias ?? null, property: language.isPropertyGetter(e.decorators), overload: !!language.isOverloadStub?.(e.decorators) })),
      bindings: ex.imports,
      attrTypes: ex.attrTypes,
      // A first index leaves its sites in the index (written with the file) until a lookup asks.
      ...(intoEmpty ? { callNames: new Set((ex.callArgs ?? []).map((c) => lastSegment(c.target))) } : { calls: (ex.callArgs ?? []).map((c) => siteOf(c, w === this.run ? sharedList(this.run.argLists, c.args) : c.args)) }),
    });
    if (rebased.length) for (const n of this.invalidation.inheritedNames(rebased)) w.names.add(n);
    // A loop, not push(...kept): a spread of a large file's references overflows the stack.
    if (kept.length && before && contextMoved(before, this.model.files.get(file)!)) for (const rid of kept) w.recheck.push(rid);
    // A class whose attribute types or property getters changed types what is reached through
    // them elsewhere (`a.repo.save()` with `a: A`, in another file, or in a subclass).
    if (!intoEmpty) for (const cls of retypedClasses(before, this.model.files.get(file))) w.retyped.add(nameOfId(cls));
    // A module global that holds another type, came or went: calls through it where it is imported.
    if (!intoEmpty) {
      const moved = ex.entities.filter((e) => e.kind === 'global' && (!oldIds.has(e.id) || oldReturns.get(e.id) !== (e.returns ?? null))).map((e) => e.name);
      for (const id of removedIds) if (id.startsWith('global:')) moved.push(nameOfId(id));
      if (moved.length) {
        for (const n of moved) w.globals.add(n);
        if (module) w.globals.add(lastSegment(module));
      }
    }
    if (!intoEmpty) {
      // The call sites that changed (all of a new file's), and what the old ones called.
      const calls = this.model.callsOf(file);
      const moved = planned?.moved ?? null;
      for (const c of calls) if (!moved || moved.has(lastSegment(c.target))) w.sites.push(c);
      if (planned && moved) for (const n of moved) for (const id of planned.byName.get(n) ?? []) w.calleeIds.add(id);
    }
    this.oldCallTargets = null;
    // A first index resolves every reference from the store: nothing below would be read.
    if (intoEmpty) return;
    for (const e of ex.entities) {
      const was = oldRoles.get(e.id);
      if (was !== undefined && was !== role({ overload: !!language.isOverloadStub?.(e.decorators), property: language.isPropertyGetter(e.decorators) })) {
        w.names.add(e.name);
        if (kept.length) for (const rid of kept) w.recheck.push(rid);
      }
    }
    for (const e of ex.entities) {
      // A new name may capture references elsewhere; a class whose bases moved changes lookups
      // through it; a function or global whose type changed types the receivers named by it; a
      // global that is another name now (`check = other`) is called as that one, in its importers too.
      if (!oldIds.has(e.id) || (e.kind === 'class' && oldBases.get(e.id) !== JSON.stringify(e.bases ?? [])) || oldReturns.get(e.id) !== (e.returns ?? null) || oldAliases.get(e.id) !== (e.alias ?? null)) w.names.add(e.name);
    }
    for (const id of removedIds) w.names.add(nameOfId(id));
    // A class that appears or goes is, or was, a base by name: what its subclasses inherit
    // moves, their constructor calls (`Child()` runs the first `__init__` up the chain) too.
    for (const e of ex.entities) if (e.kind === 'class' && !oldIds.has(e.id)) w.types.add(e.name), w.classes.add(e.name);
    for (const id of removedIds) if (id.startsWith('class:')) w.types.add(nameOfId(id)), w.classes.add(nameOfId(id));
    // A member that appears or goes changes calls of its class and its subclasses by their own
    // names (a constructor call `Child()` binds to an inherited constructor).
    const members = ex.entities.filter((e) => e.kind === 'method' && !oldIds.has(e.id)).map((e) => e.parent);
    for (const id of removedIds) if (id.startsWith('method:')) members.push(before?.byQname.get(id.slice(id.lastIndexOf(':') + 1))?.parent ?? null);
    for (const cls of members) if (cls) w.classes.add(nameOfId(cls));
    // An import that comes or goes may (re-)export a class: receivers typed by its name move too.
    for (const b of ex.imports) if (b.local && !oldLocals.has(b.local)) w.names.add(lastSegment(b.local)), w.types.add(lastSegment(b.local));
    for (const l of oldLocals) if (l && !ex.imports.some((b) => b.local === l)) w.names.add(lastSegment(l)), w.types.add(lastSegment(l));
    for (const { rid, ref } of refs) w.pending.push(rid, file, ref);
  }

  /**
   * Before a file's rows are rewritten or deleted: what its call sites resolved to, which the
   * rows take with them (the functions whose caller-typed parameters they typed).
   */
  beforeWrite(file: string, next?: FileExtraction): void {
    // Also the moment to read the file's old call sites, if still only in the index: the rows
    // are about to say something else, and `fileChanged` compares old sites with new.
    const old = this.model.callsOf(file);
    if (!old.length) {
      this.oldCallTargets = null;
      return;
    }
    // The callees whose sites the new version changes (`fileChanged` needs no other's targets):
    // an edit that adds a call reads one callee's old targets, not the whole file's.
    const moved = next ? new Set(changedCallees(callKeys(old), callKeys((next.callArgs ?? []).map((c) => siteOf(c, c.args))))) : null;
    this.oldCallTargets = { file, byName: this.store.callTargetsOfFile(file, moved), moved };
  }

  fileDeleted(file: string, deleted: DeleteResult, fromRun = false): void {
    this.load();
    const { removedIds } = deleted;
    const w = fromRun && this.run ? this.run : this.live;
    for (const rid of deleted.orphaned) w.recheck.push(rid);
    for (const id of removedIds) if (id.startsWith('class:')) w.types.add(nameOfId(id)), w.classes.add(nameOfId(id));
    const gone = this.model.files.get(file);
    w.files.set(file, gone?.module ?? null);
    if (gone?.language.isLayoutFile?.(file)) w.layouts.add(dirOf(file));
    if (this.oldCallTargets?.file === file) for (const ids of this.oldCallTargets.byName.values()) for (const id of ids) w.calleeIds.add(id);
    this.oldCallTargets = null;
    this.model.removeFile(file);
    for (const id of removedIds) w.names.add(nameOfId(id));
  }

  /**
   * An index run starts: its files' references wait for `finishRun`. `intoEmpty`: the index
   * holds no file yet, so every reference it will hold is the run's (or an edit's, resolved
   * again harmlessly).
   */
  beginRun(intoEmpty = false): void {
    this.run = { ...newWork(), interleaved: false, fromStore: intoEmpty, argLists: new Map() };
  }

  /**
   * Project files that steer only import names (`namesOnlyProjectFile`) read differently now: the
   * run in progress names the files under `dirs` anew and resolves them and their importers
   * again, as when a layout file appears there ('' is the whole workspace).
   */
  layoutsMoved(dirs: readonly string[]): void {
    if (!this.run) throw new Error('layoutsMoved: no index run in progress');
    this.load();
    this.model.relayout();
    for (const d of dirs) this.run.layouts.add(d);
  }

  /** True when edits were resolved during the run: `finishRun` then looks references up by name. */
  get runInterleaved(): boolean {
    return this.run?.interleaved ?? false;
  }

  /**
   * Resolves what an index run wrote, in chunks that let requests in between. After a cold
   * run every reference is pending anyway, so the selective pass is skipped — unless edits
   * were resolved meanwhile against a partial model. `between` is called after each chunk (the
   * run's garbage collection, workspace/indexer.ts).
   */
  async finishRun(selective: boolean, everything = false, between?: Between): Promise<{ resolved: number }> {
    const run = this.run;
    this.run = null;
    if (!run) return { resolved: 0 };
    // A run that changed no file has not loaded the model yet; resolving everything needs it
    // (and nothing else does: an up-to-date index re-indexed must stay a quick no-op).
    if (everything) this.load();
    if (run.fromStore) return this.resolveStored(run.interleaved, between);
    const { fresh, again } = this.invalidation.collect(run, selective || run.interleaved, everything);
    const total = fresh.length + again.length;
    // Fresh refs first (they replace edges only if edits resolved them meanwhile), then the rest.
    for (let i = 0; i < total; i += CHUNK) {
      this.store.transaction(() => {
        for (let k = i; k < Math.min(i + CHUNK, total); k++) {
          if (k < fresh.length) this.write(fresh.rid(k), fresh.input(k), run.interleaved);
          else {
            const w = again[k - fresh.length];
            this.write(w.rid, w.input, true);
          }
        }
      });
      between?.(Math.min(i + CHUNK, total), total);
      if (i + CHUNK < total) await new Promise((r) => setImmediate(r));
    }
    this.store.transaction(() => this.store.pruneVirtualEntities());
    this.resolver.state.drop();
    if (everything) this.model.releaseCallSites();
    return { resolved: total };
  }

  /**
   * Resolves every reference in the index, in rid ranges (only one range in memory at a time),
   * with requests let in between. `replace`: edits resolved some of them meanwhile.
   */
  private async resolveStored(replace: boolean, between?: Between): Promise<{ resolved: number }> {
    let total = 0;
    // For progress: exact after a first index (its rids are dense), an estimate after deletions.
    const span = between ? this.store.refRidSpan() : 0;
    for (const rows of this.store.refChunks(CHUNK)) {
      this.store.transaction(() => {
        for (const r of rows) this.write(r.rid, fromRow(r), replace);
      });
      total += rows.length;
      between?.(total, Math.max(span, total));
      await new Promise((r) => setImmediate(r));
    }
    if (span > total) between?.(total, total);
    this.store.transaction(() => this.store.pruneVirtualEntities());
    this.resolver.state.drop();
    // Resolving every reference read nearly every call site; a change asks for a few names' worth.
    this.model.releaseCallSites();
    return { resolved: total };
  }

  /**
   * Resolves the refs of changed files, and — unless `selective` is false, as after a cold index
   * where every ref is pending anyway — the refs elsewhere whose targets may have moved.
   */
  flush(selective = true): { resolved: number } {
    this.load();
    if (this.run) this.run.interleaved = true;
    const { fresh, again } = this.invalidation.collect(this.live, selective);
    this.live = newWork();
    this.store.transaction(() => {
      for (let k = 0; k < fresh.length; k++) this.write(fresh.rid(k), fresh.input(k), false);
      for (const w of again) this.write(w.rid, w.input, true);
      this.store.pruneVirtualEntities();
    });
    return { resolved: fresh.length + again.length };
  }

  /** Re-resolves every ref in the index (after a model-wide change such as a new language). */
  resolveAll(): void {
    this.load();
    const all = this.store.allRefs().map((r) => ({ rid: r.rid, input: fromRow(r) }));
    this.store.transaction(() => {
      for (const w of all) this.write(w.rid, w.input, true);
      this.store.pruneVirtualEntities();
    });
  }

  /** Does `except <handler>` at a site in `from` (in `file`) catch `exc` (an entity id or a name)? */
  caughtBy(file: string, from: string, handler: string, exc: string): boolean {
    this.load();
    const fs = this.model.files.get(file);
    const f = this.model.byId.get(from);
    if (!fs || !f) return false;
    const ent = this.model.byId.get(exc);
    return this.resolver.catches(fs, f, handler, ent, ent ? ent.name : exc);
  }

  private write(rid: number, input: RefInput, replace: boolean): void {
    const res = this.resolver.resolve(input);
    if (res.virtual) this.store.ensureVirtualEntity(res.virtual.id, res.virtual.kind, res.virtual.name);
    const targets = res.targets.map((t) => ({ target: t, ambiguous: res.ambiguous, caught: res.caught, dispatch: false }));
    for (const t of this.resolver.overrides(input, res)) targets.push({ target: t, ambiguous: false, caught: false, dispatch: true });
    if (replace) this.store.setEdges(rid, targets);
    else if (targets.length) this.store.insertEdges(rid, targets);
  }
}

/**
 * Whether what the kept references of a file resolve against in the file itself moved between
 * two versions of it: its import bindings (by the module they name now, as the model made it
 * absolute: the same text may name another module once a file a path alias looks for appears),
 * attribute types, or the bases, return type or alias of a definition it still has. Definitions
 * that came or went are not here: their names are (`Work.names`), and every reference ending in
 * one is resolved again, here and elsewhere.
 */
function contextMoved(before: FileSymbols, after: FileSymbols): boolean {
  const bindings = (f: FileSymbols) => JSON.stringify(f.bindings.map((b) => [b.local, b.module, b.member]));
  if (bindings(before) !== bindings(after)) return true;
  const attrs = (f: FileSymbols) => JSON.stringify([...f.attrTypes].map(([cls, m]) => [cls, [...m]]));
  if (attrs(before) !== attrs(after)) return true;
  const shape = (e: Ent) => `(${(e.bases ?? []).join(',')})${e.returns ?? ''}=${e.alias ?? ''}`;
  const was = new Map(definitions(before).map((e) => [e.id, shape(e)]));
  return definitions(after).some((e) => was.has(e.id) && was.get(e.id) !== shape(e));
}

/** Every definition of a file, those of a qualified name defined twice included (`if X: def f() … else: def f()`). */
function definitions(f: FileSymbols): Ent[] {
  return [...new Set([...f.byQname.values(), ...[...f.dupes.values()].flat(), ...(f.moduleEnt ? [f.moduleEnt] : [])])];
}

/** A call site as the model holds it. */
function siteOf(c: CallArgs, args: string[]): CallSiteInput {
  return { from: c.from, target: c.target, receiver: c.receiver?.kind ?? null, rtype: c.receiver?.kind === 'typed' ? c.receiver.type : null, args };
}

/**
 * Call sites as comparable keys, by callee name: `name → [target receiver rtype n args...]`,
 * fields joined by NUL (which no source text holds; a null is U+0001; n tells `f()` from
 * `f(x)`). Run twice per keystroke over a buffer's every call site: JSON.stringify was 7 % of
 * an edit of a 2,000-line file.
 */
function callKeys(calls: ReadonlyArray<{ target: string; receiver: string | null; rtype: string | null; args: string[] }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of calls) {
    const n = lastSegment(c.target);
    const key = `${c.target}\0${c.receiver ?? '\u0001'}\0${c.rtype ?? '\u0001'}\0${c.args.length}\0${c.args.join('\0')}`;
    const l = out.get(n);
    if (l) l.push(key);
    else out.set(n, [key]);
  }
  return out;
}

/** Callee names whose call sites differ between two `callKeys` maps. */
function changedCallees(a: Map<string, string[]>, b: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const n of new Set([...a.keys(), ...b.keys()])) {
    const x = (a.get(n) ?? []).slice().sort().join('\n');
    const y = (b.get(n) ?? []).slice().sort().join('\n');
    if (x !== y) out.push(n);
  }
  return out;
}

/** The bare name an entity id ends in (`method:a.py:Repo.save` → `save`, `func:a.py:f#2` → `f`). */
function nameOfId(id: string): string {
  return lastSegment(id.slice(id.lastIndexOf(':') + 1)).replace(/#\d+$/, '');
}


/**
 * Ids of the classes whose attributes hold other types between two versions of a file: an
 * attribute type that came, went or changed, or a property getter (what `obj.prop` holds is
 * what it returns) that came, went or returns another type.
 */
function retypedClasses(before: FileSymbols | undefined, after: FileSymbols | undefined): Set<string> {
  const out = new Set<string>();
  const attrs = (f: FileSymbols | undefined) => f?.attrTypes ?? new Map<string, Map<string, string>>();
  const a = attrs(before);
  const b = attrs(after);
  for (const [cls, m] of a) {
    const n = b.get(cls);
    if (!n || n.size !== m.size || [...m].some(([attr, t]) => n.get(attr) !== t)) out.add(cls);
  }
  for (const cls of b.keys()) if (!a.has(cls)) out.add(cls);
  const getters = (f: FileSymbols | undefined) => new Map([...(f?.byQname.values() ?? [])].filter((e) => e.property && e.parent).map((e) => [e.id, e]));
  const g = getters(before);
  const h = getters(after);
  for (const [id, e] of g) if (h.get(id)?.returns !== e.returns) out.add(e.parent!);
  for (const [id, e] of h) if (!g.has(id)) out.add(e.parent!);
  return out;
}
