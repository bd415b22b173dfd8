// The in-memory symbol model that name resolution reads: per file, its entities by qualified
// name, its import bindings and attribute types; across files, modules by dotted name and
// top-level names. Built once from the store, then kept current file by file.
import type { LanguageSupport, ProjectFiles } from '../languages/types';
import { lastSegment } from '../dotted';

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
}

export interface Binding {
  /** Id of the function whose body holds the import; null for a module-level import. */
  scope: string | null;
  local: string | null;
  /** Absolute dotted module (relative imports already made absolute), or as written if that failed. */
  module: string;
  member: string | null;
}

export interface FileSymbols {
  file: string;
  language: LanguageSupport;
  module: string | null;
  byQname: Map<string, Ent>;
  /** Kept apart from byQname: `copy.py` defines both module `copy` and function `copy`. */
  moduleEnt: Ent | undefined;
  /** Qualified names defined more than once (`if X: def f() … else: def f()`): every definition. */
  dupes: Map<string, Ent[]>;
  bindings: Binding[];
  /** The bindings by local name, in file order (lookups ask by name, for every reference). */
  byLocal: Map<string, Binding[]>;
  /** Star imports (`from m import *`), in file order. */
  stars: Binding[];
  /** class id → attribute → type expression */
  attrTypes: Map<string, Map<string, string>>;
  /** Argument types at this file's call sites. */
  calls: CallSite[];
}

/** A call site's argument types (`CallArgs` of languages/types.ts), as the model keeps it. */
export interface CallSite {
  file: string;
  from: string;
  target: string;
  receiver: string | null;
  rtype: string | null;
  args: string[];
}

export interface FileInput {
  file: string;
  language: LanguageSupport;
  module: string | null;
  entities: Ent[];
  bindings: Array<{ from: string; local: string | null; module: string; member: string | null }>;
  attrTypes: Array<{ cls: string; attr: string; type: string }>;
  calls?: Array<Omit<CallSite, 'file'>>;
}

const TOP_KINDS = new Set(['function', 'class', 'interface', 'enum', 'namespace']);

export class SymbolModel {
  readonly files = new Map<string, FileSymbols>();
  readonly byId = new Map<string, Ent>();
  /** Dotted module name (and each of its dotted suffixes) → files. */
  private readonly modules = new Map<string, Set<string>>();
  /** Top-level function/class name → entities, across the workspace. */
  private readonly topByName = new Map<string, Set<Ent>>();
  /** Last segment of a callee → call sites with argument types. */
  private readonly callsByName = new Map<string, Set<CallSite>>();
  /** Directory → its files. */
  private readonly dirs = new Map<string, Set<string>>();
  /** Bumped on every change: caches keyed on it (MROs) drop themselves. */
  generation = 0;

  constructor(readonly project?: ProjectFiles) {}

