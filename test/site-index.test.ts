// The call sites a parameter's typing walks (graph/site-index.ts): only those that may call the
// function asked about, always in the order of the name's site list, never one skipped that
// a walk should see.
import { describe, expect, it } from 'vitest';
import type { CallSite, Ent } from '../server/src/engine/graph/model';
import { SitesOfName, type SiteWalk } from '../server/src/engine/graph/site-index';

const ent = (name: string) => ({ id: `func:a.py:${name}`, name }) as unknown as Ent;
const site = (n: number) => ({ file: 'b.py', from: `f${n}`, target: 'get', receiver: null, rtype: null, args: [] }) as CallSite;

const A = ent('A');
const B = ent('B');
const sites = [0, 1, 2, 3, 4, 5].map(site);
/** Sites 0, 2, 4 call A; 1 and 5 call B; 3 calls both (one of two candidates). */
const calls = (s: CallSite): Ent[] => {
  const n = sites.indexOf(s);
  return n === 3 ? [A, B] : n % 2 === 0 ? [A] : [B];
};

function visit(walk: SiteWalk, settle = true, inside?: (s: CallSite) => void): number[] {
  const seen: number[] = [];
  for (let s = walk.next(); s; s = walk.next()) {
    seen.push(sites.indexOf(s));
    inside?.(s);
    if (settle) walk.settle(calls(s));
  }
  return seen;
}

describe('call sites by what they call', () => {
  it('a first walk visits every site in order; later walks only the callee’s', () => {
    const idx = new SitesOfName(sites);
    expect(visit(idx.walk(A))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(visit(idx.walk(A))).toEqual([0, 2, 3, 4]);
    expect(visit(idx.walk(B))).toEqual([1, 3, 5]);
    expect(visit(idx.walk(ent('C')))).toEqual([]);
  });

  it('sites left unsettled are visited by every walk, in order with the settled ones', () => {
    const idx = new SitesOfName(sites);
    const walk = idx.walk(A);
    for (let s = walk.next(); s; s = walk.next()) if (sites.indexOf(s) % 3 === 0) walk.settle(calls(s)); // 0 and 3 settle
    expect(visit(idx.walk(B), false)).toEqual([1, 2, 3, 4, 5]);
    expect(visit(idx.walk(A), false)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a walk that stops early leaves the sites it did not reach to the next', () => {
    const idx = new SitesOfName(sites);
    const walk = idx.walk(B);
    walk.settle(calls(walk.next()!)); // site 0 (A), then stop
    expect(visit(idx.walk(B))).toEqual([1, 2, 3, 4, 5]);
    expect(visit(idx.walk(B))).toEqual([1, 3, 5]);
  });

  it('a site a nested walk settles is still visited by the walk around it', () => {
    const idx = new SitesOfName(sites);
    let nested = false;
    const outer = visit(idx.walk(A), true, (s) => {
      if (nested || sites.indexOf(s) !== 1) return;
      nested = true;
      expect(visit(idx.walk(B))).toEqual([1, 2, 3, 4, 5]);
    });
    expect(outer).toEqual([0, 1, 2, 3, 4, 5]);
    expect(visit(idx.walk(A))).toEqual([0, 2, 3, 4]);
  });
});
