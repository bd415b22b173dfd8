// Name lookup over the symbol model: scopes, dotted paths, class members through the MRO,
// receivers, attribute and return types, aliases. The rules are in ./README.md; ./resolve.ts
// turns these lookups into edges per relation. Two parts it asks, each with its own caches in
// the shared LookupState: what is inside a module and what an import names
// (./module-members.ts), and parameters typed by their callers or fixtures (./caller-types.ts).
import { entityId } from '../../../../protocol';
import type { Ent, FileSymbols, SymbolModel } from './model';
import { dirOf, TYPE_KINDS } from './model';
import type { RefInput } from './resolve';
import { LookupState, MAX_CANDIDATES, MAX_NESTING, NOT_FOUND, type Found, type RecentMap } from './lookup-state';
import { ModuleMembers } from './module-members';
import { CallerTypes, FIXTURE, PARAM } from './caller-types';
import { CONTAINER_TYPE, ELEMENT_TYPE } from '../languages/types';

/** A type expression's classes, whether they went through a caller-typed parameter, and whether the nesting limit cut the lookup. */
interface TypeHit {
  ents: Ent[];
  inferred: boolean;
  cut: boolean;
}

export class NameLookup {
  /** What lookups share while a reference is resolved, and the caches they fill. */
  readonly state: LookupState;
  /** Inside modules and classes, and what imports name. */
  readonly members: ModuleMembers;
  /** Parameters typed by their callers or by test fixtures. */
  readonly callers: CallerTypes;
  private readonly mroCache: Map<string, { mro: Ent[]; open: boolean }>;
  /** `scope id \0 type expression \0 depth` → the classes it names, found without a cut, at any nesting. */
  private readonly typeExact: RecentMap<string, TypeHit>;
  /** The same for answers the nesting limit cut, kept for outermost lookups only. */
  private readonly typeCache: RecentMap<string, TypeHit>;

  constructor(protected readonly model: SymbolModel) {
    this.state = new LookupState(model);
    this.members = new ModuleMembers(this.state, this);
    this.callers = new CallerTypes(this.state, this);
    this.mroCache = this.state.cache(new Map());
    this.typeExact = this.state.recent();
    this.typeCache = this.state.recent();
  }

  // --- lookups ------------------------------------------------------------------------------

  withReceiver(fs: FileSymbols, from: Ent, ref: RefInput): Found {
    const segs = ref.target.split('.');
    switch (ref.receiver) {
      case null:
        return this.path(fs, from, ref.target, true);
      case 'self':
      case 'cls':
      case 'super': {
        const cls = this.enclosingClass(from);
        if (!cls) return NOT_FOUND;
        return this.inClass(cls, segs, ref.receiver === 'super');
      }
      case 'typed': {
        // Each class the type may be (`A|B`): one edge when they agree on the member, else
        // every candidate, marked ambiguous.
        const ents: Ent[] = [];
        for (const cls of this.typeClasses(fs, from, ref.rtype!)) for (const m of this.inClass(cls, segs, false).ents) if (!ents.includes(m)) ents.push(m);
        return { ents, ambiguous: ents.length > 1 };
      }
      default:
        return NOT_FOUND;
    }
  }

  /** `a.m` looked up from class `cls`: attribute types for all but the last segment. */
  private inClass(cls: Ent, segs: string[], skipSelf: boolean): Found {
    let c: Ent | undefined = cls;
    for (let i = 0; i < segs.length - 1 && c; i++) c = this.attrClass(c, segs[i]);
    if (!c) return NOT_FOUND;
    const m = this.member(c, segs[segs.length - 1], () => true, skipSelf && segs.length === 1);
    return m ? { ents: [m], ambiguous: false } : NOT_FOUND;
  }

  /** The class of attribute `attr` of `cls` (from `self.attr = Cls()` and annotations). */
  attrClass(cls: Ent, attr: string): Ent | undefined {
    return this.attrClasses(cls, attr)[0];
  }

