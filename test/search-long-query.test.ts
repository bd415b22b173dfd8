// A whole log pasted as the query: search reads its start and its end (the description, and the
// traceback that ends a report), says that it did, and no step of reading it is quadratic in
// its words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_MAX_QUERY_CHARS } from '../protocol';
import { queryTerms } from '../server/src/engine/search/lexical';
import { analyzeQuery, readablePart } from '../server/src/engine/search/query';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

/** `n` distinct lower-case words (base-26 numerals), space-separated. */
const distinctWords = (n: number) => Array.from({ length: n }, (_, i) => `w${i.toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)])}`).join(' ');

describe('the part of a query search reads', () => {
  it('all of a query up to the limit; past it, its start and its end', () => {
    expect(readablePart('short query', 100)).toBe('short query');
    const long = `${'a'.repeat(300)}${'b'.repeat(300)}`;
    const read = readablePart(long, 100);
    expect(read).toBe(`${'a'.repeat(50)}\n…\n${'b'.repeat(50)}`);
  });

  it('never splits a surrogate pair at either cut', () => {
    const long = '😀'.repeat(200);
    for (const max of [99, 100, 101]) {
      const read = readablePart(long, max);
      expect(read.replace(/\n…\n/, '')).toMatch(/^(😀)+$/u);
      expect(read.length).toBeLessThanOrEqual(max + 5);
    }
  });

  it('tens of thousands of distinct words and identifiers are read in linear time', () => {
    const words = distinctWords(80_000);
    const identifiers = words.replace(/ w/g, ' w_');
    const t = performance.now();
    expect(queryTerms(words)).toHaveLength(80_000);
    const signals = analyzeQuery(`${identifiers} crashed_here(x)`);
    expect(signals.identifiers).toHaveLength(80_000);
    expect(signals.identifiers).toContain('crashed_here');
    // Quadratic, as before, this took ~7 s here; linear, ~0.3 s.
    expect(performance.now() - t).toBeLessThan(2_500);
  });
});

describe('a pasted log longer than search reads', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await openWorkspace('python');
  });
  afterAll(() => ws.dispose());

  it('finds the function its final traceback points into, and says the query was cut', async () => {
    const log = `${'INFO worker started, nothing to see here\n'.repeat(25_000)}Traceback (most recent call last):\n  File "shop/base.py", line 27, in save\nKeyError: 'orders'`;
    expect(log.length).toBeGreaterThan(SEARCH_MAX_QUERY_CHARS);
    const r = await ws.engine.search({ query: log, limit: 3 });
    expect(r.results[0].id).toBe('method:shop/base.py:Model.save');
    expect(r.queryCut).toEqual({ length: log.length, read: SEARCH_MAX_QUERY_CHARS });
    expect((await ws.engine.search({ query: 'save the row', limit: 3 })).queryCut).toBeUndefined();
  });
});