  setFile(input: FileInput): void {
    this.removeFile(input.file);
    const byQname = new Map<string, Ent>();
    let moduleEnt: Ent | undefined;
    const dupes = new Map<string, Ent[]>();
    for (const e of input.entities) {
      if (e.kind === 'module') moduleEnt = e;
      else {
        const prev = byQname.get(e.qname);
        if (prev && prev.kind === e.kind) dupes.set(e.qname, [...(dupes.get(e.qname) ?? [prev]), e]);
        byQname.set(e.qname, e);
      }
      this.byId.set(e.id, e);
      if (TOP_KINDS.has(e.kind) && e.qname === e.name) addTo(this.topByName, e.name, e);
    }
    const attrTypes = new Map<string, Map<string, string>>();
    for (const a of input.attrTypes) {
      let m = attrTypes.get(a.cls);
      if (!m) attrTypes.set(a.cls, (m = new Map()));
      // An attribute assigned several types holds them as alternatives (`A|B`, at most three).
      const prev = m.get(a.attr);
      const alts = prev === undefined ? [a.type] : [...new Set([...prev.split('|'), ...a.type.split('|')])];
      if (alts.length <= 3) m.set(a.attr, alts.join('|'));
    }
    const bindings = input.bindings.map((b) => ({
      scope: moduleEnt && b.from !== moduleEnt.id ? b.from : null,
      local: b.local,
      member: b.member,
      module: input.language.absoluteModule(b.module, input.file, this.project) ?? b.module,
    }));
    const byLocal = new Map<string, Binding[]>();
    for (const b of bindings) {
      if (b.local === null) continue;
      const list = byLocal.get(b.local);
      if (list) list.push(b);
      else byLocal.set(b.local, [b]);
    }
    const stars = bindings.filter((b) => b.member === '*');
    const calls = (input.calls ?? []).map((c) => ({ ...c, file: input.file }));
    for (const c of calls) addTo(this.callsByName, lastSegment(c.target), c);
    this.files.set(input.file, { file: input.file, language: input.language, module: input.module, byQname, moduleEnt, dupes, bindings, byLocal, stars, attrTypes, calls });
    if (input.module) for (const key of moduleKeys(input.language, input.module)) addTo(this.modules, key, input.file);
    addTo(this.dirs, dirOf(input.file), input.file);
    this.generation++;
  }

  removeFile(file: string): void {
    const fs = this.files.get(file);
    if (!fs) return;
    if (fs.moduleEnt) this.byId.delete(fs.moduleEnt.id);
    // Earlier definitions of a duplicated name are only in `dupes`: they go too.
    for (const e of [...fs.byQname.values(), ...[...fs.dupes.values()].flat()]) {
      this.byId.delete(e.id);
      if (TOP_KINDS.has(e.kind) && e.qname === e.name) removeFrom(this.topByName, e.name, e);
    }
    if (fs.module) for (const key of moduleKeys(fs.language, fs.module)) removeFrom(this.modules, key, file);
    removeFrom(this.dirs, dirOf(file), file);
    for (const c of fs.calls) removeFrom(this.callsByName, lastSegment(c.target), c);
    this.files.delete(file);
    this.generation++;
  }

  /** Files of a dotted module: exact name first, else a unique suffix match (src layouts). */
  moduleFiles(module: string): string[] {
    const exact = [...(this.modules.get(module) ?? [])].filter((f) => this.files.get(f)?.module === module);
    if (exact.length) return exact;
    const bySuffix = [...(this.modules.get(module) ?? [])];
    return bySuffix.length === 1 ? bySuffix : [];
  }

  moduleEntity(file: string): Ent | undefined {
    return this.files.get(file)?.moduleEnt;
  }

  /** Call sites (with argument types) whose callee's last segment is `name`. */
  callsNamed(name: string): CallSite[] {
    return [...(this.callsByName.get(name) ?? [])];
  }

  topLevelNamed(name: string): Ent[] {
    return [...(this.topByName.get(name) ?? [])];
  }

  filesInDir(dir: string): string[] {
    return [...(this.dirs.get(dir) ?? [])];
  }
}

export function dirOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : file.slice(0, i);
}

function moduleKeys(language: LanguageSupport, module: string): string[] {
  return language.moduleKeys?.(module) ?? [module];
}

/**
 * Kinds whose members are looked up by qualified name (`C.m`): classes and what behaves like
 * them for lookups (interfaces, enums, namespaces). Only a class is constructed or has bases
 * that run code; the others are containers of names.
 */
export const MEMBER_CONTAINERS: ReadonlySet<string> = new Set(['class', 'interface', 'enum', 'namespace']);
/** Kinds that name a type: what `x: T` or `extends T` may point at. */
export const TYPE_KINDS: ReadonlySet<string> = new Set(['class', 'interface']);

function addTo<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

function removeFrom<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  const s = m.get(k);
  if (!s) return;
  s.delete(v);
  if (!s.size) m.delete(k);
}
