// What the parts of a name lookup share while one reference is resolved: how deep lookups are
// nested, how many were cut short, whether an answer went through a caller-typed parameter, and
// the caches they fill, dropped together when the model changes. lookup.ts, module-members.ts
// and caller-types.ts each hold their own caches here; the resolver holds the state.
import type { Ent, SymbolModel } from './model';

/** Candidates kept for one reference, each an ambiguous edge (README.md, "the candidate limit"). */
export const MAX_CANDIDATES = 5;
/** How deep type and alias lookups may nest: code like `x = x.copy()` must not recurse forever. */
export const MAX_NESTING = 12;

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
