// Answers under a token budget (maxTokens) and skeleton docstring levels, on the causal fixture
// plus one documented file written here. Budgets cut by usefulness and say what they dropped.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TraceResult } from '../protocol';
import { finish, tokensOf } from '../server/src/engine/budget/measure';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

const DOCUMENTED = [
  '"""Documented helpers.',
  '',
  'The module docstring goes on for a while,',
  'over several lines, as docstrings of real packages do: they explain',
  'what the module is for, how its parts fit together, and give an example',
  'or two that a reader who only wants the shape of the file does not need.',
  '"""',
  'import os',
  '',
  '',
  'class Ledger:',
  '    """A ledger of entries.',
  '',
  '    Entries are appended, never removed.',
  '    """',
  '',
  '    limit = 10',
  '',
  '    def add(self, entry):',
  '        """Append one entry.  The ledger grows by one',
  '',
  '        Raises nothing.',
  '        """',
  '        self.entries.append(entry)',
  '',
  '    def only_doc(self):',
  '        """Nothing but a docstring."""',
  '',
  '    class Meta:',
  "        '''",
  '        Options.',
  "        '''",
  '',
  '',
  'def total(ledger):',
  '    r"""Sum of the entries, e.g. 3 for [1, 2]. Long first lines stop at their first sentence.',
  '    """',
  '    return sum(ledger.entries)',
  '',
].join('\n');

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('causal');
  ws.write('service/documented.py', DOCUMENTED);
  await ws.engine.indexWorkspace();
});
afterAll(() => ws.dispose());

const edges = (t: TraceResult) => Object.entries(t.adjacency).flatMap(([n, es]) => es.map((e) => `${n} -> ${e.target}`));

describe('trace under a budget', () => {
  const OPEN = 'method:service/core.py:Service.open';

  test('a budget the trace fits in changes nothing', () => {
    const full = ws.engine.trace({ id: OPEN, direction: 'down' });
    expect(ws.engine.trace({ id: OPEN, direction: 'down', maxTokens: 5000 })).toEqual(full);
  });

  test('resolved hop-1 edges stay, hop-2 and unresolved names go, and it says so', () => {
    const t = ws.engine.trace({ id: OPEN, direction: 'down', maxTokens: 480 });
    expect(edges(t)).toEqual([
      `${OPEN} -> func:service/util_a.py:normalize`,
      `${OPEN} -> func:service/util_b.py:normalize`,
      `${OPEN} -> method:service/models.py:Premium.__init__`,
      `${OPEN} -> method:service/models.py:Account.__init__`,
      `${OPEN} -> method:service/store.py:Store.put`,
    ]);
    expect(t.truncated!.dropped).toEqual({ edges: 4, 'unresolved edges': 3 });
    expect(t.truncated!.note).toBe('dropped 4 of 9 edges (resolved edges from hop 2 on, 3 unresolved names) to fit 480 tokens; raise the budget or lower the depth to see them');
    expect(t.truncated!.tokens).toBe(tokensOf(t));
    expect(t.truncated!.tokens).toBeLessThanOrEqual(480);
    // Only entities the kept edges name are described.
    expect(Object.keys(t.entities).sort()).toEqual([OPEN, ...edges(t).map((e) => e.split(' -> ')[1])].sort());
  });

  test('every budget keeps a connected prefix of the full trace and stays within it', () => {
    const full = edges(ws.engine.trace({ id: 'func:service/core.py:make_service', direction: 'down' }));
    let last = -1;
    for (let budget = 150; budget <= 1500; budget += 50) {
      const t = ws.engine.trace({ id: 'func:service/core.py:make_service', direction: 'down', maxTokens: budget });
      const kept = edges(t);
      expect(kept.every((e) => full.includes(e))).toBe(true);
      expect(kept.length).toBeGreaterThanOrEqual(last);
      last = kept.length;
      for (const node of Object.keys(t.adjacency)) {
        if (node !== t.root) expect(kept.some((e) => e.endsWith(`-> ${node}`))).toBe(true);
      }
      expect(tokensOf(t)).toBeLessThanOrEqual(budget);
    }
    expect(last).toBe(full.length);
  });

  test('the count an answer reports is its count with that number in it (1000 costs a token more than 0)', () => {
    // An answer that counts exactly 1,000 tokens while its `tokens` field still says 0.
    const answer = (k: number) => ({ text: 'word '.repeat(k), truncated: { maxTokens: 1000, tokens: 0, dropped: {}, note: '' } });
    let k = 900;
    while (tokensOf(answer(k)) < 1000) k++;
    const a = answer(k);
    expect(tokensOf(a)).toBe(1000);
    finish(a);
    expect(a.truncated.tokens).toBe(tokensOf(a));
    expect(a.truncated.tokens).toBe(1001);
  });

  test('a budget below the minimum is a clear error', () => {
    expect(() => ws.engine.trace({ id: OPEN, direction: 'down', maxTokens: 5 })).toThrow(/maxTokens must be an integer from 20 to 1000000, got 5/);
  });
});