  /**
   * The classes an attribute holds (`elements`: those of the container it holds, `[]T`): its
   * recorded types, or what a property getter of its name returns.
   */
  private attrClasses(cls: Ent, attr: string, elements = false): Ent[] {
    for (const k of this.mro(cls).mro) {
      const fs = this.model.files.get(k.file);
      if (!fs) continue;
      // A property getter (`@property`, a TypeScript `get`) of a type we can tell: what it returns.
      const getter = fs.byQname.get(`${k.qname}.${attr}`);
      const r = getter?.property ? getter.returns : null;
      if (r && r.startsWith(CONTAINER_TYPE) === elements) {
        const classes = this.typeClasses(fs, getter!, elements ? r.slice(CONTAINER_TYPE.length) : r);
        if (classes.length) return classes;
      }
      const t = fs.attrTypes.get(k.id)?.get(attr);
      if (!t) continue;
      if (t.startsWith(CONTAINER_TYPE) !== elements) return [];
      return this.typeClasses(fs, k, elements ? t.slice(CONTAINER_TYPE.length) : t);
    }
    return [];
  }

  /**
   * The class a type expression names, seen from `from`: a class; a function, method or global
   * whose recorded type (`returns`) names one; `self.m` / `cls.m` for a method of the enclosing
   * class; `T().m` for what method `m` returns on a `T`. A few hops at most. Of alternatives
   * (`A|B`), the first that names a class.
   */
  typeClass(fs: FileSymbols, from: Ent, type: string, depth = 0): Ent | undefined {
    return this.typeClasses(fs, from, type, depth)[0];
  }

  /** Every class a type expression may name, alternatives in order (see `typeClass`). */
  typeClasses(fs: FileSymbols, from: Ent, type: string, depth = 0): Ent[] {
    if (depth > 4) return [];
    if (this.state.nesting > MAX_NESTING) {
      this.state.cuts++;
      return [];
    }
    // Many references in a scope ask for the same types. An answer found without a cut holds at
    // any nesting (see `cuts`); one the nesting limit cut is kept for outermost lookups only.
    const key = `${from.id}\0${type}\0${depth}`;
    const outermost = this.state.nesting === 0;
    const hit = this.typeExact.get(key) ?? (outermost ? this.typeCache.get(key) : undefined);
    if (hit !== undefined) {
      if (hit.inferred) this.state.inferred = true;
      if (hit.cut) this.state.cuts++;
      return hit.ents;
    }
    const before = this.state.inferred;
    const cuts = this.state.cuts;
    let inferred = false;
    this.state.nesting++;
    try {
      // A class some alternative names without a caller-typed parameter is certain.
      const found: Ent[] = [];
      const certain = new Set<Ent>();
      for (const alt of type.split('|')) {
        this.state.inferred = false;
        for (const c of this.typeClassOf(fs, from, alt, depth)) {
          if (!found.includes(c)) found.push(c);
          if (!this.state.inferred) certain.add(c);
        }
      }
      const out = found.slice(0, MAX_CANDIDATES);
      inferred = out.some((c) => !certain.has(c));
      if (this.state.cuts === cuts) this.typeExact.set(key, { ents: out, inferred, cut: false });
      else if (outermost) this.typeCache.set(key, { ents: out, inferred, cut: true });
      return out;
    } finally {
      this.state.inferred = before || inferred;
      this.state.nesting--;
    }
  }

  private typeClassOf(fs: FileSymbols, from: Ent, type: string, depth: number): Ent[] {
    const elements = type.startsWith(ELEMENT_TYPE);
    return this.valueClasses(fs, from, elements ? type.slice(ELEMENT_TYPE.length) : type, depth, elements);
  }

