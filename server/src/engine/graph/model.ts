// The in-memory symbol model that name resolution reads: per file, its entities by qualified
// name, its import bindings and attribute types; across files, modules by dotted name and
// top-level names. Built once from the store, then kept current file by file.
import type { ImportName, LanguageSupport, ProjectFiles, WorkspaceLayout } from '../languages/types';
import { lastSegment } from '../dotted';
import { CallSites, type CallSite, type CallSiteInput, type CallSource } from './call-sites';
import { SetsByKey } from './sets-by-key';

export type { CallSite, CallSource } from './call-sites';

/** Empty, shared by the files that have no duplicates or attribute types: never written. */
const NO_MAP: ReadonlyMap<string, never> = new Map<string, never>();

export interface Ent {
  id: string;
  kind: string;
  name: string;
  qname: string;
  file: string;
  parent: string | null;
  bases: string[] | null;
  returns?: string | null;
  alias?: string | null;
  /** A property getter: reading the attribute calls it. */
  property?: boolean;
  /** A typing stub (`@overload`) of another definition of the same name. */
  overload?: boolean;
}

export interface Binding {
  /** Id of the function whose body holds the import; null for a module-level import. */
  scope: string | null;
  local: string | null;
  /** Absolute dotted module (relative imports already made absolute), or as written if that failed. */
  module: string;
  member: string | null;
  /** The file holding the import: its place decides between files of the same import name. */
  file: string;
  /** Written relative to the file (`..models`): found by module name from the root, not by import name. */
  relative: boolean;
}

/** A file under one of its import names. */
interface Named {
  file: string;
  kind: ImportName['kind'];
  dir: string;
}

export interface FileSymbols {
  file: string;
  language: LanguageSupport;
  module: string | null;
  byQname: Map<string, Ent>;
  /** Kept apart from byQname: `copy.py` defines both module `copy` and function `copy`. */
  moduleEnt: Ent | undefined;
  /** Qualified names defined more than once (`if X: def f() … else: def f()`): every definition. */
  dupes: ReadonlyMap<string, Ent[]>;
  bindings: Binding[];
  /** The bindings by local name, in file order (lookups ask by name, for every reference). */
  byLocal: Map<string, Binding[]>;
  /** Star imports (`from m import *`), in file order. */
  stars: Binding[];
  /** class id → attribute → type expression */
  attrTypes: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

export interface FileInput {
  file: string;
  language: LanguageSupport;
  module: string | null;
  entities: Ent[];
  bindings: Array<{ from: string; local: string | null; module: string; member: string | null }>;
  attrTypes: Array<{ cls: string; attr: string; type: string }>;
  /** Argument types at its call sites; left out by a model read back from the index (call-sites.ts). */
  calls?: CallSiteInput[];
  /** With `calls` left out: the last segments of its callees' names, where its sites are found (a first index). */
  callNames?: Iterable<string>;
}

const TOP_KINDS = new Set(['function', 'class', 'interface', 'enum', 'namespace']);

export class SymbolModel {
  readonly files = new Map<string, FileSymbols>();
  readonly byId = new Map<string, Ent>();
  /** Module name (the path from the root) → files: what relative imports and submodules find. */
  private readonly modules = new SetsByKey<string, string>();
  /**
   * Import name → the files under it, built when first asked after a layout file (`__init__.py`)
   * came or went; files set since then are named on the next ask (`unnamed`).
   */
  private imports: Map<string, Named[]> | null = null;
  private readonly namesOf = new Map<string, string[]>();
  private readonly basedirs = new Map<string, string>();
  private readonly unnamed = new Set<string>();
  private layout: WorkspaceLayout = this.newLayout();
  /** Top-level function/class name → entities, across the workspace. */
  private readonly topByName = new SetsByKey<string, Ent>();
  /** Argument types at call sites, by file and by callee name. */
  private readonly callSites = new CallSites((id) => this.byId.get(id)?.id ?? id);
  /** Last segment of a base expression → the classes that list it among their bases. */
  private readonly classesByBase = new SetsByKey<string, Ent>();
  /** Directory → its files. */
  private readonly dirs = new SetsByKey<string, string>();
  /** Bumped on every change: caches keyed on it (MROs) drop themselves. */
  generation = 0;

