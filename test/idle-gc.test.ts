// The language server collects garbage when its client goes quiet, or when the heap has grown
// far past what the last collection left; never twice within the minimum gap.
import { afterEach, describe, expect, it } from 'vitest';
import { IdleCollector } from '../server/src/lsp/idle-gc';

const made: IdleCollector[] = [];
afterEach(() => made.splice(0).forEach((c) => c.dispose()));

function collector(): { c: IdleCollector; runs: number[] } {
  const runs: number[] = [];
  const c = new IdleCollector(() => runs.push(Date.now()));
  made.push(c);
  return { c, runs };
}

describe('IdleCollector', () => {
  it('collects once the client has been quiet after activity, and not again until there is more', () => {
    const { c, runs } = collector();
    const t0 = Date.now();
    c.check(t0 + 60_000); // no activity since it started: nothing to collect
    expect(runs.length).toBe(0);
    c.activity();
    c.check(Date.now() + 500); // still busy (quiet for less than 2 s) and the heap has not grown
    expect(runs.length).toBe(0);
    c.check(Date.now() + 25_000); // quiet, and the gap since the last one has passed
    expect(runs.length).toBe(1);
    c.check(Date.now() + 60_000); // no activity since: nothing new to collect
    expect(runs.length).toBe(1);
    expect(c.collections).toBe(1);
  });

  it('never collects twice within the gap, even when asked', () => {
    const { c, runs } = collector();
    c.activity();
    c.check(Date.now() + 25_000);
    c.activity();
    c.check(Date.now() + 5_000); // quiet again, but only 5 s after the last collection
    expect(runs.length).toBe(1);
  });

  it('collects during continuous activity only once the heap has grown past the threshold', () => {
    const { c, runs } = collector();
    const t = Date.now() + 25_000;
    c.activity(t);
    c.check(t + 100); // busy, and the heap is what it was
    expect(runs.length).toBe(0);
    const hold: number[][] = [];
    for (let i = 0; i < 16; i++) hold.push(new Array(1_000_000).fill(i + 0.5)); // ~128 MB of doubles
    c.activity(t + 200);
    c.check(t + 300); // still busy, but grown
    expect(runs.length).toBe(1);
    expect(hold.length).toBe(16);
  });
});
