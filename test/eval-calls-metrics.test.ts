// The CALLS eval's pure logic on hand-made data: target mapping, the class/__init__ key, caller
// attribution, what is out of scope, the metrics, and the classification of disagreements.
// (The eval itself needs pyright and the stdlib: `node dist/server/eval/calls-vs-pyright.js`.)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { readNsccnSide } from '../server/eval/pyright/nsccn-side';
import { calleeColumn, classify } from '../server/eval/pyright/classify';
import {
  compareCalls,
  disagreements,
  EntityIndex,
  metrics,
  packageOf,
  type CallFact,
  type EntityInfo,
  type Pos,
} from '../server/eval/pyright/compare';
import { callShape, localOrigin, parameterNames } from '../server/eval/pyright/shape';
import { RECEIVER_KINDS, recallByReceiver } from '../server/eval/pyright/receivers';

const A = [
  'class Base:',
  '    def __init__(self): pass',
  'class Child(Base):',
  '    pass',
  'class Plain:',
  '    pass',
  'def helper(): pass',
  '@deco',
  'def run(cb, x=helper()):',
  '    def inner():',
  '        helper()',
  '    Child()',
  '    Plain()',
  '    v = cb.prop',
  '    factory()',
  '    other()',
  '    cb.go()',
  'factory = make()',
];
const B = ['def other(): pass', 'class Thing:', '    def prop(self): pass', '    def go(self): pass'];
const SOURCES: Record<string, string[]> = { 'pkg/a.py': A, 'pkg2/b.py': B };

/** Position of the `nth` occurrence of `text` on line `row` of `file`. */
function at(file: string, row: number, text: string, nth = 1): Pos {
  let column = -1;
  for (let i = 0; i < nth; i++) column = SOURCES[file][row].indexOf(text, column + 1);
  if (column < 0) throw new Error(`${text} not on ${file}:${row}`);
  return { row, column };
}

function ent(id: string, file: string, nameRow: number, name: string, start: Pos, end: Pos, parent: string | null): EntityInfo {
  const kind = { class: 'class', method: 'method', func: 'function', module: 'module', global: 'global' }[id.split(':')[0]]!;
  return { id, kind, file, name, nameStart: at(file, nameRow, name), start, end, parent };
}

const MOD = 'module:pkg/a.py:a';
const ENTITIES: EntityInfo[] = [
  { id: MOD, kind: 'module', file: 'pkg/a.py', name: 'a', nameStart: { row: 0, column: 0 }, start: { row: 0, column: 0 }, end: { row: 18, column: 0 }, parent: null },
  ent('class:pkg/a.py:Base', 'pkg/a.py', 0, 'Base', { row: 0, column: 0 }, { row: 1, column: 28 }, MOD),
  ent('method:pkg/a.py:Base.__init__', 'pkg/a.py', 1, '__init__', { row: 1, column: 4 }, { row: 1, column: 28 }, 'class:pkg/a.py:Base'),
  ent('class:pkg/a.py:Child', 'pkg/a.py', 2, 'Child', { row: 2, column: 0 }, { row: 3, column: 8 }, MOD),
  ent('class:pkg/a.py:Plain', 'pkg/a.py', 4, 'Plain', { row: 4, column: 0 }, { row: 5, column: 8 }, MOD),
  ent('func:pkg/a.py:helper', 'pkg/a.py', 6, 'helper', { row: 6, column: 0 }, { row: 6, column: 18 }, MOD),
  // NSCCN's span of a decorated def starts at its decorator.
  ent('func:pkg/a.py:run', 'pkg/a.py', 8, 'run', { row: 7, column: 0 }, { row: 16, column: 11 }, MOD),
  ent('func:pkg/a.py:run.inner', 'pkg/a.py', 9, 'inner', { row: 9, column: 4 }, { row: 10, column: 16 }, 'func:pkg/a.py:run'),
  ent('global:pkg/a.py:factory', 'pkg/a.py', 17, 'factory', { row: 17, column: 0 }, { row: 17, column: 16 }, MOD),
  ent('func:pkg2/b.py:other', 'pkg2/b.py', 0, 'other', { row: 0, column: 0 }, { row: 0, column: 17 }, null),
  ent('class:pkg2/b.py:Thing', 'pkg2/b.py', 1, 'Thing', { row: 1, column: 0 }, { row: 3, column: 22 }, null),
  ent('method:pkg2/b.py:Thing.prop', 'pkg2/b.py', 2, 'prop', { row: 2, column: 4 }, { row: 2, column: 24 }, 'class:pkg2/b.py:Thing'),
  ent('method:pkg2/b.py:Thing.go', 'pkg2/b.py', 3, 'go', { row: 3, column: 4 }, { row: 3, column: 22 }, 'class:pkg2/b.py:Thing'),
];
const INHERITS: Array<[string, string]> = [['class:pkg/a.py:Child', 'class:pkg/a.py:Base']];

