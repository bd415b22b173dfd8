// The call sites of one callee name, sorted by what they were found to call. Typing a parameter
// by its callers (lookup.ts `paramTypeOf`) asks, for each function, about every site of its name:
// on site-packages 37k questions walked 4.2M sites, most of them settled long before as calling
// some other function of that name. A walk here visits only the sites settled as calling the
// function asked about, and those not settled yet, in the order of the name's site list.
import type { CallSite, Ent } from './model';

const NONE: readonly number[] = [];

export class SitesOfName {
  readonly sites: readonly CallSite[];
  /** Indexes of settled sites, ascending, by each callee they were found to call. */
  private readonly byCallee = new Map<Ent, number[]>();
  /** Indexes of sites not settled when last compacted, ascending; `settledAt` marks those since. */
  private unsettled: number[];
  /** Per site, 0 while unsettled, else the number of walks begun when it settled. */
  private readonly settledAt: Uint32Array;
  private walks = 0;
  private stale = 0;

  constructor(sites: Iterable<CallSite>) {
    this.sites = [...sites];
    this.unsettled = this.sites.map((_, i) => i);
    this.settledAt = new Uint32Array(this.sites.length);
  }

  /** A walk over the sites that may call `callee`, in site order. */
  walk(callee: Ent): SiteWalk {
    // A copy: a walk nested in this one (a caller's argument typed by another function of the
    // same name) may settle sites into the list while this one reads it.
    return new SiteWalk(this, this.byCallee.get(callee)?.slice() ?? NONE, this.unsettled, ++this.walks);
  }

  /**
   * @internal Settled before walk `walk` began. One settled since (by a walk nested in it) is
   * not in its copy of the callee's list: the walk visits it as if unsettled.
   */
  settledBefore(i: number, walk: number): boolean {
    const at = this.settledAt[i];
    return at !== 0 && at < walk;
  }

  /** @internal Site `i` calls exactly `callees`, whatever lookup asks (none: nothing to ask about). */
  settle(i: number, callees: readonly Ent[]): void {
    if (this.settledAt[i]) return;
    this.settledAt[i] = this.walks;
    // Dropped from `unsettled` when enough have settled that walks would mostly skip.
    if (++this.stale * 2 > this.unsettled.length) {
      this.unsettled = this.unsettled.filter((k) => !this.settledAt[k]);
      this.stale = 0;
    }
    for (const c of callees) {
      const list = this.byCallee.get(c);
      if (!list) {
        this.byCallee.set(c, [i]);
        continue;
      }
      // Sites settle in index order within a walk, not across walks: insert in place.
      let at = list.length;
      while (at > 0 && list[at - 1] > i) at--;
      if (list[at - 1] !== i) list.splice(at, 0, i);
    }
  }
}

export class SiteWalk {
  /** Whether the current site was settled before this walk reached it (its callees are known). */
  private known = false;
  private a = 0;
  private b = 0;
  private current = -1;

  constructor(
    private readonly of: SitesOfName,
    private readonly mine: readonly number[],
    private readonly unsettled: readonly number[],
    private readonly serial: number,
  ) {}

  /** The next site that may call the callee, or undefined at the end. */
  next(): CallSite | undefined {
    const { mine, unsettled } = this;
    while (this.b < unsettled.length && this.of.settledBefore(unsettled[this.b], this.serial)) this.b++;
    if (this.a >= mine.length && this.b >= unsettled.length) return undefined;
    this.known = this.b >= unsettled.length || (this.a < mine.length && mine[this.a] < unsettled[this.b]);
    this.current = this.known ? mine[this.a++] : unsettled[this.b++];
    return this.of.sites[this.current];
  }

  /** The current site calls exactly `callees` at any nesting of lookups. */
  settle(callees: readonly Ent[]): void {
    if (!this.known) this.of.settle(this.current, callees);
  }
}