  constructor(readonly project?: ProjectFiles) {}

  setFile(input: FileInput): void {
    const existed = this.files.has(input.file);
    this.removeFile(input.file, true);
    const byQname = new Map<string, Ent>();
    let moduleEnt: Ent | undefined;
    const dupes = new Map<string, Ent[]>();
    for (const e of input.entities) {
      if (e.kind === 'module') moduleEnt = e;
      else {
        const prev = byQname.get(e.qname);
        if (prev && prev.kind === e.kind) dupes.set(e.qname, [...(dupes.get(e.qname) ?? [prev]), e]);
        // A method and an attribute of one name (`this.m = this.m.bind(this)` in a constructor
        // below the method, `f = staticmethod(f)`): the method is what a call of it runs.
        if (!(prev && e.kind === 'attr' && (prev.kind === 'method' || prev.kind === 'function'))) byQname.set(e.qname, e);
      }
      this.byId.set(e.id, e);
      if (TOP_KINDS.has(e.kind) && e.qname === e.name) this.topByName.add(e.name, e);
      if (e.kind === 'class') for (const b of e.bases ?? []) this.classesByBase.add(lastSegment(b), e);
    }
    foldOverloads(byQname, dupes);
    const attrTypes = new Map<string, Map<string, string>>();
    for (const a of input.attrTypes) {
      let m = attrTypes.get(a.cls);
      if (!m) attrTypes.set(a.cls, (m = new Map()));
      // An attribute assigned several types holds them as alternatives (`A|B`, at most three).
      const prev = m.get(a.attr);
      const alts = prev === undefined ? [a.type] : [...new Set([...prev.split('|'), ...a.type.split('|')])];
      if (alts.length <= 3) m.set(a.attr, alts.join('|'));
    }
    const bindings = input.bindings.map((b) => {
      const module = input.language.absoluteModule(b.module, input.file, this.project) ?? b.module;
      return { scope: moduleEnt && b.from !== moduleEnt.id ? b.from : null, local: b.local, member: b.member, module, file: input.file, relative: module !== b.module };
    });
    const byLocal = new Map<string, Binding[]>();
    for (const b of bindings) {
      if (b.local === null) continue;
      const list = byLocal.get(b.local);
      if (list) list.push(b);
      else byLocal.set(b.local, [b]);
    }
    const stars = bindings.filter((b) => b.member === '*');
    this.callSites.set(input.file, input.calls, input.callNames);
    // Most files have neither: one shared empty map, not 2 × 17K on site-packages (~5 MB).
    this.files.set(input.file, { file: input.file, language: input.language, module: input.module, byQname, moduleEnt, dupes: dupes.size ? dupes : NO_MAP, bindings, byLocal, stars, attrTypes: attrTypes.size ? attrTypes : NO_MAP });
    if (input.module) this.modules.add(input.module, input.file);
    // A new `__init__.py` renames the files around it, and a new folder may be a source root
    // (`src/`, a namespace package): the index is built anew when next asked.
    if (!existed && (input.language.isLayoutFile?.(input.file) || !this.dirs.has(dirOf(input.file)))) this.imports = null;
    else if (this.imports) this.unnamed.add(input.file);
    this.dirs.add(dirOf(input.file), input.file);
    this.generation++;
  }

  /**
   * A project file that steers import names changed: every file is named anew, now, so that
   * the project files are read (and their reads recorded) before the run ends.
   */
  relayout(): void {
    this.imports = null;
    this.importIndex();
    this.generation++;
  }

  /** `replacing`: a new version of the file follows at once (its layout role is unchanged). */
  removeFile(file: string, replacing = false): void {
    const fs = this.files.get(file);
    if (!fs) return;
    if (fs.moduleEnt) this.byId.delete(fs.moduleEnt.id);
    // Earlier definitions of a duplicated name are only in `dupes`: they go too.
    for (const e of [...fs.byQname.values(), ...[...fs.dupes.values()].flat()]) {
      this.byId.delete(e.id);
      if (TOP_KINDS.has(e.kind) && e.qname === e.name) this.topByName.remove(e.name, e);
      if (e.kind === 'class') for (const b of e.bases ?? []) this.classesByBase.remove(lastSegment(b), e);
    }
    if (fs.module) this.modules.remove(fs.module, file);
    if (!replacing && fs.language.isLayoutFile?.(file)) this.imports = null;
    else this.unname(file);
    this.dirs.remove(dirOf(file), file);
    this.callSites.remove(file);
    this.files.delete(file);
    this.generation++;
  }

