// The one way into the index: a change reaches the graph once, and listeners hear of it once —
// whether it came from the disk, an editor buffer, a closed buffer or an index run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

async function heard(fn: () => unknown): Promise<string[][]> {
  const got: string[][] = [];
  const off = ws!.engine.onDidChange((c) => got.push(c.files));
  await fn();
  off();
  return got;
}

test('each kind of change is announced exactly once, with the files it changed', async () => {
  ws = await openWorkspace('python');
  const { engine } = ws;
  const base = path.join(ws.root, 'shop/base.py');
  const text = fs.readFileSync(base, 'utf8');

  fs.appendFileSync(base, '\n\ndef added():\n    return _write(1, 2)\n');
  expect(await heard(() => engine.syncFiles([{ path: 'shop/base.py', type: 'changed' }, { path: 'shop/models.py', type: 'changed' }]))).toEqual([['shop/base.py']]);
  expect(engine.outgoing('func:shop/base.py:added', ['CALLS']).map((e) => e.target)).toEqual(['func:shop/base.py:_write']);

  expect(await heard(() => engine.openDocument('shop/base.py', text, 1))).toEqual([['shop/base.py']]);
  expect(await heard(() => engine.changeDocument('shop/base.py', [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# edited\n' }], 2))).toEqual([['shop/base.py']]);
  // Closing goes back to the disk's text: one change (it was announced twice before).
  expect(await heard(() => engine.closeDocument('shop/base.py'))).toEqual([['shop/base.py']]);
  expect(engine.entity('func:shop/base.py:added').name).toBe('added');

  // Touching a file without changing it is no change.
  fs.utimesSync(base, new Date(), new Date(Date.now() + 5000));
  expect(await heard(() => engine.syncFiles([{ path: 'shop/base.py', type: 'changed' }]))).toEqual([]);

  fs.rmSync(path.join(ws.root, 'shop/broken.py'));
  fs.writeFileSync(path.join(ws.root, 'shop/extra.py'), 'def extra():\n    return 1\n');
  expect(await heard(() => engine.indexWorkspace())).toEqual([[]]); // a run: once, at its end
  expect(await heard(() => engine.indexWorkspace())).toEqual([]); // nothing changed: silence
});
