// What is inside a module or a class, and what an import binding names: top-level names,
// submodules, re-exports through bindings and star imports, members through the MRO, and the
// instances module globals and attributes hold. Rules in ./README.md; the lookup of names at a
// place (scopes, the dotted paths that reach these) is in ./lookup.ts.
import type { Binding, Ent, FileSymbols, SymbolModel } from './model';
import { MEMBER_CONTAINERS } from './model';
import { NO_ENTS, NOT_FOUND, MAX_CANDIDATES, type Found, type LookupState, type RecentMap } from './lookup-state';
import type { NameLookup } from './lookup';
import { MODULE_VALUE } from '../languages/types';

/** Re-exports followed at most this deep (`a` re-exports `b` re-exports `c`...). */
const MAX_HOPS = 5;

export class ModuleMembers {
  /** Members of a module entity by `name` (and `\0hops` past the first hop), found without a cut. */
  private readonly moduleMembers: RecentMap<Ent, Map<string, { ents: Ent[]; inferred: boolean }>>;
  /** What each import binding names (`boundModules`). */
  private readonly bindingModules: RecentMap<Binding, Ent[]>;
  private readonly model: SymbolModel;

  constructor(
    private readonly state: LookupState,
    private readonly lookup: NameLookup,
  ) {
    this.model = state.model;
    this.moduleMembers = state.recent();
    this.bindingModules = state.recent();
  }

  /** `a.b.f` where only `import a.b.c` bound anything: `a.b` is still a package prefix. */
  packagePrefix(fs: FileSymbols, segs: string[]): Found {
    if (segs.length < 2 || !fs.bindings.some((b) => b.local?.startsWith(segs[0] + '.'))) return NOT_FOUND;
    for (let i = segs.length - 1; i >= 1; i--) {
      const files = this.model.moduleFiles(segs.slice(0, i).join('.'), { file: fs.file });
      if (!files.length) continue;
      let cur = files.map((f) => this.model.moduleEntity(f)).filter((e): e is Ent => !!e);
      for (const s of segs.slice(i)) cur = cur.flatMap((e) => this.inside(e, s, 0));
      return cur.length ? { ents: cur, ambiguous: cur.length > 1 } : NOT_FOUND;
    }
    return NOT_FOUND;
  }

  /** Member `name` inside a module (top level, submodule, re-export) or a class (MRO). */
  inside(e: Ent, name: string, hops: number): Ent[] {
    if (MEMBER_CONTAINERS.has(e.kind)) {
      const m = this.lookup.member(e, name, () => true);
      return m ? [m] : [];
    }
    if (e.kind === 'global') {
      // Members defined in place (an object literal's methods: `obj.m`).
      const own = this.model.files.get(e.file)?.byQname.get(`${e.qname}.${name}`);
      if (own) return [own];
    }
    if (e.kind === 'global' && e.returns) {
      // An instance held by a module global (`logger = Logger()` imported elsewhere).
      const fs = this.model.files.get(e.file);
      const cls = fs?.moduleEnt ? this.lookup.typeClass(fs, fs.moduleEnt, e.returns) : undefined;
      const m = cls ? this.lookup.member(cls, name, () => true) : undefined;
      return m ? [m] : [];
    }
    if (e.kind === 'attr' && e.parent) {
      // An instance held by an attribute of one (`current_app.json.dumps` through `Flask.json`).
      const owner = this.model.byId.get(e.parent);
      const cls = owner ? this.lookup.attrClass(owner, e.name) : undefined;
      const m = cls ? this.lookup.member(cls, name, () => true) : undefined;
      return m ? [m] : [];
    }
    if (e.kind !== 'module') return [];
    // A module's members are asked for again and again (`os.path`, a name through a chain of
    // star imports): answers found without a cut are kept, as the other exact caches are.
    const { state } = this;
    let byName = this.moduleMembers.get(e);
    const key = hops === 0 ? name : `${name}\0${hops}`;
    const hit = byName?.get(key);
    if (hit !== undefined) {
      if (hit.inferred) state.inferred = true;
      return hit.ents;
    }
    const before = state.inferred;
    const cuts = state.cuts;
    state.inferred = false;
    const ents = this.moduleMember(e, name, hops);
    const inferred = state.inferred;
    state.inferred = before || inferred;
    if (state.cuts === cuts) {
      if (!byName) this.moduleMembers.set(e, (byName = new Map()));
      byName.set(key, { ents, inferred });
    }
    return ents;
  }

