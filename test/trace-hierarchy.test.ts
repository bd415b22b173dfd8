// Trace over INHERITS in both directions, and escaping errors that do not depend on the order
// in which calls are visited (issue 11, item 8). Causal fixture: ServiceError <- NotFound,
// Declined; Account <- Premium.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('causal');
});
afterAll(() => ws.dispose());

const targets = (t: { adjacency: Record<string, Array<{ target: string; relation: string }>> }, id: string) =>
  (t.adjacency[id] ?? []).map((e) => `${e.relation} ${e.target}`).sort();

describe('trace --relations INHERITS', () => {
  test('up from a base class: who subclasses it', () => {
    const t = ws.engine.trace({ id: 'class:service/errors.py:ServiceError', direction: 'up', relations: ['INHERITS'] });
    expect(targets(t, 'class:service/errors.py:ServiceError')).toEqual([
      'INHERITS class:service/errors.py:Declined',
      'INHERITS class:service/errors.py:NotFound',
    ]);
    expect(t.adjacency['class:service/errors.py:ServiceError'].every((e) => e.incoming)).toBe(true);
  });

  test('down from a subclass: its bases, to the end of the chain (unresolved outside the workspace)', () => {
    const t = ws.engine.trace({ id: 'class:service/errors.py:NotFound', direction: 'down', relations: ['INHERITS'] });
    expect(targets(t, 'class:service/errors.py:NotFound')).toEqual(['INHERITS class:service/errors.py:ServiceError']);
    expect(t.adjacency['class:service/errors.py:ServiceError']).toEqual([{ target: 'Exception', relation: 'INHERITS', resolved: false, line: 1 }]);
  });

  test('the default relation of up and down is still CALLS', () => {
    const t = ws.engine.trace({ id: 'class:service/errors.py:ServiceError', direction: 'up' });
    expect(t.adjacency).toEqual({ 'class:service/errors.py:ServiceError': [] });
  });
});

describe('escaping errors do not depend on call order', () => {
  test('r(): a(); b() and r2(): b(); a() agree at every depth', async () => {
    ws.write('service/order.py', [
      'from .errors import NotFound',
      '',
      '',
      'def c():',
      '    raise NotFound()',
      '',
      '',
      'def b():',
      '    c()',
      '',
      '',
      'def a():',
      '    b()',
      '',
      '',
      'def r():',
      '    a()',
      '    b()',
      '',
      '',
      'def r2():',
      '    b()',
      '    a()',
      '',
    ].join('\n'));
    await ws.engine.indexWorkspace();
    try {
      const esc = (id: string, depth: number) => ws.engine.trace({ id, direction: 'errors', depth }).escaping;
      expect(esc('func:service/order.py:r', 1)).toEqual([]);
      expect(esc('func:service/order.py:r', 2)).toEqual(['class:service/errors.py:NotFound']);
      expect(esc('func:service/order.py:r2', 2)).toEqual(['class:service/errors.py:NotFound']);
      expect(esc('func:service/order.py:r', 3)).toEqual(['class:service/errors.py:NotFound']);
    } finally {
      ws.remove('service/order.py');
      await ws.engine.indexWorkspace();
    }
  });
});
