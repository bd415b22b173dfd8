// Keeping the index current: a second run parses nothing, changed/added/deleted files are the
// only ones touched, and bad files are skipped with a reason instead of failing the run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { copyFixture, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace | undefined;
afterEach(async () => {
  await ws?.dispose();
  ws = undefined;
});

describe('incremental indexing', () => {
  test('a second run with nothing changed parses no file', async () => {
    ws = await openWorkspace('python');
    const again = await ws.engine.indexWorkspace();
    expect(again).toMatchObject({ files: 7, parsed: 0, unchanged: 7, deleted: 0 });
  });

  test('change one file, delete one, add one: only those are read and the graph follows', async () => {
    ws = await openWorkspace('python');
    const { engine } = ws;
    // payments.charge no longer validates; a new module calls it; broken.py goes away.
    ws.write('shop/services/payments.py', fs.readFileSync(path.join(ws.root, 'shop/services/payments.py'), 'utf8').replace('    validate_amount(amount)\n', ''));
    ws.write('shop/refunds.py', 'from .services.payments import charge\n\n\ndef refund(user, amount):\n    return charge(user, -amount)\n');
    ws.remove('shop/broken.py');
    const s = await engine.indexWorkspace();
    expect(s).toMatchObject({ files: 7, parsed: 2, unchanged: 5, deleted: 1 });
    expect(engine.outgoing('func:shop/services/payments.py:charge', ['CALLS']).map((e) => e.target)).not.toContain('func:shop/services/payments.py:validate_amount');
    expect(engine.incoming('func:shop/services/payments.py:charge', ['CALLS']).map((e) => e.source).sort()).toEqual([
      'func:shop/refunds.py:refund',
      'func:shop/services/checkout.py:checkout',
    ]);
    expect(() => engine.entity('func:shop/broken.py:ok_before')).toThrow(/unknown entity/);
  });

  test('an unresolved call resolves when its target appears, and unresolves when it goes', async () => {
    ws = await openWorkspace('python');
    const { engine } = ws;
    ws.write('shop/late.py', 'def caller():\n    return helper_defined_later()\n');
    await engine.indexWorkspace();
    expect(engine.outgoing('func:shop/late.py:caller').map((e) => e.target)).toEqual([null]);
    ws.write('shop/later.py', 'def helper_defined_later():\n    return 1\n');
    await engine.indexWorkspace();
    expect(engine.outgoing('func:shop/late.py:caller').map((e) => e.target)).toEqual(['func:shop/later.py:helper_defined_later']);
    ws.remove('shop/later.py');
    await engine.indexWorkspace();
    expect(engine.outgoing('func:shop/late.py:caller').map((e) => e.target)).toEqual([null]);
  });

  test('after reopening an index, a new definition still resolves the calls waiting for it', async () => {
    ws = await openWorkspace('python');
    ws.write('shop/late.py', 'def caller():\n    return helper_defined_later()\n');
    await ws.engine.indexWorkspace();
    await ws.engine.close();
    const engine = await Engine.open({ root: ws.root, workers: 0, embeddings: { model: 'none' } });
    ws.engine = engine;
    engine.openDocument('shop/later.py', 'def helper_defined_later():\n    return 1\n', 1);
    expect(engine.outgoing('func:shop/late.py:caller').map((e) => e.target)).toEqual(['func:shop/later.py:helper_defined_later']);
  });

  test('entity ids are stable across line moves; duplicates get #2', async () => {
    ws = await openWorkspace('python');
    const { engine } = ws;
    ws.write('shop/dups.py', 'def f():\n    pass\n\n\ndef f():\n    pass\n');
    await engine.indexWorkspace();
    expect(engine.fileEntities('shop/dups.py').map((e) => e.id)).toEqual(['module:shop/dups.py:dups', 'func:shop/dups.py:f', 'func:shop/dups.py:f#2']);
    ws.write('shop/dups.py', '\n\n# moved\ndef f():\n    pass\n\n\ndef f():\n    pass\n');
    await engine.indexWorkspace();
    expect(engine.entity('func:shop/dups.py:f#2').span?.start.row).toBe(7);
  });
});