  private moduleMember(e: Ent, name: string, hops: number): Ent[] {
    const fs = this.model.files.get(e.file);
    if (!fs) return [];
    const top = fs.byQname.get(name);
    if (top && top.kind !== 'module') return [top];
    if (fs.module) {
      const file = this.model.firstModuleFile(`${fs.module}.${name}`);
      const sub = file !== undefined ? this.model.moduleEntity(file) : undefined;
      if (sub) return [sub];
    }
    if (hops < MAX_HOPS) {
      const b = fs.byLocal.get(name)?.find((x) => x.scope === null);
      if (b) return this.binding(b, hops + 1).ents;
      for (const star of fs.stars) {
        const r = this.boundModules(star).flatMap((m) => this.inside(m, name, hops + 1));
        if (r.length) return r;
      }
    }
    return [];
  }

  /** What an import binding stands for: its module, or the member it imports from it. */
  binding(b: Binding, hops: number): Found {
    const mods = this.boundModules(b);
    if (!b.member) {
      if (!mods.length) return NOT_FOUND;
      // A module whose value was replaced (`module.exports = X`) yields X.
      const value = hops < MAX_HOPS ? this.model.files.get(mods[0].file)?.byLocal.get(MODULE_VALUE)?.find((x) => x.scope === null) : undefined;
      const v = value ? this.binding(value, hops + 1) : NOT_FOUND;
      // Several files of one name, equally near (README.md, "Module names"): each, ambiguous.
      return v.ents.length ? v : { ents: mods.slice(0, MAX_CANDIDATES), ambiguous: mods.length > 1 };
    }
    const ents = mods.flatMap((m) => this.inside(m, b.member!, hops));
    return ents.length ? { ents, ambiguous: ents.length > 1 } : NOT_FOUND;
  }

  /**
   * The module entities an import binding names. Only the model decides them (no nesting, no
   * inferred types): kept per binding until the model changes. A name is looked up through the
   * same few bindings of a file again and again (3.4M times for site-packages' 460k bindings).
   */
  boundModules(b: Binding): Ent[] {
    let mods = this.bindingModules.get(b);
    if (mods === undefined) {
      mods = this.moduleEnts(b.module, b);
      this.bindingModules.set(b, mods.length ? mods : NO_ENTS);
    }
    return mods;
  }

  /** Module entities of an import's module, as seen from the importing file. */
  private moduleEnts(module: string, from: { file: string; relative?: boolean }): Ent[] {
    return this.model.moduleFiles(module, from).map((f) => this.model.moduleEntity(f)).filter((e): e is Ent => !!e);
  }

  /**
   * IMPORTS targets are absolute dotted names: the longest module prefix, then members. A
   * prefix inside what one of the file's relative imports names is found by module name.
   */
  importTarget(fs: FileSymbols, dotted: string): Found {
    const segs = dotted.split('.');
    for (let i = segs.length; i >= 1; i--) {
      const prefix = segs.slice(0, i).join('.');
      const relative = fs.bindings.some((b) => b.relative && (prefix === b.module || prefix.startsWith(b.module + '.')));
      const mods = this.moduleEnts(prefix, { file: fs.file, relative });
      if (!mods.length) continue;
      let cur = mods.slice(0, 1);
      for (const s of segs.slice(i)) cur = cur.flatMap((e) => this.inside(e, s, 0));
      return cur.length ? { ents: cur, ambiguous: false } : NOT_FOUND;
    }
    return NOT_FOUND;
  }
}