  /**
   * Files a module name finds from `from`. A relative import (and a package's submodule) finds
   * files by module name. An absolute import finds them by import name, and among several
   * files of one name (graph/README.md, "Module names"): a declared source root's, else one
   * in the importer's own basedir, else the root's, else — unless the language knows the name
   * lives outside the workspace — another basedir's; among those, the nearest to the importer.
   */
  moduleFiles(module: string, from?: { file: string; relative?: boolean }): string[] {
    if (!from) return this.filesOfModule(module);
    return this.sameModule(this.moduleFilesFrom(module, from), from.file);
  }

  /**
   * The first file of a module name in path order (a submodule probed for a member: asked for
   * most member lookups in a module, and most names have no file or one).
   */
  firstModuleFile(module: string): string | undefined {
    let first: string | undefined;
    for (const f of this.modules.get(module)) if (first === undefined || f < first) first = f;
    return first;
  }

  /** Files by module name, in path order. */
  private filesOfModule(module: string): string[] {
    return [...this.modules.get(module)].sort();
  }

  /**
   * Of files in one folder that are one module written several ways (a source and its stub or
   * compiled output), those the importer's language ranks nearest (`sameModuleRank`).
   */
  private sameModule(files: string[], importer: string): string[] {
    if (files.length < 2) return files;
    const rank = this.files.get(importer)?.language.sameModuleRank;
    if (!rank) return files;
    const ranks = files.map((f) => rank(importer, f));
    const dirs = files.map(dirOf);
    return files.filter((_, i) => !dirs.some((d, j) => d === dirs[i] && ranks[j] < ranks[i]));
  }

  private moduleFilesFrom(module: string, from: { file: string; relative?: boolean }): string[] {
    if (from.relative) return this.filesOfModule(module);
    const lang = this.files.get(from.file)?.language;
    const family = lang ? (lang.family ?? lang.id) : undefined;
    const all = (this.importIndex().get(module) ?? []).filter((n) => {
      const l = this.files.get(n.file)?.language;
      return !!l && (l.family ?? l.id) === family;
    });
    if (all.length <= 1 && (!all.length || all[0].kind !== 'basedir')) return all.map((n) => n.file);
    const declared = all.filter((n) => n.kind === 'declared');
    if (declared.length) return nearest(declared, from.file);
    const own = this.basedirs.get(from.file) ?? '';
    const mine = all.filter((n) => n.dir === own);
    if (mine.length) return nearest(mine, from.file);
    const root = all.filter((n) => n.kind === 'root');
    if (root.length) return nearest(root, from.file);
    const top = module.split('.')[0];
    if (lang?.isExternalModule?.(top, this.layout)) return [];
    return nearest(all, from.file);
  }

  /** The import-name index, built or brought up to date. */
  private importIndex(): Map<string, Named[]> {
    if (!this.imports) {
      this.imports = new Map();
      this.namesOf.clear();
      this.basedirs.clear();
      this.unnamed.clear();
      this.layout = this.newLayout();
      for (const file of this.files.keys()) this.name(file);
    } else if (this.unnamed.size) {
      for (const file of this.unnamed) {
        this.unname(file);
        if (this.files.has(file)) this.name(file);
      }
      this.unnamed.clear();
    }
    return this.imports;
  }

  private name(file: string): void {
    const fs = this.files.get(file)!;
    const lang = fs.language;
    const names = lang.importNames ? lang.importNames(file, this.layout) : fs.module ? [{ name: fs.module, kind: 'declared' as const, dir: '' }] : [];
    for (const n of names) {
      const list = this.imports!.get(n.name);
      const entry = { file, kind: n.kind, dir: n.dir };
      if (list) list.push(entry);
      else this.imports!.set(n.name, [entry]);
    }
    this.namesOf.set(file, names.map((n) => n.name));
    this.basedirs.set(file, lang.basedir?.(file, this.layout) ?? '');
  }

