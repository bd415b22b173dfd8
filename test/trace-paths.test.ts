// "How does A reach B?": shortest paths over the causal fixture's graph, each hop with its line.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TraceResult } from '../protocol';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('causal');
});
afterAll(() => ws.dispose());

const show = (t: TraceResult) => (t.paths ?? []).map((p) => p.hops.map((h) => `${h.relation} ${h.to} @${h.line}`).join(' | '));

describe('trace --to', () => {
  test('main reaches NotFound through refund, charge and Store.get, each hop with its line and code', () => {
    const t = ws.engine.trace({ id: 'func:app.py:main', direction: 'down', to: 'class:service/errors.py:NotFound' });
    expect(t.to).toBe('class:service/errors.py:NotFound');
    expect(t.paths).toEqual([
      {
        hops: [
          { from: 'func:app.py:main', to: 'method:service/core.py:Service.refund', relation: 'CALLS', line: 7, code: 'app.refund("a@example.com", 5)' },
          { from: 'method:service/core.py:Service.refund', to: 'method:service/core.py:Service.charge', relation: 'CALLS', line: 47, code: 'self.charge(email, -amount)' },
          { from: 'method:service/core.py:Service.charge', to: 'method:service/store.py:Store.get', relation: 'CALLS', line: 39, code: 'account = self.store.get(email)' },
          { from: 'method:service/store.py:Store.get', to: 'class:service/errors.py:NotFound', relation: 'CALLS', line: 21, code: 'raise NotFound(key)' },
        ],
      },
    ]);
    expect(Object.keys(t.entities).sort()).toEqual([
      'class:service/errors.py:NotFound',
      'func:app.py:main',
      'method:service/core.py:Service.charge',
      'method:service/core.py:Service.refund',
      'method:service/store.py:Store.get',
    ]);
  });

  test('k shortest, shortest first, over the relations asked for', () => {
    const t = ws.engine.trace({ id: 'func:service/core.py:make_service', direction: 'down', to: 'attr:service/store.py:Store.rows', relations: ['CALLS', 'MUTATES'], k: 5 });
    expect(show(t)).toEqual([
      'CALLS method:service/store.py:Store.__init__ @61 | MUTATES attr:service/store.py:Store.rows @6',
      'CALLS method:service/store.py:Store.reset @62 | MUTATES attr:service/store.py:Store.rows @29',
      'CALLS method:service/store.py:Store.create @60 | CALLS method:service/store.py:Store.__init__ @26 | MUTATES attr:service/store.py:Store.rows @6',
      'CALLS method:service/core.py:Service.open @64 | CALLS method:service/store.py:Store.put @27 | MUTATES attr:service/store.py:Store.rows @16',
    ]);
    expect(show(ws.engine.trace({ id: 'func:service/core.py:make_service', direction: 'down', to: 'attr:service/store.py:Store.rows', relations: ['CALLS', 'MUTATES'], k: 2 }))).toHaveLength(2);
    // Depth bounds the length: no path of at most 2 hops through create or open.
    expect(show(ws.engine.trace({ id: 'func:service/core.py:make_service', direction: 'down', to: 'attr:service/store.py:Store.rows', relations: ['CALLS', 'MUTATES'], k: 5, depth: 2 }))).toHaveLength(2);
  });

  test('INHERITS paths: NotFound reaches ServiceError in one hop', () => {
    expect(show(ws.engine.trace({ id: 'class:service/errors.py:NotFound', direction: 'down', to: 'class:service/errors.py:ServiceError', relations: ['INHERITS'] }))).toEqual(['INHERITS class:service/errors.py:ServiceError @5']);
  });

  test('no path: an empty list, not an error; backwards is not forwards', () => {
    expect(ws.engine.trace({ id: 'method:service/store.py:Store.get', direction: 'down', to: 'func:app.py:main' }).paths).toEqual([]);
  });

  test('a budget drops whole paths, the longest first', () => {
    const req = { id: 'func:service/core.py:make_service', direction: 'down' as const, to: 'attr:service/store.py:Store.rows', relations: ['CALLS' as const, 'MUTATES' as const], k: 5 };
    const cut = ws.engine.trace({ ...req, maxTokens: 600 });
    const all = show(ws.engine.trace(req));
    expect(show(cut)).toEqual(all.slice(0, show(cut).length));
    expect(show(cut).length).toBeLessThan(all.length);
    expect(cut.truncated!.dropped).toEqual({ paths: all.length - show(cut).length });
  });

  test('bad params are clear errors', () => {
    expect(() => ws.engine.trace({ id: 'func:app.py:main', direction: 'down', to: 'func:app.py:mian' })).toThrow(/unknown entity func:app.py:mian; did you mean func:app.py:main/);
    expect(() => ws.engine.trace({ id: 'func:app.py:main', direction: 'down', to: 'func:app.py:main', k: 0 })).toThrow('k must be an integer from 1 to 20, got 0');
  });
});