const loc = (file: string, row: number, name: string) => ({ kind: 'location' as const, file, pos: at(file, row, name), name });
const py = (caller: string, row: number, text: string, target: CallFact['target'], nth = 1): CallFact => ({
  caller: `func:pkg/a.py:${caller}`,
  file: 'pkg/a.py',
  site: at('pkg/a.py', row, text, nth),
  target,
});
const ns = (caller: string, row: number, text: string, target: CallFact['target'], ambiguous = false, nth = 1): CallFact => ({
  ...py(caller, row, text, target, nth),
  caller: caller.includes(':') ? caller : `func:pkg/a.py:${caller}`,
  ambiguous,
});
const entity = (id: string) => ({ kind: 'entity' as const, id });

const PYRIGHT: CallFact[] = [
  // Asked about `run`, pyright reports the nested def's call too; asked about `inner`, again.
  py('run', 10, 'helper', loc('pkg/a.py', 6, 'helper')),
  py('run.inner', 10, 'helper', loc('pkg/a.py', 6, 'helper')),
  py('run', 11, 'Child', loc('pkg/a.py', 2, 'Child')),
  py('run', 12, 'Plain', loc('pkg/a.py', 4, 'Plain')),
  py('run', 13, 'prop', loc('pkg2/b.py', 2, 'prop')),
  py('run', 16, 'go', loc('pkg2/b.py', 3, 'go')),
  // A default value: evaluated in the enclosing scope, where NSCCN puts it (the module).
  py('run', 8, 'helper', loc('pkg/a.py', 6, 'helper')),
  py('run', 11, 'Child', { kind: 'external', name: 'Child', where: 'typeshed:builtins.pyi' }),
  // In the workspace, but no entity's name starts there.
  py('run', 14, 'factory', { kind: 'location', file: 'pkg/a.py', pos: at('pkg/a.py', 17, 'make'), name: 'make' }),
];
const NSCCN: CallFact[] = [
  ns('run.inner', 10, 'helper', entity('func:pkg/a.py:helper')),
  ns('run', 11, 'Child', entity('method:pkg/a.py:Base.__init__')),
  ns('run', 12, 'Plain', entity('class:pkg/a.py:Plain')),
  ns('run', 14, 'factory', entity('global:pkg/a.py:factory')),
  ns('run', 15, 'other', entity('func:pkg2/b.py:other')),
  ns('run', 16, 'go', { kind: 'unresolved', name: 'go' }),
  ns(MOD, 8, 'helper', entity('func:pkg/a.py:helper')),
  ns(MOD, 7, 'deco', { kind: 'unresolved', name: 'deco' }),
];

const isCall = (file: string, site: Pos) => callShape(SOURCES[file][site.row], site.column).isCall;

