// Name lookup over the symbol model: scopes, imports and re-exports, class members through the
// MRO, attribute and return types, aliases. The rules are in ./README.md; ./resolve.ts turns
// these lookups into edges per relation.
import type { Binding, CallSite, Ent, FileSymbols, SymbolModel } from './model';
import { dirOf, MEMBER_CONTAINERS, TYPE_KINDS } from './model';
import type { RefInput } from './resolve';
import { SitesOfName } from './site-index';
import { CONTAINER_TYPE, ELEMENT_TYPE, MODULE_VALUE } from '../languages/types';

export const MAX_CANDIDATES = 5;
const MAX_HOPS = 5;
const MAX_NESTING = 12;
/** Type expressions `param:QNAME:INDEX:NAME`: a parameter typed by what its callers pass. */
const PARAM = 'param:';
/** Type expressions `fixture:NAME`: a parameter the test framework supplies by name. */
const FIXTURE = 'fixture:';

export interface Found {
  ents: Ent[];
  ambiguous: boolean;
}
const NOT_FOUND: Found = { ents: [], ambiguous: false };
const NO_ENTS: Ent[] = [];

/**
 * A call site's callee as the site cache keeps it: most sites (all but a few hundred of the
 * stdlib's 206k) resolve to one entity or none without a caller-typed parameter, and are kept
 * as that entity or null. With an answer object per site (1.9M sites on site-packages), the
 * caches held ~460 MB at the end of resolving site-packages; with this, ~170 MB.
 */
type SiteHit = Ent | null | SiteAnswer;
class SiteAnswer {
  constructor(
    readonly ents: Ent[],
    readonly inferred: boolean,
  ) {}
}
const NO_SITE = { ents: [] as readonly Ent[] };

/** A type expression's classes, whether they went through a caller-typed parameter, and whether the nesting limit cut the lookup. */
interface TypeHit {
  ents: Ent[];
  inferred: boolean;
  cut: boolean;
}

export class NameLookup {
  protected mroCache = new Map<string, { mro: Ent[]; open: boolean }>();
  /** `scope id \0 type expression \0 depth` → the classes it names, found without a cut, at any nesting. */
  protected typeExact = new Map<string, TypeHit>();
  /** The same for answers the nesting limit cut, kept for outermost lookups only. */
  protected typeCache = new Map<string, TypeHit>();
  /**
   * Set when a lookup went through a parameter typed by its callers (`param:`): true of the
   * workspace as it is, not of every caller the function may have, so such edges are marked
   * ambiguous. Reset per reference by the resolver.
   */
  protected inferred = false;
  /** How deep type and alias lookups are nested: code like `x = x.copy()` must not recurse forever. */
  protected nesting = 0;
  /**
   * Lookups cut short by the nesting limit so far, counting answers taken from a cache keyed by
   * nesting (they may have been cut). An answer found without a cut is the same at any nesting,
   * and only such answers go into caches not keyed by nesting (`mroCache`, `paramExact`,
   * `siteExact`, `typeExact`, `moduleMembers`): a parameter, call site, type or module member
   * asked about again deeper in a lookup is then not worked out once per nesting level.
   */
  protected cuts = 0;
  protected cacheGen = -1;
  /** `param:` types by depth, found without a cut. */
  protected paramExact = new Map<string, Ent[]>();
  /** `param:` types by depth and nesting, where the nesting limit cut the lookup. */
  protected paramCache = new Map<string, Ent[]>();
  /**
   * What a call site's callee resolves to, and whether that went through a caller-typed
   * parameter: every parameter of a function asks about the same sites (one resolution each).
   */
  private siteExact = new Map<CallSite, SiteHit>();
  /** The same by nesting, for answers the nesting limit cut. */
  private siteCache = new Map<number, Map<CallSite, SiteHit>>();
  /** Members of a module entity by `name` (and `\0hops` past the first hop), found without a cut, per generation. */
  private moduleMembers = new Map<Ent, Map<string, { ents: Ent[]; inferred: boolean }>>();
  /** What each import binding names (`boundModules`), per generation. */
  private bindingModules = new Map<Binding, Ent[]>();
  /** Call sites by callee name, sorted by what they call, per generation. */
  private siteIndex = new Map<string, SitesOfName>();