  private unname(file: string): void {
    if (!this.imports) return;
    for (const n of this.namesOf.get(file) ?? []) {
      const list = this.imports.get(n)?.filter((e) => e.file !== file);
      if (list?.length) this.imports.set(n, list);
      else this.imports.delete(n);
    }
    this.namesOf.delete(file);
    this.basedirs.delete(file);
  }

  private newLayout(): WorkspaceLayout {
    const memo = new Map<string, unknown>();
    return {
      project: this.project,
      has: (file) => this.files.has(file),
      files: () => this.files.keys(),
      memo: <T>(key: string, compute: () => T): T => {
        if (memo.has(key)) return memo.get(key) as T;
        const v = compute();
        memo.set(key, v);
        return v;
      },
    };
  }

  moduleEntity(file: string): Ent | undefined {
    return this.files.get(file)?.moduleEnt;
  }

  /**
   * Classes whose bases name `name` (`Base`, `mod.Base`), in the order they came into the model:
   * kept up to date with each file, where a lookup would otherwise walk every entity after each
   * change (~6 ms on the stdlib, per edit that asks).
   */
  classesBasedOn(name: string): Iterable<Ent> {
    return this.classesByBase.get(name);
  }

  /** Call sites (with argument types) whose callee's last segment is `name` (call-sites.ts). */
  callsNamed(name: string): Iterable<CallSite> {
    return this.callSites.named(name);
  }

  /** The call sites of `file`, read from the index the first time they are asked for. */
  callsOf(file: string): readonly CallSite[] {
    return this.callSites.of(file);
  }

  /** Forgets the call sites read from the index (call-sites.ts `release`). */
  releaseCallSites(): void {
    this.callSites.release();
  }

  /** From now on, files set without call sites have theirs in `source` (a model loaded from the index). */
  readCallsFrom(source: CallSource): void {
    this.callSites.readFrom(source);
  }

  topLevelNamed(name: string): Ent[] {
    return [...this.topByName.get(name)];
  }

  filesInDir(dir: string): string[] {
    return [...this.dirs.get(dir)];
  }
}

export function dirOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : file.slice(0, i);
}

/**
 * `@overload` stubs are not definitions of their own: a name's definitions are the ones that
 * are not stubs (one: no longer a duplicate), or the first stub when there are only stubs.
 */
function foldOverloads(byQname: Map<string, Ent>, dupes: Map<string, Ent[]>): void {
  for (const [qname, all] of dupes) {
    if (!all.some((e) => e.overload)) continue;
    const real = all.filter((e) => !e.overload);
    const kept = real.length ? real : all.slice(0, 1);
    byQname.set(qname, kept[kept.length - 1]);
    if (kept.length > 1) dupes.set(qname, kept);
    else dupes.delete(qname);
  }
}

/** The entries nearest to `file`: the longest common folder prefix. */
function nearest(entries: Named[], file: string): string[] {
  const files = [...new Set(entries.map((e) => e.file))];
  if (files.length === 1) return files;
  const dir = dirOf(file).split('/');
  const shared = (f: string) => {
    const d = dirOf(f).split('/');
    let k = 0;
    while (k < d.length && k < dir.length && d[k] === dir[k] && d[k] !== '') k++;
    return k;
  };
  const best = Math.max(...files.map(shared));
  // In path order, not the order files were added in (README.md, "Module names").
  return files.filter((f) => shared(f) === best).sort();
}

/**
 * Kinds whose members are looked up by qualified name (`C.m`): classes and what behaves like
 * them for lookups (interfaces, enums, namespaces). Only a class is constructed or has bases
 * that run code; the others are containers of names.
 */
export const MEMBER_CONTAINERS: ReadonlySet<string> = new Set(['class', 'interface', 'enum', 'namespace']);
/** Kinds that name a type: what `x: T` or `extends T` may point at. */
export const TYPE_KINDS: ReadonlySet<string> = new Set(['class', 'interface']);

