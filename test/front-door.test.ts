// The engine's front door: what it reads is its own decision (one set of ignore rules per root,
// read afresh when a .gitignore changes), and its limits are the protocol's, checked once.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { ErrorCodes, SEARCH_MAX_LIMIT, WINDOW_MAX_CONTEXT } from '../protocol';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

test('a .gitignore edited mid-session takes files out of the index, and back in when undone', async () => {
  ws = await openWorkspace('python');
  const { engine } = ws;
  expect(engine.isIndexable('shop/services/checkout.py')).toBe(true);
  ws.write('.gitignore', 'shop/services/\n');
  await engine.syncFiles([{ path: '.gitignore', type: 'changed' }]);
  expect(engine.isIndexable('shop/services/checkout.py')).toBe(false);
  expect(engine.store.files().map((f) => f.path)).not.toContain('shop/services/checkout.py');
  expect(() => engine.entity('func:shop/services/checkout.py:checkout')).toThrow(/unknown entity/);
  fs.rmSync(path.join(ws.root, '.gitignore'));
  await engine.syncFiles([{ path: '.gitignore', type: 'deleted' }]);
  expect(engine.isIndexable('shop/services/checkout.py')).toBe(true);
  expect(engine.entity('func:shop/services/checkout.py:checkout').name).toBe('checkout');
});

test('search and window check their parameters against the protocol limits', async () => {
  ws = await openWorkspace('python');
  const { engine } = ws;
  await expect(engine.search({ query: 'save', kinds: ['fnuction' as never] })).rejects.toMatchObject({ code: ErrorCodes.InvalidParams, message: expect.stringMatching(/^unknown kind fnuction; known: module, class, function/) });
  await expect(engine.search({ query: 'save', limit: SEARCH_MAX_LIMIT + 1 })).rejects.toMatchObject({ code: ErrorCodes.InvalidParams });
  expect((await engine.search({ query: 'save', limit: SEARCH_MAX_LIMIT })).results.length).toBeGreaterThan(0);
  expect(() => engine.window('method:shop/base.py:Model.save', WINDOW_MAX_CONTEXT + 1)).toThrow(/contextLines must be an integer from 0 to 200/);
});

test("the project's testGlobs decide what search treats as test code", async () => {
  const { Engine } = await import('../server/src/engine/engine');
  const { copyFixture } = await import('./helpers/workspace');
  const root = copyFixture('python');
  const body = 'def refund_ledger_entry(amount):\n    """Refund a ledger entry."""\n    return amount\n';
  fs.writeFileSync(path.join(root, 'shop/ledger.py'), body);
  fs.writeFileSync(path.join(root, 'shop/check_ledger.py'), body.replace('refund_ledger_entry', 'refund_ledger_entry_check'));
  const top = async () => {
    const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    await e.indexWorkspace();
    const results = (await e.search({ query: 'refund a ledger entry', limit: 5 })).results;
    await e.close();
    const score = (id: string) => results.find((r) => r.id === id)?.score ?? 0;
    return { ids: results.map((r) => r.id), twin: score('func:shop/check_ledger.py:refund_ledger_entry_check') / score('func:shop/ledger.py:refund_ledger_entry') };
  };
  try {
    const before = await top();
    expect(before.ids.indexOf('func:shop/check_ledger.py:refund_ledger_entry_check')).toBeLessThan(2); // not a test by convention
    expect(before.twin).toBeGreaterThan(0.2);
    fs.writeFileSync(path.join(root, '.nsccn.json'), JSON.stringify({ testGlobs: ['**/check_*.py'] }));
    const after = await top();
    expect(after.ids[0]).toBe('func:shop/ledger.py:refund_ledger_entry');
    // Demoted as a test: a twentieth of what it was worth next to its twin.
    expect(after.twin).toBeCloseTo(before.twin * 0.05, 5);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
