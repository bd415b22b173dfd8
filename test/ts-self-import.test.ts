// A package importing itself by its own name (fixtures/ts-self-import): its tests do, as users
// will (`import { check } from 'tinyval'`), and Node and TypeScript take the name to the
// package's own `exports`. The export's own source condition (`@tinyval/source`) names the
// source file; a subpath built to dist/ is indexed as its source under src/.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('ts-self-import');
});
afterAll(() => ws.dispose());

test('tests that import the package by its name reach its sources', () => {
  expect(edgeList(ws.engine)).toEqual(
    [
      'func:test/check.test.ts:checksBoth -CALLS-> func:src/extra.ts:more',
      'func:test/check.test.ts:checksBoth -CALLS-> func:src/index.ts:check',
      'module:test/check.test.ts:check.test -IMPORTS-> func:src/extra.ts:more',
      'module:test/check.test.ts:check.test -IMPORTS-> func:src/index.ts:check',
    ].sort(),
  );
});
