// Bare specifiers that name workspace files (fixtures/ts-project): a tsconfig `paths` alias
// (`@app/*`, tsconfig written with comments and trailing commas), `baseUrl` (`lib/helper`), a
// workspace package by its package.json `exports` (`@acme/core` → dist/index.js, indexed as
// src/index.ts; `@acme/core/math` → the subpath export) — and an external package (`react`)
// that stays unresolved with its name.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('ts-project');
});
afterAll(() => ws.dispose());

test('the whole graph, exactly', () => {
  expect(edgeList(ws.engine)).toEqual(
    [
      'func:apps/web/src/main.ts:main -CALLS-> ?React.createElement',
      'func:apps/web/src/main.ts:main -CALLS-> func:apps/web/src/util/format.ts:format',
      'func:apps/web/src/main.ts:main -CALLS-> func:lib/helper.ts:helper',
      'func:apps/web/src/main.ts:main -CALLS-> func:packages/core/src/index.ts:version',
      // both `total` from '@acme/core/math' and `total as sum` re-exported by '@acme/core'
      'func:apps/web/src/main.ts:main -CALLS-> func:packages/core/src/math.ts:total',
      'func:apps/web/src/util/format.ts:format -CALLS-> ?toFixed',
      'func:packages/core/src/math.ts:total -CALLS-> ?reduce',
      'module:apps/web/src/main.ts:main -IMPORTS-> ?react.default',
      'module:apps/web/src/main.ts:main -IMPORTS-> func:apps/web/src/util/format.ts:format',
      'module:apps/web/src/main.ts:main -IMPORTS-> func:lib/helper.ts:helper',
      'module:apps/web/src/main.ts:main -IMPORTS-> func:packages/core/src/index.ts:version',
      'module:apps/web/src/main.ts:main -IMPORTS-> func:packages/core/src/math.ts:total',
      'module:packages/core/src/index.ts:index -IMPORTS-> func:packages/core/src/math.ts:total',
    ].sort(),
  );
});

test('a file added later is found through the alias once it exists', async () => {
  ws.write('apps/web/src/util/late.ts', 'export function late(): void {}\n');
  ws.write('apps/web/src/uses-late.ts', "import { late } from '@app/util/late';\nexport function go(): void {\n  late();\n}\n");
  await ws.engine.syncFiles([
    { path: `${ws.root}/apps/web/src/util/late.ts`, type: 'created' },
    { path: `${ws.root}/apps/web/src/uses-late.ts`, type: 'created' },
  ]);
  expect(ws.engine.outgoing('func:apps/web/src/uses-late.ts:go', ['CALLS']).map((e) => e.target)).toEqual(['func:apps/web/src/util/late.ts:late']);
});
