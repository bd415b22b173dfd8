// Large and out-of-order buffers (issue 13, item 4): a buffer over maxFileBytes gets the size
// policy of a file on disk (not indexed, said so) without blocking; edits to it are still
// applied so that it is indexed again once it shrinks; versions out of order are refused and
// change nothing; a file with very many kept references does not overflow the stack.
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCodes } from '../protocol';
import { python } from '../server/src/engine/languages/python';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace | null = null;
afterEach(async () => {
  await ws?.dispose();
  ws = null;
});

/** About `bytes` of valid Python: many small functions. */
function bigPython(bytes: number): string {
  const unit = 'def f_0():\n    return helper(1, 2, 3)\n\n';
  return `def first():\n    return 1\n\n${unit.repeat(Math.ceil(bytes / unit.length))}`;
}

describe('a buffer larger than maxFileBytes', () => {
  test('is not indexed, says why, answers at once, and is indexed again when it shrinks', async () => {
    ws = await openWorkspace('python');
    const { engine } = ws;
    const big = bigPython(7 * 1024 * 1024);
    const t0 = performance.now();
    const state = engine.openDocument('shop/base.py', big, 1);
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(state).toEqual({ indexed: false, reason: expect.stringMatching(/larger than 1048576 bytes/) });
    // The disk version's entities are gone, as for a file on disk of that size.
    expect(() => engine.entity('class:shop/base.py:Model')).toThrow(/unknown entity/);
    expect(engine.fileEntities('shop/base.py')).toEqual([]);

    // Edits are applied to the text (nothing parsed); other queries keep answering.
    const t1 = performance.now();
    expect(engine.changeDocument('shop/base.py', [{ range: { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } }, text: 'opening' }], 2)).toEqual({ indexed: false, reason: expect.any(String) });
    expect(performance.now() - t1).toBeLessThan(2000);
    expect(engine.window('class:shop/models.py:User').code).toContain('class User');

    // Shrunk below the limit (keep the first function, drop the rest): parsed and indexed again.
    engine.changeDocument('shop/base.py', [{ range: { start: { line: 3, character: 0 }, end: { line: 10_000_000, character: 0 } }, text: '' }], 3);
    expect(engine.fileEntities('shop/base.py').map((e) => e.id)).toContain('func:shop/base.py:opening');
    expect(engine.window('func:shop/base.py:opening').code).toContain('def opening():');
  });

  test('an open of a big buffer is refused the same way under a small limit', async () => {
    ws = await openWorkspace('python', { maxFileBytes: 200 });
    const state = ws.engine.openDocument('shop/big.py', bigPython(300), 1);
    expect(state?.indexed).toBe(false);
    expect(ws.engine.openDocument('shop/small.py', 'def tiny():\n    pass\n', 1)).toEqual({ indexed: true });
    expect(ws.engine.entity('func:shop/small.py:tiny').name).toBe('tiny');
  });
});

describe('edit versions', () => {
  test('an edit whose version is not newer is refused clearly and changes nothing', async () => {
    ws = await openWorkspace('python');
    const { engine } = ws;
    engine.openDocument('shop/base.py', 'def a():\n    pass\n', 5);
    let err: { code?: number; message?: string } = {};
    try {
      engine.changeDocument('shop/base.py', [{ text: 'def b():\n    pass\n' }], 5);
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.code).toBe(ErrorCodes.InvalidParams);
    expect(err.message).toMatch(/version 5 is not newer than the buffer's 5/);
    expect(engine.fileText('shop/base.py')).toBe('def a():\n    pass\n');
    engine.changeDocument('shop/base.py', [{ text: 'def b():\n    pass\n' }], 6);
    expect(engine.entity('func:shop/base.py:b').name).toBe('b');
  });
});

describe('a file with very many references whose context changed', () => {
  test('is recorded without a stack overflow (no spread of the kept rows)', async () => {
    ws = await openWorkspace('python');
    const { graph } = ws.engine;
    const kept = Array.from({ length: 200_000 }, (_, i) => 10_000_000 + i);
    const ex = { file: 'shop/huge.py', language: 'python', entities: [], refs: [], imports: [], attrTypes: [], syntaxErrors: 0 };
    expect(() => graph.fileChanged('shop/huge.py', python, 'shop.huge', ex, { refs: [], kept, removedIds: [], orphaned: [] })).not.toThrow();
  });
});
