// A project's own words, which the shipped static table cannot read (`zorblax`, or sympy's
// `evolute`): the static stream lets such a word stand for the entities that hold it, instead
// of seeing the query without it (search/semantic.ts `withUnread`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('unread-words');
  await ws.engine.embeddings.idle();
});
afterAll(() => ws.dispose());

const QUERY = 'The equation of the zorblax of an ellipse';
const staticIds = async (query: string) => {
  const d = await ws.engine.searchDetailed({ query, limit: 5 });
  return (d.perStream.static ?? []).map((eid) => ws.engine.store.entityByEid(eid)?.id);
};

describe('words the static table cannot read', () => {
  it('are told apart from the words it reads', async () => {
    const { StaticEmbedder } = await import('../server/src/engine/embed/static-embedder');
    const { defaultStaticTablePath } = await import('../server/src/engine/embed/static-asset');
    const table = StaticEmbedder.load(defaultStaticTablePath());
    expect(table.unread(QUERY).unread).toEqual(['zorblax']);
    expect(table.unread(QUERY).unreadWeight).toBeGreaterThan(table.unread('the ellipse').readWeight);
    expect(table.unread('the equation of an ellipse').unread).toEqual([]);
  });

  it('pull the static stream towards the code that holds them', async () => {
    const zorblax = 'method:geometry/shapes.py:Ellipse.zorblax';
    const withWord = await staticIds(QUERY);
    const withoutWord = await staticIds('The equation of an ellipse');
    // Without the project's word the vectors see "equation ellipse"; with it, its holder rises.
    expect(withWord.indexOf(zorblax)).toBeLessThan(withoutWord.indexOf(zorblax));
    expect(withWord.slice(0, 2)).toContain(zorblax);
  });

  it('give a query of only such words a direction instead of no answer', async () => {
    expect((await staticIds('zorblax'))[0]).toBe('method:geometry/shapes.py:Ellipse.zorblax');
  });

  it('are looked up in names only: a word only prose holds gives the vectors nothing', async () => {
    // Only `legend`'s docstring says "frobnozzle"; English words the table lacks are held by
    // prose all over a workspace, and the mean of those is noise.
    expect(await staticIds('frobnozzle')).toEqual([]);
    expect((await ws.engine.search({ query: 'frobnozzle', limit: 3 })).results[0].id).toBe('func:geometry/shapes.py:legend');
  });
});
