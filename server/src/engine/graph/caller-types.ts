// Types a parameter gets from outside its function: what every call site in the workspace
// passes for it (`param:`), or what the test framework's fixture of its name gives (`fixture:`).
// Rules in ./README.md ("Parameters typed by their callers"); ./lookup.ts asks these when a type
// expression starts with one of the two prefixes.
import type { CallSite, Ent, FileSymbols, SymbolModel } from './model';
import type { LookupState } from './lookup-state';
import type { NameLookup } from './lookup';
import { SitesOfName } from './site-index';

/** Type expressions `param:QNAME:INDEX:NAME`: a parameter typed by what its callers pass. */
export const PARAM = 'param:';
/** Type expressions `fixture:NAME`: a parameter the test framework supplies by name. */
export const FIXTURE = 'fixture:';

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

export class CallerTypes {
  /** `param:` types by depth, found without a cut. */
  private readonly paramExact: Map<string, Ent[]>;
  /** `param:` types by depth and nesting, where the nesting limit cut the lookup. */
  private readonly paramCache: Map<string, Ent[]>;
  /**
   * What a call site's callee resolves to, and whether that went through a caller-typed
   * parameter: every parameter of a function asks about the same sites (one resolution each).
   */
  private readonly siteExact: Map<CallSite, SiteHit>;
  /** The same by nesting, for answers the nesting limit cut. */
  private readonly siteCache: Map<number, Map<CallSite, SiteHit>>;
  /** Call sites by callee name, sorted by what they call. */
  private readonly siteIndex: Map<string, SitesOfName>;
  private readonly model: SymbolModel;

  constructor(
    private readonly state: LookupState,
    private readonly lookup: NameLookup,
  ) {
    this.model = state.model;
    this.paramExact = state.cache(new Map());
    this.paramCache = state.cache(new Map());
    this.siteExact = state.cache(new Map());
    this.siteCache = state.cache(new Map());
    this.siteIndex = state.cache(new Map());
  }

  /**
   * A parameter the test framework fills (`fixture:db`): the type of what fixture `db` gives —
   * one in the test's own scope (defined or imported), else the nearest of the language's
   * fixture files (pytest `conftest.py` up the folders) that defines it.
   */
  fixtureType(fs: FileSymbols, from: Ent, name: string, depth: number): Ent[] {
    const own = this.lookup.single(this.lookup.path(fs, from, name, false));
    if (own) return own.kind === 'function' ? this.lookup.typeOfEntity(own, depth) : [];
    for (const f of fs.language.fixtureScopes?.(fs.file) ?? []) {
      const e = this.model.files.get(f)?.byQname.get(name);
      if (e) return e.kind === 'function' ? this.lookup.typeOfEntity(e, depth) : [];
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
  paramType(fs: FileSymbols, type: string, depth: number): Ent[] {
    const { state } = this;
    const exact = `${fs.file}\0${type}\0${depth}`;
    let out = this.paramExact.get(exact);
    if (out === undefined) {
      const key = `${exact}\0${state.nesting}`;
      out = this.paramCache.get(key);
      if (out !== undefined) state.cuts++;
      else {
        const cuts = state.cuts;
        out = this.paramTypeOf(fs, type, depth);
        if (state.cuts === cuts) this.paramExact.set(exact, out);
        else this.paramCache.set(key, out);
      }
    }
    if (out.length) state.inferred = true;
    return out;
  }

  /** What the callee of a call site is (one resolution per site, however many parameters ask). */
  callSite(sfs: FileSymbols, sfrom: Ent, site: CallSite): { ents: readonly Ent[] } {
    const { state } = this;
    // Nested lookups are cut by the nesting limit: an answer cut holds for its nesting level only.
    let level = this.siteCache.get(state.nesting);
    if (!level) this.siteCache.set(state.nesting, (level = new Map()));
    let hit = this.siteExact.get(site);
    if (hit === undefined) {
      hit = level.get(site);
      if (hit !== undefined) state.cuts++;
    }
    if (hit !== undefined) {
      if (hit === null) return NO_SITE;
      if (hit instanceof SiteAnswer) {
        if (hit.inferred) state.inferred = true;
        return hit;
      }
      return { ents: [hit] };
    }
    const before = state.inferred;
    const cuts = state.cuts;
    state.inferred = false;
    const found = this.lookup.withReceiver(sfs, sfrom, { file: site.file, source: site.from, relation: 'CALLS', target: site.target, receiver: site.receiver, rtype: site.rtype, configKind: null, catches: null });
    const inferred = state.inferred;
    (state.cuts === cuts ? this.siteExact : level).set(site, !inferred && found.ents.length === 0 ? null : !inferred && found.ents.length === 1 ? found.ents[0] : new SiteAnswer(found.ents, inferred));
    state.inferred = before || inferred;
    return found;
  }

  private paramTypeOf(fs: FileSymbols, type: string, depth: number): Ent[] {
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
        const cuts = this.state.cuts;
        const found = this.callSite(sfs, sfrom, site);
        const hits = found.ents.map((e) => this.lookup.boundBy(e));
        // Callees found without a cut are the site's at any nesting: later walks skip it
        // unless they ask about one of them.
        if (this.state.cuts === cuts && this.siteExact.has(site)) walk.settle(hits);
        if (!hits.includes(fn)) continue;
        if (hits.length > 1 || site.args.includes('*')) return [];
        // `Base.method(self, x)` passes the instance first: positions do not line up.
        if (fn.kind === 'method' && site.receiver === null && found.ents[0]?.kind !== 'class') return [];
        const keyword = site.args.find((a) => a.startsWith(`${name}=`));
        const positional = site.args.filter((a) => !/^\w+=/.test(a));
        const arg = keyword !== undefined ? keyword.slice(name.length + 1) : index >= 0 ? positional[index] : undefined;
        if (arg === undefined) continue; // left to its default
        if (!arg) return [];
        const classes = this.lookup.typeClasses(sfs, sfrom, arg, depth + 1);
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
  private subclassNamesOf(name: string): string[] {
    const out = [name];
    for (let i = 0; i < out.length && out.length < 50; i++) for (const c of this.model.classesBasedOn(out[i])) if (!out.includes(c.name)) out.push(c.name);
    return out;
  }
}
