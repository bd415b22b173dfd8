// The calls-ts eval's own rules on hand-made data (the eval itself needs tsserver and minutes:
// `npm run eval -- calls-ts`): a TypeScript class and its `constructor` are one callee, as a
// Python class and its `__init__` are; bad arguments are refused with a clear message.
import { expect, test } from 'vitest';
import { parseCallsTsArgs } from '../server/eval/calls-ts';
import { EntityIndex, type EntityInfo } from '../server/eval/pyright/compare';

const at = (row: number, column = 0) => ({ row, column });
const ent = (id: string, kind: string, name: string, row: number, parent: string | null): EntityInfo => ({ id, kind, file: 'src/a.ts', name, nameStart: at(row, 6), start: at(row), end: at(row + 1), parent });

test('new Child() and new Base() count as calls of the constructor that runs', () => {
  const index = new EntityIndex(
    [
      ent('class:src/a.ts:Base', 'class', 'Base', 0, 'module:src/a.ts:a'),
      ent('method:src/a.ts:Base.constructor', 'method', 'constructor', 1, 'class:src/a.ts:Base'),
      ent('class:src/a.ts:Child', 'class', 'Child', 5, 'module:src/a.ts:a'),
      ent('class:src/a.ts:Plain', 'class', 'Plain', 9, 'module:src/a.ts:a'),
    ],
    [['class:src/a.ts:Child', 'class:src/a.ts:Base']],
  );
  expect(index.calleeKey('class:src/a.ts:Base')).toBe('method:src/a.ts:Base.constructor');
  expect(index.calleeKey('class:src/a.ts:Child')).toBe('method:src/a.ts:Base.constructor');
  expect(index.calleeKey('class:src/a.ts:Plain')).toBe('class:src/a.ts:Plain');
});

test('arguments: sets are ts and/or js; anything else is refused by name', () => {
  expect(parseCallsTsArgs(['--sets', 'js', '--no-out'])).toEqual({ sets: ['js'], out: null });
  expect(() => parseCallsTsArgs(['--sets', 'py'])).toThrow('--sets takes ts and/or js, not py');
  expect(() => parseCallsTsArgs(['--bogus', '1'])).toThrow("Unknown option '--bogus' (known: --sets V --out V --no-out --keep)");
  expect(() => parseCallsTsArgs(['--out'])).toThrow("Option '--out <value>' argument missing");
});
