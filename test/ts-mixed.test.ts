// A Python + TypeScript workspace in one index (fixtures/mixed): both languages' entities side by
// side, and name guesses that never cross languages: `handle()` in api/tools.py sits next to
// api/handlers.ts (which defines `handle`) yet reaches the Python `handle`; `render()` in Python
// exists only in TypeScript and stays unresolved.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('mixed');
});
afterAll(() => ws.dispose());

test('both languages are indexed, each file with its language', () => {
  expect(ws.engine.store.files().map((f) => [f.path, f.language]).sort()).toEqual([
    ['api/handlers.ts', 'typescript'],
    ['api/server.ts', 'typescript'],
    ['api/tools.py', 'python'],
    ['worker/__init__.py', 'python'],
    ['worker/jobs.py', 'python'],
    ['worker/run.py', 'python'],
  ]);
});

test('the whole graph, exactly: no edge crosses languages by a guess', () => {
  expect(edgeList(ws.engine)).toEqual(
    [
      'func:api/handlers.ts:handle -CALLS-> func:api/handlers.ts:render',
      'func:api/server.ts:serve -CALLS-> func:api/handlers.ts:handle',
      'func:api/tools.py:tool -CALLS-> func:worker/jobs.py:handle',
      'func:worker/jobs.py:handle -CALLS-> ?render',
      'func:worker/run.py:main -CALLS-> func:worker/jobs.py:handle',
      'module:api/server.ts:server -IMPORTS-> func:api/handlers.ts:handle',
      'module:worker/run.py:run -IMPORTS-> func:worker/jobs.py:handle',
    ].sort(),
  );
});

test('search finds both languages by split camelCase names and docstrings', async () => {
  const { results } = await ws.engine.search({ query: 'handle request', limit: 5 });
  expect(results[0].id).toBe('func:api/handlers.ts:handle');
  const jobs = await ws.engine.search({ query: 'runs one job', limit: 5 });
  expect(jobs.results[0].id).toBe('func:worker/jobs.py:handle');
});