  /** What an expression (`self.m`, `T().m`, a name) names, then its type or (`elements`) its elements' type. */
  private valueClasses(fs: FileSymbols, from: Ent, type: string, depth: number, elements: boolean): Ent[] {
    const of = (t: Ent) => (elements ? this.elementsOf(t, depth) : this.typeOfEntity(t, depth));
    let t: Ent | undefined;
    const call = type.lastIndexOf('().');
    const segs = type.split('.');
    if (call > 0) {
      // `T().m`: method `m` of each class `T` may be, then what that method returns.
      return this.typeClasses(fs, from, type.slice(0, call), depth + 1).flatMap((c) => {
        const m = this.inClass(c, type.slice(call + 3).split('.'), false).ents[0];
        return m ? of(m) : [];
      });
    }
    // (Elements of a parameter's or fixture's type are not recorded.)
    if (type.startsWith(FIXTURE)) return elements ? [] : this.callers.fixtureType(fs, from, type.slice(FIXTURE.length), depth);
    if (type.startsWith(PARAM)) return elements ? [] : this.callers.paramType(fs, type, depth);
    if ((segs[0] === 'self' || segs[0] === 'cls') && segs.length > 1) {
      const cls = this.enclosingClass(from);
      if (cls) t = this.inClass(cls, segs.slice(1), false).ents[0];
    } else t = this.single(this.path(fs, from, type, true));
    if (t && !TYPE_KINDS.has(t.kind)) t = this.typeOfSameName(t) ?? t;
    return t ? of(t) : [];
  }

  /**
   * The class or interface declared under a value's name in its file: a type expression means the
   * type (TypeScript's `interface ZodString` beside `const ZodString = $constructor(…)`, one name
   * in two meanings, of which the model's names keep the later). Also for a function: zod's
   * `function $constructor` returns its `interface $constructor`, and an annotation
   * `core.$constructor<T>` means the interface (limited to globals, zod lost 413 such edges).
   */
  private typeOfSameName(value: Ent): Ent | undefined {
    for (const kind of ['interface', 'class'] as const) {
      const twin = this.model.byId.get(entityId(kind, value.file, value.qname));
      if (twin) return twin;
    }
    return undefined;
  }

  /** The classes of the elements of a container: a function's `[]T` return, an attribute's `[]T` type. */
  private elementsOf(t: Ent, depth: number): Ent[] {
    if (depth > 4) return [];
    if (t.kind === 'attr' && t.parent) {
      const owner = this.model.byId.get(t.parent);
      return owner ? this.attrClasses(owner, t.name, true) : [];
    }
    if (t.returns?.startsWith(CONTAINER_TYPE) && (t.kind === 'function' || t.kind === 'method')) {
      const tfs = this.model.files.get(t.file);
      if (tfs) return this.typeClasses(tfs, t, t.returns.slice(CONTAINER_TYPE.length), depth + 1);
    }
    return [];
  }

  /** The classes a value named by entity `t` may be instances of. */
  typeOfEntity(t: Ent, depth: number): Ent[] {
    if (TYPE_KINDS.has(t.kind)) return [t];
    if (t.kind === 'attr' && t.parent) {
      // `Props.cart`: a member of a type has the type recorded for it.
      const owner = this.model.byId.get(t.parent);
      return owner ? this.attrClasses(owner, t.name) : [];
    }
    if (t.returns && !t.returns.startsWith(CONTAINER_TYPE) && (t.kind === 'function' || t.kind === 'method' || t.kind === 'global')) {
      const tfs = this.model.files.get(t.file);
      const scope = t.kind === 'global' ? tfs?.moduleEnt : t;
      if (tfs && scope) return this.typeClasses(tfs, scope, t.returns, depth + 1);
    }
    return [];
  }

  /** Member of a class through its MRO; undefined when absent or possibly in an external base. */
  member(cls: Ent, name: string, ok: (e: Ent) => boolean, skipSelf = false): Ent | undefined {
    const { mro } = this.mro(cls);
    for (const k of skipSelf ? mro.slice(1) : mro) {
      const m = this.model.files.get(k.file)?.byQname.get(`${k.qname}.${name}`);
      if (m && ok(m)) return m;
    }
    return undefined;
  }

  /** What a call to `e` binds its arguments to: a class's constructor, else `e`. */
  boundBy(e: Ent): Ent {
    return e.kind === 'class' ? this.constructorOf(e) : e;
  }

