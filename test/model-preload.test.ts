// A server reads the symbol model (what every change resolves against) when a file is opened,
// a slice at a time, instead of all at once at the first keystroke; and opening a file as it is
// on disk writes nothing. Either way an edit gives the graph a cold index would.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { ModelLoader } from '../server/src/engine/graph/model-from-store';
import { SymbolModel } from '../server/src/engine/graph/model';
import { copyFixture } from './helpers/workspace';

let root: string | null = null;
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true });
  root = null;
});

/** The python fixture and a chain of 100 modules: gen_i.f{i} calls f{i+1} through an import. */
async function chain(): Promise<Engine> {
  root = copyFixture('python');
  for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(root, `shop/gen_${i}.py`), `from .gen_${i + 1} import f${i + 1}\n\n\ndef f${i}():\n    return f${i + 1}()\n`);
  const indexer = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
  await indexer.indexWorkspace();
  await indexer.close();
  // A server opening the index: no symbol model yet (a first index builds it as it writes).
  const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
  await engine.indexWorkspace();
  expect(engine.graph.model.files.size).toBe(0);
  return engine;
}

/** What a model holds, as plain data: every entity by id, and each file's bindings. */
function contents(m: SymbolModel): unknown {
  const files = [...m.files.entries()].map(([f, s]) => [f, s.module, JSON.stringify(s.bindings), JSON.stringify(s.attrTypes)]);
  return { ids: [...m.byId.entries()].map(([id, e]) => [id, JSON.stringify(e)]), files };
}

describe('the symbol model read by another thread', () => {
  test('is the model this thread reads, and this thread runs no statement for it', async () => {
    const engine = await chain();
    const here = new SymbolModel();
    new ModelLoader(here, engine.store, Infinity).rest();
    const rows = vi.spyOn(engine.store, 'modelRows');
    const threaded = new SymbolModel();
    new ModelLoader(threaded, engine.store, 0).rest();
    expect(rows).not.toHaveBeenCalled();
    expect(threaded.files.size).toBe(107);
    expect(contents(threaded)).toEqual(contents(here));
    await engine.close();
  });

  test('after a slice read here, and when the reader fails midway: this thread reads the rest', async () => {
    const engine = await chain();
    const here = new SymbolModel();
    new ModelLoader(here, engine.store, Infinity).rest();
    // One slice in the background (a server's preload), then the rest by the reader.
    const sliced = new SymbolModel();
    const loader = new ModelLoader(sliced, engine.store, 0);
    expect(loader.step(0)).toBe(false);
    loader.rest();
    expect(contents(sliced)).toEqual(contents(here));
    // A reader that gives 40 files and dies (a reader that fails ends early).
    const real = engine.store.modelRowsFromReader.bind(engine.store);
    vi.spyOn(engine.store, 'modelRowsFromReader').mockImplementation((after) =>
      (function* () {
        let n = 0;
        for (const r of real(after)!) {
          if (n++ === 40) return;
          yield r;
        }
      })(),
    );
    const failed = new SymbolModel();
    new ModelLoader(failed, engine.store, 0).rest();
    expect(contents(failed)).toEqual(contents(here));
    await engine.close();
  });
});