  constructor(protected readonly model: SymbolModel) {}

  /**
   * Forgets what lookups learnt (tens of MB after resolving a whole index): the next change
   * would drop it anyway, and until then it only holds memory.
   */
  dropCaches(): void {
    this.cacheGen = -1;
    this.syncCaches();
  }

  /** Drops the caches when the model changed since they were filled. */
  protected syncCaches(): void {
    if (this.cacheGen === this.model.generation) return;
    this.mroCache.clear();
    this.typeCache.clear();
    this.typeExact.clear();
    this.paramExact.clear();
    this.paramCache.clear();
    this.siteExact.clear();
    this.siteCache.clear();
    this.siteIndex.clear();
    this.bindingModules.clear();
    this.moduleMembers.clear();
    this.cacheGen = this.model.generation;
  }

  // --- lookups ------------------------------------------------------------------------------

  protected withReceiver(fs: FileSymbols, from: Ent, ref: RefInput): Found {
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
  protected inClass(cls: Ent, segs: string[], skipSelf: boolean): Found {
    let c: Ent | undefined = cls;
    for (let i = 0; i < segs.length - 1 && c; i++) c = this.attrClass(c, segs[i]);
    if (!c) return NOT_FOUND;
    const m = this.member(c, segs[segs.length - 1], () => true, skipSelf && segs.length === 1);
    return m ? { ents: [m], ambiguous: false } : NOT_FOUND;
  }

  /** The class of attribute `attr` of `cls` (from `self.attr = Cls()` and annotations). */
  protected attrClass(cls: Ent, attr: string): Ent | undefined {
    return this.attrClasses(cls, attr)[0];
  }

  /**
   * The classes an attribute holds (`elements`: those of the container it holds, `[]T`): its
   * recorded types, or what a property getter of its name returns.
   */
  protected attrClasses(cls: Ent, attr: string, elements = false): Ent[] {
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
  protected typeClass(fs: FileSymbols, from: Ent, type: string, depth = 0): Ent | undefined {
    return this.typeClasses(fs, from, type, depth)[0];
  }

  /** Every class a type expression may name, alternatives in order (see `typeClass`). */
  protected typeClasses(fs: FileSymbols, from: Ent, type: string, depth = 0): Ent[] {
    if (depth > 4) return [];
    if (this.nesting > MAX_NESTING) {
      this.cuts++;
      return [];
    }
    // Many references in a scope ask for the same types. An answer found without a cut holds at
    // any nesting (see `cuts`); one the nesting limit cut is kept for outermost lookups only.
    const key = `${from.id}\0${type}\0${depth}`;
    const outermost = this.nesting === 0;
    const hit = this.typeExact.get(key) ?? (outermost ? this.typeCache.get(key) : undefined);
    if (hit !== undefined) {
      if (hit.inferred) this.inferred = true;
      if (hit.cut) this.cuts++;
      return hit.ents;
    }
    const before = this.inferred;
    const cuts = this.cuts;
    let inferred = false;
    this.nesting++;
    try {
      // A class some alternative names without a caller-typed parameter is certain.
      const found: Ent[] = [];
      const certain = new Set<Ent>();
      for (const alt of type.split('|')) {
        this.inferred = false;
        for (const c of this.typeClassOf(fs, from, alt, depth)) {
          if (!found.includes(c)) found.push(c);
          if (!this.inferred) certain.add(c);
        }
      }
      const out = found.slice(0, MAX_CANDIDATES);
      inferred = out.some((c) => !certain.has(c));
      if (this.cuts === cuts) this.typeExact.set(key, { ents: out, inferred, cut: false });
      else if (outermost) this.typeCache.set(key, { ents: out, inferred, cut: true });
      return out;
    } finally {
      this.inferred = before || inferred;
      this.nesting--;
    }
  }

  protected typeClassOf(fs: FileSymbols, from: Ent, type: string, depth: number): Ent[] {
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
    if (type.startsWith(FIXTURE)) return elements ? [] : this.fixtureType(fs, from, type.slice(FIXTURE.length), depth);
    if (type.startsWith(PARAM)) return elements ? [] : this.paramType(fs, type, depth);
    if ((segs[0] === 'self' || segs[0] === 'cls') && segs.length > 1) {
      const cls = this.enclosingClass(from);
      if (cls) t = this.inClass(cls, segs.slice(1), false).ents[0];
    } else t = this.single(this.path(fs, from, type, true));
    return t ? of(t) : [];
  }

  /** The classes of the elements of a container: a function's `[]T` return, an attribute's `[]T` type. */
  protected elementsOf(t: Ent, depth: number): Ent[] {
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

  /**
   * A parameter the test framework fills (`fixture:db`): the type of what fixture `db` gives —
   * one in the test's own scope (defined or imported), else the nearest of the language's
   * fixture files (pytest `conftest.py` up the folders) that defines it.
   */
  protected fixtureType(fs: FileSymbols, from: Ent, name: string, depth: number): Ent[] {
    const own = this.single(this.path(fs, from, name, false));
    if (own) return own.kind === 'function' ? this.typeOfEntity(own, depth) : [];
    for (const f of fs.language.fixtureScopes?.(fs.file) ?? []) {
      const e = this.model.files.get(f)?.byQname.get(name);
      if (e) return e.kind === 'function' ? this.typeOfEntity(e, depth) : [];
    }
    return [];
  }

  /**
   * A parameter without annotation (`param:Service.__init__:0:repo`, the function's qualified
   * name in this file, the argument position or -1 for keyword-only, the name): the class
   * every call site in the workspace passes for it. A site that passes something of unknown
   * type, or another class, or reaches the function only as one of several candidates, leaves
   * it unknown; sites that leave the parameter to its default do not count.
   */
  protected paramType(fs: FileSymbols, type: string, depth: number): Ent[] {
    const exact = `${fs.file}\0${type}\0${depth}`;
    let out = this.paramExact.get(exact);
    if (out === undefined) {
      const key = `${exact}\0${this.nesting}`;
      out = this.paramCache.get(key);
      if (out !== undefined) this.cuts++;
      else {
        const cuts = this.cuts;
        out = this.paramTypeOf(fs, type, depth);
        if (this.cuts === cuts) this.paramExact.set(exact, out);
        else this.paramCache.set(key, out);
      }
    }
    if (out.length) this.inferred = true;
    return out;
  }

  protected callSite(sfs: FileSymbols, sfrom: Ent, site: CallSite): { ents: readonly Ent[] } {
    // Nested lookups are cut by the nesting limit: an answer cut holds for its nesting level only.
    let level = this.siteCache.get(this.nesting);
    if (!level) this.siteCache.set(this.nesting, (level = new Map()));
    let hit = this.siteExact.get(site);
    if (hit === undefined) {
      hit = level.get(site);
      if (hit !== undefined) this.cuts++;
    }
    if (hit !== undefined) {
      if (hit === null) return NO_SITE;
      if (hit instanceof SiteAnswer) {
        if (hit.inferred) this.inferred = true;
        return hit;
      }
      return { ents: [hit] };
    }
    const before = this.inferred;
    const cuts = this.cuts;
    this.inferred = false;
    const found = this.withReceiver(sfs, sfrom, { file: site.file, source: site.from, relation: 'CALLS', target: site.target, receiver: site.receiver, rtype: site.rtype, configKind: null, catches: null });
    const inferred = this.inferred;
    (this.cuts === cuts ? this.siteExact : level).set(site, !inferred && found.ents.length === 0 ? null : !inferred && found.ents.length === 1 ? found.ents[0] : new SiteAnswer(found.ents, inferred));
    this.inferred = before || inferred;
    return found;
  }

  protected paramTypeOf(fs: FileSymbols, type: string, depth: number): Ent[] {
    const [, qname, pos, name] = type.split(':');
    const fn = fs.byQname.get(qname);
    if (!fn || (fn.kind !== 'function' && fn.kind !== 'method') || fs.dupes.has(qname)) return [];
    const index = Number(pos);
    // A constructor is called by its class's name, and by its subclasses' that inherit it.
    const cls = fn.name === fs.language.constructorName && fn.parent ? this.model.byId.get(fn.parent) : undefined;
    // (`super().__init__(x)` by its own name.)
    const names = cls?.kind === 'class' ? [...this.subclassNamesOf(cls.name), fn.name] : [fn.name];
    let agreed: Ent | undefined;
    for (const n of names) {
      const walk = this.sitesNamed(n).walk(fn);
      for (let site = walk.next(); site; site = walk.next()) {
        const sfs = this.model.files.get(site.file);
        const sfrom = this.model.byId.get(site.from);
        if (!sfs || !sfrom) {
          walk.settle([]);
          continue;
        }
        const cuts = this.cuts;
        const found = this.callSite(sfs, sfrom, site);
        const hits = found.ents.map((e) => this.boundBy(e));
        // Callees found without a cut are the site's at any nesting: later walks skip it
        // unless they ask about one of them.
        if (this.cuts === cuts && this.siteExact.has(site)) walk.settle(hits);
        if (!hits.includes(fn)) continue;
        if (hits.length > 1 || site.args.includes('*')) return [];
        // `Base.method(self, x)` passes the instance first: positions do not line up.
        if (fn.kind === 'method' && site.receiver === null && found.ents[0]?.kind !== 'class') return [];
        const keyword = site.args.find((a) => a.startsWith(`${name}=`));
        const positional = site.args.filter((a) => !/^\w+=/.test(a));
        const arg = keyword !== undefined ? keyword.slice(name.length + 1) : index >= 0 ? positional[index] : undefined;
        if (arg === undefined) continue; // left to its default
        if (!arg) return [];
        const classes = this.typeClasses(sfs, sfrom, arg, depth + 1);
        if (classes.length !== 1 || (agreed && agreed !== classes[0])) return [];
        agreed = classes[0];
      }
    }
    return agreed ? [agreed] : [];
  }

  /** The call sites of a callee name, indexed by what they call (site-index.ts). */
  private sitesNamed(name: string): SitesOfName {
    let s = this.siteIndex.get(name);
    if (!s) this.siteIndex.set(name, (s = new SitesOfName(this.model.callsNamed(name))));
    return s;
  }

  /** `name` and the names of the classes that inherit from a class so named, transitively. */
  protected subclassNamesOf(name: string): string[] {
    const out = [name];
    for (let i = 0; i < out.length && out.length < 50; i++) for (const c of this.model.classesBasedOn(out[i])) if (!out.includes(c.name)) out.push(c.name);
    return out;
  }

  /** The classes a value named by entity `t` may be instances of. */
  protected typeOfEntity(t: Ent, depth: number): Ent[] {
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
  protected member(cls: Ent, name: string, ok: (e: Ent) => boolean, skipSelf = false): Ent | undefined {
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

  protected constructorOf(cls: Ent): Ent {
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
    const cuts = this.cuts;
    visit(cls, 0);
    const r = { mro: out, open };
    // Bases resolved deep in another lookup may have been cut short (an alias base left a
    // global): such an MRO is kept for no one else, or the order of lookups would decide edges.
    if (this.cuts === cuts) this.mroCache.set(cls.id, r);
    else this.mroCache.delete(cls.id);
    return r;
  }

  protected enclosingClass(from: Ent): Ent | undefined {
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
        base = this.binding(b, 0);
      }
      if (!base.ents.length) {
        if (i === 1) return this.packagePrefix(fs, segs);
        continue;
      }
      let cur = this.derefAll(base.ents);
      for (let k = i; k < segs.length; k++) {
        const s = segs[k];
        cur = this.derefAll(cur.length === 1 ? this.inside(cur[0], s, 0) : cur.flatMap((e) => this.inside(e, s, 0)));
        if (!cur.length) return NOT_FOUND;
      }
      return { ents: cur.slice(0, MAX_CANDIDATES), ambiguous: base.ambiguous || cur.length > 1 };
    }
    return NOT_FOUND;
  }

  /** `a.b.f` where only `import a.b.c` bound anything: `a.b` is still a package prefix. */
  protected packagePrefix(fs: FileSymbols, segs: string[]): Found {
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
  protected inside(e: Ent, name: string, hops: number): Ent[] {
    if (MEMBER_CONTAINERS.has(e.kind)) {
      const m = this.member(e, name, () => true);
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
      const cls = fs?.moduleEnt ? this.typeClass(fs, fs.moduleEnt, e.returns) : undefined;
      const m = cls ? this.member(cls, name, () => true) : undefined;
      return m ? [m] : [];
    }
    if (e.kind === 'attr' && e.parent) {
      // An instance held by an attribute of one (`current_app.json.dumps` through `Flask.json`).
      const owner = this.model.byId.get(e.parent);
      const cls = owner ? this.attrClass(owner, e.name) : undefined;
      const m = cls ? this.member(cls, name, () => true) : undefined;
      return m ? [m] : [];
    }
    if (e.kind !== 'module') return [];
    // A module's members are asked for again and again (`os.path`, a name through a chain of
    // star imports): answers found without a cut are kept, as the other exact caches are.
    let byName = this.moduleMembers.get(e);
    const key = hops === 0 ? name : `${name}\0${hops}`;
    const hit = byName?.get(key);
    if (hit !== undefined) {
      if (hit.inferred) this.inferred = true;
      return hit.ents;
    }
    const before = this.inferred;
    const cuts = this.cuts;
    this.inferred = false;
    const ents = this.moduleMember(e, name, hops);
    const inferred = this.inferred;
    this.inferred = before || inferred;
    if (this.cuts === cuts) {
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

  protected binding(b: Binding, hops: number): Found {
    const mods = this.boundModules(b);
    if (!b.member) {
      if (!mods.length) return NOT_FOUND;
      // A module whose value was replaced (`module.exports = X`) yields X.
      const value = hops < MAX_HOPS ? this.model.files.get(mods[0].file)?.byLocal.get(MODULE_VALUE)?.find((x) => x.scope === null) : undefined;
      const v = value ? this.binding(value, hops + 1) : NOT_FOUND;
      // Several files of one name, equally near (graph/README.md, "Module names"): each, ambiguous.
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
  protected boundModules(b: Binding): Ent[] {
    let mods = this.bindingModules.get(b);
    if (mods === undefined) {
      mods = this.moduleEnts(b.module, b);
      this.bindingModules.set(b, mods.length ? mods : NO_ENTS);
    }
    return mods;
  }

  /** Module entities of an import's module, as seen from the importing file. */
  protected moduleEnts(module: string, from: { file: string; relative?: boolean }): Ent[] {
    return this.model.moduleFiles(module, from).map((f) => this.model.moduleEntity(f)).filter((e): e is Ent => !!e);
  }

  /**
   * IMPORTS targets are absolute dotted names: the longest module prefix, then members. A
   * prefix inside what one of the file's relative imports names is found by module name.
   */
  protected importTarget(fs: FileSymbols, dotted: string): Found {
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
    if (b) return this.binding(b, 0);
    for (const star of fs.stars) {
      const r = this.boundModules(star).flatMap((m) => this.inside(m, n, 1));
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
  protected bindingFor(fs: FileSymbols, from: Ent, local: string): FileSymbols['bindings'][number] | undefined {
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
  protected allDefinitions(fs: FileSymbols, e: Ent): Found {
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
  protected deref(e: Ent, depth = 0): Ent[] {
    if (e.kind !== 'global' || !e.alias || depth > 3) return [e];
    if (this.nesting > MAX_NESTING) {
      this.cuts++;
      return [e];
    }
    const fs = this.model.files.get(e.file);
    const scope = fs?.moduleEnt;
    if (!fs || !scope) return [e];
    this.nesting++;
    try {
      const found = this.path(fs, scope, e.alias, false);
      return found.ents.length ? found.ents.filter((x) => x !== e).flatMap((x) => this.deref(x, depth + 1)) : [e];
    } finally {
      this.nesting--;
    }
  }

  protected single(f: Found): Ent | undefined {
    return f.ents.length === 1 ? f.ents[0] : undefined;
  }

}