  private constructorOf(cls: Ent): Ent {
    const name = this.model.files.get(cls.file)?.language.constructorName;
    return (name && this.member(cls, name, (e) => e.kind === 'method')) || cls;
  }

  mro(cls: Ent): { mro: Ent[]; open: boolean } {
    const cached = this.mroCache.get(cls.id);
    if (cached) return cached;
    const out: Ent[] = [];
    let open = false;
    const visit = (c: Ent, depth: number) => {
      if (out.includes(c) || depth > 20) return;
      out.push(c);
      const fs = this.model.files.get(c.file);
      const scope = c.parent ? this.model.byId.get(c.parent) : undefined;
      for (const b of c.bases ?? []) {
        if (b === fs?.language.rootClass) continue;
        const base = fs && scope ? this.single(this.path(fs, scope, b, true)) : undefined;
        if (base && TYPE_KINDS.has(base.kind)) visit(base, depth + 1);
        else open = true;
      }
    };
    this.mroCache.set(cls.id, { mro: out, open: false }); // guards against cycles
    const cuts = this.state.cuts;
    visit(cls, 0);
    const r = { mro: out, open };
    // Bases resolved deep in another lookup may have been cut short (an alias base left a
    // global): such an MRO is kept for no one else, or the order of lookups would decide edges.
    if (this.state.cuts === cuts) this.mroCache.set(cls.id, r);
    else this.mroCache.delete(cls.id);
    return r;
  }

  enclosingClass(from: Ent): Ent | undefined {
    let e: Ent | undefined = from;
    while (e && e.kind !== 'class') e = e.parent ? this.model.byId.get(e.parent) : undefined;
    return e;
  }

  /** A dotted path: the longest prefix bound as a name, then members inside it. */
  path(fs: FileSymbols, from: Ent, dotted: string, guess: boolean): Found {
    if (!dotted.includes('.')) {
      // One name (most calls: `len`, `helper`): no prefixes to try, no arrays to make.
      const base = this.name(fs, from, dotted, guess);
      if (!base.ents.length) return NOT_FOUND;
      const cur = this.derefAll(base.ents);
      return { ents: cur.slice(0, MAX_CANDIDATES), ambiguous: base.ambiguous || cur.length > 1 };
    }
    const segs = dotted.split('.');
    for (let i = segs.length; i >= 1; i--) {
      const prefix = segs.slice(0, i).join('.');
      let base: Found;
      if (i === 1) base = this.name(fs, from, prefix, guess && segs.length === 1);
      else {
        const b = this.bindingFor(fs, from, prefix);
        if (!b) continue;
        base = this.members.binding(b, 0);
      }
      if (!base.ents.length) {
        if (i === 1) return this.members.packagePrefix(fs, segs);
        continue;
      }
      let cur = this.derefAll(base.ents);
      for (let k = i; k < segs.length; k++) {
        const s = segs[k];
        cur = this.derefAll(cur.length === 1 ? this.members.inside(cur[0], s, 0) : cur.flatMap((e) => this.members.inside(e, s, 0)));
        if (!cur.length) return NOT_FOUND;
      }
      return { ents: cur.slice(0, MAX_CANDIDATES), ambiguous: base.ambiguous || cur.length > 1 };
    }
    return NOT_FOUND;
  }