describe('the symbol model read in slices', () => {
  test('is the model read at once', async () => {
    const engine = await chain();
    const whole = new SymbolModel();
    new ModelLoader(whole, engine.store).rest();
    const sliced = new SymbolModel();
    const loader = new ModelLoader(sliced, engine.store);
    let slices = 1;
    while (!loader.step(0)) slices++;
    expect(slices).toBe(4); // 107 files, 32 a slice
    expect(sliced.files.size).toBe(107);
    expect(contents(sliced)).toEqual(contents(whole));
    await engine.close();
  });

  test('an edit that comes before the background read ends, or after it, resolves as a cold index would', async () => {
    const engine = await chain();
    const read = (f: string) => fs.readFileSync(path.join(root!, f), 'utf8');
    const edited = {
      'shop/gen_50.py': read('shop/gen_50.py').replace('return f51()', 'return f51() + helper()\n\n\ndef helper():\n    return f51()'),
      'shop/gen_70.py': `from .gen_50 import helper\n${read('shop/gen_70.py').replace('return f71()', 'return helper()')}`,
    };
    // Edited while the background read is under way (one slice of 32 files read, then a yield;
    // the open joins that read): the edit reads the rest of the model first.
    const reading = engine.graph.preload(0, () => false);
    engine.openDocument('shop/gen_50.py', read('shop/gen_50.py'), 1);
    expect(engine.graph.model.files.size).toBe(32);
    engine.changeDocument('shop/gen_50.py', [{ text: edited['shop/gen_50.py'] }], 2);
    await reading; // ended: `load` read the rest
    // Opened, then edited once the model is read in the background.
    engine.openDocument('shop/gen_70.py', read('shop/gen_70.py'), 1);
    await engine.graph.preload(1, () => false);
    engine.changeDocument('shop/gen_70.py', [{ text: edited['shop/gen_70.py'] }], 2);
    const ids = ['func:shop/gen_50.py:f50', 'func:shop/gen_50.py:helper', 'func:shop/gen_51.py:f51', 'func:shop/gen_70.py:f70', 'func:shop/gen_71.py:f71', 'func:shop/gen_69.py:f69'];
    const graph = (e: Engine) => ids.map((id) => [id, e.outgoing(id).map((x) => x.target).sort(), e.incoming(id).map((x) => x.source).sort()]);
    const live = graph(engine);
    expect(live[1]).toEqual(['func:shop/gen_50.py:helper', ['func:shop/gen_51.py:f51'], ['func:shop/gen_50.py:f50', 'func:shop/gen_70.py:f70', 'module:shop/gen_70.py:gen_70']]);
    await engine.close();
    // The same texts on disk, indexed cold.
    for (const [f, t] of Object.entries(edited)) fs.writeFileSync(path.join(root!, f), t);
    fs.rmSync(path.join(root!, '.nsccn'), { recursive: true, force: true });
    const cold = await Engine.open({ root: root!, workers: 0, embeddings: { model: 'none' } });
    await cold.indexWorkspace();
    expect(live).toEqual(graph(cold));
    await cold.close();
  });

  test('a project change during the background read drops it; the next change reads the new model whole', async () => {
    const engine = await chain();
    const { projectFiles } = await import('../server/src/engine/workspace/project');
    const preload = engine.graph.preload(0, () => false); // one slice, then a yield
    const dropped = engine.graph.model;
    engine.graph.resetProject(projectFiles(root!));
    await preload; // ends at its next slice: the model it was reading is gone
    expect(dropped.files.size).toBeLessThan(107);
    expect(engine.graph.model).not.toBe(dropped);
    engine.graph.load();
    const whole = new SymbolModel();
    new ModelLoader(whole, engine.store).rest();
    expect(contents(engine.graph.model)).toEqual(contents(whole));
    await engine.close();
  });

  test('a file opened as it is on disk writes nothing; an edit undone is back to what the disk says', async () => {
    const engine = await chain();
    const generation = engine.store.entityGeneration();
    const stamp = engine.store.file('shop/gen_10.py')!;
    const text = fs.readFileSync(path.join(root!, 'shop/gen_10.py'), 'utf8');
    expect(engine.openDocument('shop/gen_10.py', text, 1)).toEqual({ indexed: true });
    expect(engine.store.entityGeneration()).toBe(generation);
    expect(engine.store.file('shop/gen_10.py')).toEqual(stamp);
    engine.changeDocument('shop/gen_10.py', [{ text: text.replace('f11()', 'f11() + 1') }], 2);
    expect(engine.store.file('shop/gen_10.py')!.hash).not.toBe(stamp.hash);
    engine.changeDocument('shop/gen_10.py', [{ text }], 3);
    expect(engine.store.file('shop/gen_10.py')!.hash).toBe(stamp.hash);
    expect(engine.outgoing('func:shop/gen_10.py:f10').map((e) => e.target)).toEqual(['func:shop/gen_11.py:f11']);
    await engine.close();
  });
});
