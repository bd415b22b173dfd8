// Hostile paths (issue 13, items 3 and 7): every read of a workspace file is confined to the
// root at the moment it happens; a file that became a link out of the root is a deletion; a
// tampered index path is never read; `..foo.py` is a file, not a parent; PEP 263 cookies decode.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { ErrorCodes } from '../protocol';
import { Engine } from '../server/src/engine/engine';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

const SECRET = 'root:x:0:0:SECRET-OUTSIDE-THE-ROOT\n';
let ws: TestWorkspace | null = null;
let outside: string | null = null;

function secretFile(): string {
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-outside-'));
  const f = path.join(outside, 'passwd');
  fs.writeFileSync(f, SECRET);
  return f;
}

afterEach(async () => {
  await ws?.dispose();
  ws = null;
  if (outside) fs.rmSync(outside, { recursive: true, force: true });
  outside = null;
});

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: number }).code;
  }
  return undefined;
}

describe('a file replaced by a symlink out of the root', () => {
  test('window never shows the outside file, and a watch event removes its entities', async () => {
    ws = await openWorkspace('python');
    const { engine } = ws;
    expect(engine.window('class:shop/base.py:Model').code).toContain('class Model');
    fs.rmSync(path.join(ws.root, 'shop/base.py'));
    fs.symlinkSync(secretFile(), path.join(ws.root, 'shop/base.py'));

    // Before any watch event the stale entity is still indexed, but its text is not served.
    expect(() => engine.window('class:shop/base.py:Model')).toThrow(/links outside the workspace/);
    expect(codeOf(() => engine.window('class:shop/base.py:Model'))).toBe(ErrorCodes.NotIndexed);

    // One batch: the linked file, a path outside, a new file. The bad path does not drop the rest.
    ws.write('shop/extra.py', 'def extra():\n    return 1\n');
    await engine.syncFiles([
      { path: 'shop/base.py', type: 'changed' },
      { path: '../../elsewhere.py', type: 'changed' },
      { path: 'shop/extra.py', type: 'created' },
    ]);
    expect(engine.store.file('shop/base.py')).toBeUndefined();
    expect(codeOf(() => engine.entity('class:shop/base.py:Model'))).toBe(ErrorCodes.UnknownEntity);
    expect(engine.entity('func:shop/extra.py:extra').name).toBe('extra');
  });

  test('a deleted event for the link removes it too', async () => {
    ws = await openWorkspace('python');
    fs.rmSync(path.join(ws.root, 'shop/base.py'));
    fs.symlinkSync(secretFile(), path.join(ws.root, 'shop/base.py'));
    await ws.engine.syncFiles([{ path: 'shop/base.py', type: 'deleted' }]);
    expect(ws.engine.store.file('shop/base.py')).toBeUndefined();
  });
});

describe('a tampered index', () => {
  test("files.path = '../../../../etc/passwd' is never read, before or after an index pass", async () => {
    ws = await openWorkspace('python');
    const secret = secretFile();
    const dbPath = path.join(ws.root, '.nsccn', 'index.db');
    await ws.engine.close();
    const rel = path.relative(ws.root, secret).split(path.sep).join('/');
    expect(rel.startsWith('../')).toBe(true);
    const db = new Database(dbPath);
    db.prepare('UPDATE files SET path = ? WHERE path = ?').run(rel, 'shop/base.py');
    db.close();

    ws.engine = await Engine.open({ root: ws.root, workers: 0, embeddings: { model: 'none' } });
    const e = ws.engine.entity('class:shop/base.py:Model');
    expect(e.file).toBe(rel);
    let message = '';
    try {
      ws.engine.window(e.id);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/not a path inside the workspace/);
    expect(message).not.toContain('SECRET');
  });
});

describe('paths that only look like parents', () => {
  test('..foo.py is a file of the workspace', async () => {
    ws = await openWorkspace('python');
    ws.write('..foo.py', 'def dotted():\n    return 2\n');
    expect(ws.engine.relativePath('..foo.py')).toBe('..foo.py');
    expect(ws.engine.relativePath(path.join(ws.root, '..foo.py'))).toBe('..foo.py');
    await ws.engine.syncFiles([{ path: '..foo.py', type: 'created' }]);
    expect(ws.engine.window('func:..foo.py:dotted').code).toContain('def dotted');
    expect(ws.engine.skeleton('..foo.py').text).toContain('def dotted()');
    // The real parent is still refused.
    expect(codeOf(() => ws!.engine.relativePath('../foo.py'))).toBe(ErrorCodes.OutsideWorkspace);
  });
});

describe('PEP 263 source encodings', () => {
  test('a latin-1 file is decoded as Python does and indexed', async () => {
    ws = await openWorkspace('python');
    const text = '# -*- coding: latin-1 -*-\ndef caf\u00e9():\n    """Gr\u00fc\u00dfe \u00a4 \u0080."""\n    return 1\n';
    fs.writeFileSync(path.join(ws.root, 'latin.py'), Buffer.from(text, 'latin1'));
    // Cookie on line 2 after a shebang, in a WHATWG-named encoding.
    const cp1252 = Buffer.concat([Buffer.from('#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\ndef euro():\n    return "'), Buffer.from([0x80]), Buffer.from('"\n')]);
    fs.writeFileSync(path.join(ws.root, 'cp.py'), cp1252);
    const summary = await ws.engine.indexWorkspace();
    expect(summary.skipped.map((s) => s.file)).not.toContain('latin.py');
    const w = ws.engine.window('func:latin.py:caf\u00e9');
    expect(w.code).toContain('Gr\u00fc\u00dfe \u00a4 \u0080.');
    expect(ws.engine.window('func:cp.py:euro').code).toContain('"\u20ac"');
  });

  test('without a cookie, invalid UTF-8 is still skipped with a reason', async () => {
    ws = await openWorkspace('python');
    fs.writeFileSync(path.join(ws.root, 'bad.py'), Buffer.from('def f():\n    return "\xe9"\n', 'latin1'));
    const summary = await ws.engine.indexWorkspace();
    expect(summary.skipped).toContainEqual({ file: 'bad.py', reason: 'not valid UTF-8' });
  });
});