  /** A plain name, by the rules of README.md: scopes, file, imports, directory, workspace. */
  name(fs: FileSymbols, from: Ent, n: string, guess: boolean): Found {
    for (let s: Ent | undefined = from; s && s.kind !== 'module'; s = s.parent ? this.model.byId.get(s.parent) : undefined) {
      if (s.kind === 'class' && s !== from) continue;
      const hit = fs.byQname.get(`${s.qname}.${n}`);
      if (hit) return this.allDefinitions(fs, hit);
    }
    const top = fs.byQname.get(n);
    if (top && top.kind !== 'module' && top.kind !== 'attr') return this.allDefinitions(fs, top);
    const b = this.bindingFor(fs, from, n);
    if (b) return this.members.binding(b, 0);
    for (const star of fs.stars) {
      const r = this.members.boundModules(star).flatMap((m) => this.members.inside(m, n, 1));
      if (r.length) return { ents: r, ambiguous: r.length > 1 };
    }
    if (!guess || fs.language.builtins?.has(n)) return NOT_FOUND;
    // Guesses stay among files that can call each other (a Python file never calls TS by name).
    const family = fs.language.family ?? fs.language.id;
    const kin = (f: string) => {
      const l = this.model.files.get(f)?.language;
      return !!l && (l.family ?? l.id) === family;
    };
    const dir = dirOf(fs.file);
    const sameDir = this.model
      .filesInDir(dir)
      .filter((f) => f !== fs.file && kin(f))
      .map((f) => this.model.files.get(f)?.byQname.get(n))
      .filter((e): e is Ent => !!e && (e.kind === 'function' || e.kind === 'class'))
      // In path order, not the order the model learnt the files: the candidates kept past the
      // limit are the same in a cold index and a reopened one.
      .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    if (sameDir.length) return { ents: sameDir, ambiguous: sameDir.length > 1 };
    const all = this.model.topLevelNamed(n).filter((e) => kin(e.file));
    if (all.length === 1) return { ents: all, ambiguous: false };
    return NOT_FOUND;
  }

  // --- helpers ------------------------------------------------------------------------------

  /** The import binding of `local` visible from `from`: the innermost function's own first. */
  private bindingFor(fs: FileSymbols, from: Ent, local: string): FileSymbols['bindings'][number] | undefined {
    let best: FileSymbols['bindings'][number] | undefined;
    let bestDepth = -1;
    for (const b of fs.byLocal.get(local) ?? []) {
      if (b.scope === null) {
        if (bestDepth < 0) {
          best = b;
          bestDepth = 0;
        }
        continue;
      }
      let depth = 1;
      for (let s: Ent | undefined = from; s; s = s.parent ? this.model.byId.get(s.parent) : undefined, depth++) {
        if (s.id === b.scope) {
          const d = 1000 - depth; // the nearer the scope, the better
          if (d > bestDepth) {
            best = b;
            bestDepth = d;
          }
          break;
        }
      }
    }
    return best;
  }

  /** A name defined more than once in a file (conditional definitions): every candidate. */
  private allDefinitions(fs: FileSymbols, e: Ent): Found {
    const all = fs.dupes.get(e.qname);
    return all ? { ents: all, ambiguous: true } : { ents: [e], ambiguous: false };
  }

  /** `ents` with each global that is another name replaced by what it stands for (`deref`); `ents` itself when none is. */
  private derefAll(ents: readonly Ent[]): readonly Ent[] {
    let out: Ent[] | undefined;
    for (let i = 0; i < ents.length; i++) {
      const e = ents[i];
      if (e.kind === 'global' && e.alias) {
        out ??= ents.slice(0, i);
        for (const x of this.deref(e)) out.push(x);
      } else out?.push(e);
    }
    return out ?? ents;
  }

  /** A global that is another name (`X = Y`) stands for what that name resolves to. */
  private deref(e: Ent, depth = 0): Ent[] {
    if (e.kind !== 'global' || !e.alias || depth > 3) return [e];
    if (this.state.nesting > MAX_NESTING) {
      this.state.cuts++;
      return [e];
    }
    const fs = this.model.files.get(e.file);
    const scope = fs?.moduleEnt;
    if (!fs || !scope) return [e];
    this.state.nesting++;
    try {
      const found = this.path(fs, scope, e.alias, false);
      return found.ents.length ? found.ents.filter((x) => x !== e).flatMap((x) => this.deref(x, depth + 1)) : [e];
    } finally {
      this.state.nesting--;
    }
  }

  single(f: Found): Ent | undefined {
    return f.ents.length === 1 ? f.ents[0] : undefined;
  }

}