describe('entity index', () => {
  const index = new EntityIndex(ENTITIES, INHERITS);

  test('a class and the constructor Cls() runs are one callee', () => {
    expect(index.calleeKey('class:pkg/a.py:Base')).toBe('method:pkg/a.py:Base.__init__');
    expect(index.calleeKey('class:pkg/a.py:Child')).toBe('method:pkg/a.py:Base.__init__');
    expect(index.calleeKey('class:pkg/a.py:Plain')).toBe('class:pkg/a.py:Plain');
    expect(index.calleeKey('func:pkg/a.py:helper')).toBe('func:pkg/a.py:helper');
  });

  test("a property's setter and deleter are its getter's callee (pyright names a read's last declaration)", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-eval-prop-'));
    fs.writeFileSync(path.join(root, 'p.py'), 'class C:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n    def x(self, v):\n        pass\n\n    @x.deleter\n    def x(self):\n        pass\n\n    def y(self):\n        return self.x\n');
    const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    try {
      await e.indexWorkspace();
      const side = readNsccnSide(e);
      const idx = new EntityIndex(side.entities, side.inherits);
      expect(['method:p.py:C.x', 'method:p.py:C.x#2', 'method:p.py:C.x#3', 'method:p.py:C.y'].map((id) => idx.calleeKey(id))).toEqual(['method:p.py:C.x', 'method:p.py:C.x', 'method:p.py:C.x', 'method:p.py:C.y']);
    } finally {
      await e.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('inheritance cycles do not hang the key', () => {
    const cyclic = new EntityIndex(ENTITIES, [
      ['class:pkg/a.py:Plain', 'class:pkg2/b.py:Thing'],
      ['class:pkg2/b.py:Thing', 'class:pkg/a.py:Plain'],
    ]);
    expect(cyclic.calleeKey('class:pkg/a.py:Plain')).toBe('class:pkg/a.py:Plain');
  });

  test('a site belongs to the innermost def from its name on, not to a def it decorates', () => {
    expect(index.innermostCaller('pkg/a.py', at('pkg/a.py', 10, 'helper'))).toBe('func:pkg/a.py:run.inner');
    expect(index.innermostCaller('pkg/a.py', at('pkg/a.py', 11, 'Child'))).toBe('func:pkg/a.py:run');
    expect(index.innermostCaller('pkg/a.py', at('pkg/a.py', 7, 'deco'))).toBeUndefined();
    expect(index.innermostCaller('pkg/a.py', { row: 17, column: 10 })).toBeUndefined();
  });

  test('targets map by file and name start', () => {
    expect(index.atName('pkg2/b.py', at('pkg2/b.py', 3, 'go'))).toBe('method:pkg2/b.py:Thing.go');
    expect(index.atName('pkg2/b.py', { row: 3, column: 0 })).toBeUndefined();
    expect(packageOf(index, 'func:pkg/a.py:run.inner')).toBe('pkg');
  });
});

describe('comparison', () => {
  const index = new EntityIndex(ENTITIES, INHERITS);
  const cmp = compareCalls(index, PYRIGHT, NSCCN, isCall);
  const keys = (m: Map<string, { caller: string; callee: string }>) => [...m.values()].map((e) => `${e.caller} -> ${e.callee}`).sort();

  test('both sides reduce to (caller, callee key) pairs', () => {
    expect(keys(cmp.pyright)).toEqual([
      'func:pkg/a.py:run -> class:pkg/a.py:Plain',
      'func:pkg/a.py:run -> method:pkg/a.py:Base.__init__',
      'func:pkg/a.py:run -> method:pkg2/b.py:Thing.go',
      'func:pkg/a.py:run -> method:pkg2/b.py:Thing.prop',
      'func:pkg/a.py:run.inner -> func:pkg/a.py:helper',
    ]);
    expect(keys(cmp.nsccn)).toEqual([
      'func:pkg/a.py:run -> class:pkg/a.py:Plain',
      'func:pkg/a.py:run -> func:pkg2/b.py:other',
      'func:pkg/a.py:run -> method:pkg/a.py:Base.__init__',
      'func:pkg/a.py:run.inner -> func:pkg/a.py:helper',
    ]);
  });

  test('what falls out of scope is counted, each once', () => {
    expect(cmp.drops).toMatchObject({
      pyrightExternal: 1,
      pyrightUnmapped: 1,
      pyrightOutOfScopeCaller: 1,
      nsccnUnresolved: 1,
      nsccnOutOfScopeCaller: 2,
      nsccnVariableCallee: 1,
    });
    // The nested call (asked from run, then deduplicated) and the default value moved caller.
    expect(cmp.reattributed).toBe(2);
  });

  test('a caller pyright gave no answer for counts on neither side', () => {
    const without = compareCalls(index, PYRIGHT, NSCCN, isCall, new Set(['func:pkg/a.py:run.inner']));
    expect(keys(without.pyright)).not.toContain('func:pkg/a.py:run.inner -> func:pkg/a.py:helper');
    expect(keys(without.nsccn)).not.toContain('func:pkg/a.py:run.inner -> func:pkg/a.py:helper');
    expect(without.drops).toMatchObject({ nsccnUnansweredCaller: 1, pyrightOutOfScopeCaller: 2 });
    expect(metrics(without)).toMatchObject({ pyright: 4, nsccn: 3, agreed: 2 });
  });

  test('a site with no call after the name is a property read', () => {
    const prop = [...cmp.pyright.values()].find((e) => e.callee.endsWith('Thing.prop'))!;
    const go = [...cmp.pyright.values()].find((e) => e.callee.endsWith('Thing.go'))!;
    expect([prop.propertyRead, go.propertyRead]).toEqual([true, false]);
  });

  test('precision and recall, overall, per package and without property reads', () => {
    expect(metrics(cmp)).toEqual({
      pyright: 5,
      nsccn: 4,
      nsccnAmbiguous: 0,
      agreed: 3,
      agreedAmbiguous: 0,
      precision: 0.75,
      precisionWithAmbiguous: 0.75,
      recall: 0.6,
      recallWithAmbiguous: 0.6,
    });
    expect(metrics(cmp, () => true, true)).toMatchObject({ pyright: 4, recall: 0.75 });
    expect(metrics(cmp, (c) => packageOf(index, c) === 'pkg2')).toMatchObject({ pyright: 0, nsccn: 0, precision: null, recall: null });
    expect(metrics(cmp, (c) => c === 'func:pkg/a.py:run.inner')).toMatchObject({ pyright: 1, nsccn: 1, precision: 1, recall: 1 });
  });

  test('ambiguous candidates are counted apart', () => {
    const amb = compareCalls(
      index,
      [py('run', 15, 'other', loc('pkg2/b.py', 0, 'other'))],
      [ns('run', 15, 'other', entity('func:pkg2/b.py:other'), true), ns('run', 15, 'other', entity('func:pkg/a.py:helper'), true)],
    );
    expect(metrics(amb)).toMatchObject({
      pyright: 1,
      nsccn: 0,
      nsccnAmbiguous: 2,
      agreed: 0,
      agreedAmbiguous: 1,
      precision: null,
      precisionWithAmbiguous: 0.5,
      recall: 0,
      recallWithAmbiguous: 1,
    });
    // One unambiguous fact makes the edge unambiguous.
    const mixed = compareCalls(index, [], [
      ns('run', 15, 'other', entity('func:pkg2/b.py:other'), true),
      ns('run', 12, 'Plain', entity('func:pkg2/b.py:other'), false),
    ]);
    expect([...mixed.nsccn.values()].map((e) => e.ambiguous)).toEqual([false]);
  });

  test('disagreements are classified from the site', () => {
    const { missed, extra } = disagreements(cmp);
    expect(missed.map((e) => e.callee).sort()).toEqual(['method:pkg2/b.py:Thing.go', 'method:pkg2/b.py:Thing.prop']);
    expect(extra.map((e) => e.callee)).toEqual(['func:pkg2/b.py:other']);
    const c = classify(cmp, { lines: (f) => SOURCES[f], signature: (id) => (id === 'func:pkg/a.py:run' ? 'def run(cb, x=helper())' : undefined) });
    expect(c.missed.map((x) => [x.category, x.count]).sort()).toEqual([
      ['NSCCN unresolved: method on a parameter (type from annotation or default)', 1],
      ['property access (pyright counts the getter as a call)', 1],
    ]);
    expect(c.extra.map((x) => x.category)).toEqual(['pyright found none: plain name guessed across files (same directory / unique name, not imported)']);
    expect(c.missed.find((x) => x.category.includes('parameter'))!.examples[0]).toEqual({
      caller: 'func:pkg/a.py:run',
      line: 17,
      code: 'cb.go()',
      callee: 'method:pkg2/b.py:Thing.go',
      other: '?go',
    });
    expect(c.edges).toHaveLength(3);
  });
});

describe('call shapes', () => {
  const shape = (line: string, name: string) => callShape(line, line.lastIndexOf(name));

  test('receivers, calls and decorators', () => {
    expect(shape('        self.policy.fold(x)', 'fold')).toEqual({ name: 'fold', isCall: true, receiver: 'self.policy', decorator: false });
    expect(shape("    return ''.join(x)", 'join').receiver).toBe("''");
    expect(shape('    get_loop(a, b).run(x)', 'run').receiver).toBe('get_loop(a, b)');
    expect(shape('    x = a[0].m', 'm')).toMatchObject({ receiver: 'a[0]', isCall: false });
    expect(shape('    helper (1)', 'helper')).toMatchObject({ receiver: null, isCall: true });
    expect(shape('    @functools.wraps(f)', 'wraps')).toMatchObject({ receiver: 'functools', isCall: true, decorator: true });
    expect(shape('    @property', 'property')).toMatchObject({ isCall: false, decorator: true });
  });

  test("a site at the start of the callee expression (tsserver's) is read at the callee's name", () => {
    const line = '    const valid = gen.name("valid")';
    const at = calleeColumn(line, line.indexOf('gen'), 'method:ajv/compile/codegen/index.ts:CodeGen.name');
    expect(callShape(line, at)).toMatchObject({ name: 'name', isCall: true, receiver: 'gen' });
    // A site already at the name (pyright's) stays; so does one whose callee is not named there (`Foo()` → Foo.__init__).
    const py = '        self.policy.fold(x)';
    expect(calleeColumn(py, py.indexOf('fold'), 'method:p.py:Policy.fold')).toBe(py.indexOf('fold'));
    expect(calleeColumn('    Foo(1)', 4, 'method:p.py:Foo.__init__')).toBe(4);
    // A getter read through the chain stays a property read.
    const getter = '    const names = this.lhs.names';
    expect(callShape(getter, calleeColumn(getter, getter.indexOf('this'), 'method:code.ts:_Code.names'))).toMatchObject({ name: 'names', isCall: false });
  });

  test('parameter names from a signature', () => {
    expect(parameterNames('def f(self, a: Dict[str, int] = {}, *args, b=(1, 2), **kw) -> None')).toEqual(['self', 'a', 'args', 'b', 'kw']);
    expect(parameterNames('async def g()')).toEqual([]);
    expect(parameterNames('class C')).toEqual([]);
  });

  test('where a local comes from', () => {
    expect(localOrigin(['    x = f(1)'], 'x')).toBe('call');
    expect(localOrigin(['    x = await mod.make()'], 'x')).toBe('call');
    expect(localOrigin(['    x = Thing()'], 'x')).toBe('construct');
    expect(localOrigin(['    for i, x in y:'], 'x')).toBe('loop');
    expect(localOrigin(['    with open(p) as x:'], 'x')).toBe('loop');
    expect(localOrigin(['    x = y + 1'], 'x')).toBe('other');
    expect(localOrigin(['    xs = f()', '    x == 1'], 'x')).toBeNull();
  });
});

describe('recall by receiver kind', () => {
  test("each pyright call edge counts under its first site's receiver shape; property reads are left out", () => {
    const index = new EntityIndex(ENTITIES, INHERITS);
    const cmp = compareCalls(index, PYRIGHT, NSCCN, isCall);
    const rows = recallByReceiver(cmp, { lines: (f) => SOURCES[f] ?? [], signature: (id) => (id === 'func:pkg/a.py:run' ? 'def run(cb, x=helper())' : undefined) });
    const byKind = Object.fromEntries(rows.filter((r) => r.pyright).map((r) => [r.kind, [r.pyright, r.agreed]]));
    // helper() in inner, Child(), Plain(): plain names, all agreed; cb.go(): a parameter, missed.
    expect(byKind).toEqual({ 'plain name f()': [3, 3], 'parameter p.m()': [1, 0] });
    expect(rows.map((r) => r.kind)).toEqual([...RECEIVER_KINDS]);
  });
});