describe('search and window under a budget', () => {
  test('search drops the lowest ranks first', async () => {
    const full = await ws.engine.search({ query: 'store', limit: 20 });
    expect(full.results.length).toBeGreaterThan(3);
    const cut = await ws.engine.search({ query: 'store', limit: 20, maxTokens: 250 });
    expect(cut.results.length).toBeGreaterThan(0);
    expect(cut.results).toEqual(full.results.slice(0, cut.results.length));
    expect(cut.truncated!.dropped).toEqual({ results: full.results.length - cut.results.length });
    expect(tokensOf(cut)).toBeLessThanOrEqual(250);
  });

  test('window drops context before the entity, and the entity from its end', () => {
    const ID = 'method:service/core.py:Service.open';
    const w = ws.engine.window(ID, 3);
    const lines = w.code.split('\n');
    const full = tokensOf(w);
    for (let budget = 100; budget < full; budget += 10) {
      const cut = ws.engine.window(ID, 3, budget);
      expect(tokensOf(cut)).toBeLessThanOrEqual(budget);
      // One contiguous run of the original lines, around (or inside) the entity.
      expect(cut.code ? lines.join('\n').includes(cut.code) : true).toBe(true);
      expect(cut.code.split('\n').length).toBe(Math.max(cut.end - cut.start + 1, 1));
      const context = (cut.start < w.entityStart ? w.entityStart - cut.start : 0) + (cut.end > w.entityEnd ? cut.end - w.entityEnd : 0);
      // Context is shown only once the whole entity is.
      if (context > 0) expect([cut.start <= w.entityStart, cut.end >= w.entityEnd]).toEqual([true, true]);
      expect(cut.truncated!.dropped['context lines']).toBe(6 - context);
    }
    const tiny = ws.engine.window(ID, 3, 150);
    expect(tiny.start).toBe(w.entityStart);
    expect(tiny.end).toBeLessThan(w.entityEnd);
    expect(tiny.code.split('\n')[0]).toBe(lines[w.entityStart - w.start]);
    expect(tiny.truncated!.note).toMatch(/^dropped 6 context lines and the entity's last \d+ lines to fit 150 tokens$/);
  });
});

describe('skeleton docstring levels', () => {
  const text = (docs?: 'full' | 'first-line' | 'none') => ws.engine.skeleton('service/documented.py', docs ? { docs } : {}).text;

  test('first-line (the default): the first line, and ... when more follows', () => {
    expect(text()).toBe(text('first-line'));
    expect(text('first-line')).toBe(
      [
        '"""Documented helpers. ..."""',
        '# imports: os',
        '',
        'class Ledger:',
        '    """A ledger of entries. ..."""',
        '    limit = 10',
        '    def add(self, entry):',
        '        """Append one entry. ..."""',
        '        ...',
        '    def only_doc(self):',
        '        """Nothing but a docstring."""',
        '    class Meta:',
        "        '''Options.'''",
        '',
        'def total(ledger):',
        '    r"""Sum of the entries, e.g. 3 for [1, 2]. ..."""',
        '    ...',
        '',
      ].join('\n'),
    );
  });

  test('full keeps every docstring whole; none leaves them out', () => {
    expect(text('full')).toContain('    """A ledger of entries.\n\n    Entries are appended, never removed.\n    """\n');
    expect(text('none')).toBe(['# imports: os', '', 'class Ledger:', '    limit = 10', '    def add(self, entry): ...', '    def only_doc(self): ...', '    class Meta: ...', '', 'def total(ledger): ...', ''].join('\n'));
  });

  test('entities point at their lines at every level', () => {
    for (const docs of ['full', 'first-line', 'none'] as const) {
      const sk = ws.engine.skeleton('service/documented.py', { docs });
      const lines = sk.text.split('\n');
      const add = sk.entities.find((e) => e.id === 'method:service/documented.py:Ledger.add')!;
      expect(lines[add.skeletonLine - 1]).toMatch(/^ {4}def add\(self, entry\):/);
      expect(sk.docs).toBe(docs);
    }
  });

  test('a budget shortens docstrings first, then drops the innermost lines', () => {
    const full = ws.engine.skeleton('service/documented.py', { docs: 'full' });
    const firstLine = ws.engine.skeleton('service/documented.py', { docs: 'first-line' });
    const budget = tokensOf(firstLine) + 60;
    expect(tokensOf(full)).toBeGreaterThan(budget);
    const shortened = ws.engine.skeleton('service/documented.py', { docs: 'full', maxTokens: budget });
    expect(shortened.text).toBe(firstLine.text);
    expect(shortened.truncated!.note).toBe(`docstrings shown at level first-line (asked: full) to fit ${budget} tokens`);
    expect(tokensOf(shortened)).toBeLessThanOrEqual(budget);
    const none = ws.engine.skeleton('service/documented.py', { docs: 'none' });
    const top = ws.engine.skeleton('service/documented.py', { maxTokens: tokensOf(none) - 20 });
    expect(top.text).toBe('# imports: os\n\nclass Ledger:\n\ndef total(ledger): ...\n');
    expect(top.entities.map((e) => e.id)).toEqual(['module:service/documented.py:documented', 'class:service/documented.py:Ledger', 'func:service/documented.py:total']);
    expect(top.truncated!.dropped).toEqual({ lines: 4, entities: 4 });
  });

  test('an unknown level is a clear error', () => {
    expect(() => ws.engine.skeleton('service/documented.py', { docs: 'some' as never })).toThrow('docs must be one of full, first-line, none, got "some"');
  });
});
