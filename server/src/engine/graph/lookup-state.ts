// What the parts of a name lookup share while one reference is resolved: how deep lookups are
// nested, how many were cut short, whether an answer went through a caller-typed parameter, and
// the caches they fill, dropped together when the model changes. lookup.ts, module-members.ts
// and caller-types.ts each hold their own caches here; the resolver holds the state.
import type { Ent, SymbolModel } from './model';

/** Candidates kept for one reference, each an ambiguous edge (README.md, "the candidate limit"). */
export const MAX_CANDIDATES = 5;
/** How deep type and alias lookups may nest: code like `x = x.copy()` must not recurse forever. */
export const MAX_NESTING = 12;

/**
 * Entries a `recent` cache keeps per generation (two generations at most). Unbounded, the type
 * and module caches held ~30 MB more at the end of resolving site-packages (the run's peak) for
 * no time saved: 20,000 gave the same edges in the same time (and 5,000 no slower).
 */
const RECENT_ENTRIES = 20_000;

export interface Found {
  ents: Ent[];
  ambiguous: boolean;
}
export const NOT_FOUND: Found = { ents: [], ambiguous: false };
export const NO_ENTS: Ent[] = [];

export class LookupState {
  /**
   * Set when a lookup went through a parameter typed by its callers (`param:`): true of the
   * workspace as it is, not of every caller the function may have, so such edges are marked
   * ambiguous. Reset per reference by the resolver.
   */
  inferred = false;
  /** How deep type and alias lookups are nested (see MAX_NESTING). */
  nesting = 0;
  /**
   * Lookups cut short by the nesting limit so far, counting answers taken from a cache keyed by
   * nesting (they may have been cut). An answer found without a cut is the same at any nesting,
   * and only such answers go into caches not keyed by nesting (`mroCache`, `paramExact`,
   * `siteExact`, `typeExact`, `moduleMembers`): a parameter, call site, type or module member
   * asked about again deeper in a lookup is then not worked out once per nesting level.
   */
  cuts = 0;
  private cacheGen = -1;
  private readonly caches: Array<{ clear(): void }> = [];

  constructor(readonly model: SymbolModel) {}

  /** A cache of what lookups learnt, emptied whenever the model changes. */
  cache<C extends { clear(): void }>(c: C): C {
    this.caches.push(c);
    return c;
  }

  /**
   * A cache that keeps what was used lately (`RecentMap`), for answers asked about again while
   * nearby references resolve (a scope's types, an import's modules), not across a whole index.
   */
  recent<K, V>(): RecentMap<K, V> {
    return this.cache(new RecentMap<K, V>(RECENT_ENTRIES));
  }

  /** Drops the caches when the model changed since they were filled. */
  sync(): void {
    if (this.cacheGen === this.model.generation) return;
    for (const c of this.caches) c.clear();
    this.cacheGen = this.model.generation;
  }

  /**
   * Forgets what lookups learnt (tens of MB after resolving a whole index): the next change
   * would drop it anyway, and until then it only holds memory.
   */
  drop(): void {
    this.cacheGen = -1;
    this.sync();
  }
}

/**
 * A map that forgets what was not used lately: entries go into a young generation; when it is
 * full it becomes the old one and the previous old one is dropped. A hit in the old generation
 * moves to the young one. Holds at most twice `limit` entries.
 */
export class RecentMap<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(private readonly limit: number) {}

  get(k: K): V | undefined {
    const v = this.young.get(k);
    if (v !== undefined) return v;
    const was = this.old.get(k);
    if (was !== undefined) this.set(k, was);
    return was;
  }

  set(k: K, v: V): this {
    this.young.set(k, v);
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
    return this;
  }

  clear(): void {
    this.young = new Map();
    this.old = new Map();
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}