describe('bad input is skipped with a reason', () => {
  test('binary, non-UTF-8 and oversized files', async () => {
    const root = copyFixture('python');
    fs.writeFileSync(path.join(root, 'shop/blob.py'), Buffer.from([0x64, 0x65, 0x66, 0x00, 0x01, 0x02]));
    fs.writeFileSync(path.join(root, 'shop/latin1.py'), Buffer.from('x = "caf\xe9"\n', 'latin1'));
    fs.writeFileSync(path.join(root, 'shop/huge.py'), 'x = 1\n'.repeat(50_000));
    const logs: string[] = [];
    const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' }, maxFileBytes: 100_000, log: (m) => logs.push(m) });
    const s = await engine.indexWorkspace();
    const reasons = Object.fromEntries(s.skipped.map((x) => [x.file, x.reason]));
    expect(Object.keys(reasons).sort()).toEqual(['shop/blob.py', 'shop/huge.py', 'shop/latin1.py']);
    expect(reasons['shop/blob.py']).toMatch(/binary/);
    expect(reasons['shop/latin1.py']).toMatch(/UTF-8/);
    expect(reasons['shop/huge.py']).toMatch(/larger than/);
    expect(logs.some((l) => l.includes('shop/huge.py'))).toBe(true);
    expect(s.files).toBe(7);
    await engine.close();
  });

  test('.gitignore and the built-in skips are respected', async () => {
    const root = copyFixture('python');
    fs.writeFileSync(path.join(root, '.gitignore'), 'generated/\n*_pb2.py\n');
    for (const f of ['generated/x.py', 'shop/api_pb2.py', 'node_modules/pkg/y.py', '.venv/lib/z.py', 'shop/__pycache__/w.py']) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), 'def f():\n    pass\n');
    }
    fs.writeFileSync(path.join(root, '.venv/pyvenv.cfg'), 'home = /usr\n');
    const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    const s = await engine.indexWorkspace();
    expect(s.files).toBe(7);
    await engine.close();
  });

  test('a closed engine answers every query with "the engine is closed", not a database error', async () => {
    ws = await openWorkspace('python');
    const { engine } = ws;
    await engine.close();
    const pos = { line: 3, character: 4 };
    const asks: Array<[string, () => unknown]> = [
      ['entity', () => engine.entity('func:shop/base.py:register')],
      ['entityAt', () => engine.entityAt('shop/base.py', pos)],
      ['definitionAt', () => engine.definitionAt('shop/base.py', pos)],
      ['fileEntities', () => engine.fileEntities('shop/base.py')],
      ['trace', () => engine.trace({ id: 'func:shop/base.py:register', direction: 'down' })],
      ['skeleton', () => engine.skeleton('shop/base.py')],
    ];
    for (const [name, ask] of asks) expect(ask, name).toThrow(/the engine is closed/);
  });

  test('an index from a newer NSCCN is rebuilt, never misread', async () => {
    ws = await openWorkspace('python');
    await ws.engine.close();
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(ws.root, '.nsccn/index.db'));
    db.prepare("UPDATE meta SET value = '999' WHERE key = 'schema_version'").run();
    db.close();
    const engine = await Engine.open({ root: ws.root, workers: 0, embeddings: { model: 'none' } });
    expect(engine.status().notes.join(' ')).toMatch(/newer NSCCN/);
    expect((await engine.indexWorkspace()).parsed).toBe(7);
    await engine.close();
  });

  test('an index made with another analysis of the code is rebuilt, not kept for unchanged files', async () => {
    ws = await openWorkspace('python');
    await ws.engine.close();
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(ws.root, '.nsccn/index.db'));
    db.prepare("DELETE FROM meta WHERE key = 'analysis_version'").run(); // as an index from before it was recorded
    db.prepare('DELETE FROM edges').run(); // what an older analysis left: nothing would redo it
    db.close();
    const engine = await Engine.open({ root: ws.root, workers: 0, embeddings: { model: 'none' } });
    expect(engine.status().notes.join(' ')).toMatch(/another analysis of the code \(none → \d+\)/);
    expect((await engine.indexWorkspace()).parsed).toBe(7);
    expect(engine.status().edges).toBeGreaterThan(0);
    await engine.close();
    const again = await Engine.open({ root: ws.root, workers: 0, embeddings: { model: 'none' } });
    expect(again.status().notes.join(' ')).not.toMatch(/analysis/); // recorded: not rebuilt twice
    expect((await again.indexWorkspace()).parsed).toBe(0);
    await again.close();
  });
});

describe('closing', () => {
  test('close during a large first index stops it early and leaves a usable index', async () => {
    const root = copyFixture('python');
    for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(root, `shop/gen_${i}.py`), `def f${i}():\n    return f${i + 1}()\n`);
    const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    const run = engine.indexWorkspace();
    await new Promise((r) => setImmediate(r));
    const started = performance.now();
    await engine.close();
    const partial = await run;
    expect(partial.parsed).toBeLessThan(407); // it stopped instead of finishing
    expect(performance.now() - started).toBeLessThan(5000);
    const again = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    const s = await again.indexWorkspace();
    expect(s.files).toBe(407);
    expect(again.outgoing('func:shop/gen_1.py:f1').map((e) => e.target)).toEqual(['func:shop/gen_2.py:f2']);
    await again.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
});

describe('edits during the first index', () => {
  test('a buffer edited while the index runs ends up resolved like everything else', async () => {
    const root = copyFixture('python');
    for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(root, `shop/gen_${i}.py`), `def f${i}():\n    return f${i + 1}()\n`);
    const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    let opened = false;
    const run = engine.indexWorkspace((p) => {
      if (!opened && p.done > 32) {
        opened = true;
        engine.openDocument('shop/caller.py', 'from .gen_299 import f299\n\n\ndef c():\n    return f299() + f150()\n', 1);
      }
    });
    await run;
    expect(opened).toBe(true);
    expect(engine.outgoing('func:shop/caller.py:c').map((e) => e.target).sort()).toEqual(['func:shop/gen_150.py:f150', 'func:shop/gen_299.py:f299']);
    expect(engine.outgoing('func:shop/gen_5.py:f5').map((e) => e.target)).toEqual(['func:shop/gen_6.py:f6']);
    expect(engine.incoming('func:shop/gen_150.py:f150').map((e) => e.source).sort()).toEqual(['func:shop/caller.py:c', 'func:shop/gen_149.py:f149']);
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });
});
