// Without a model: the service says why in one line, at once, never hangs, and the static
// stream (which needs no model) still works. A model that cannot load, or loads too slowly,
// ends in a note too.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EmbeddingService } from '../server/src/engine/embed/service';
import { DEFAULT_MODEL, NO_MODEL_NOTE, decideModel } from '../server/src/engine/embed/model-settings';
import { encodeStaticTable } from '../server/src/engine/embed/static-asset';
import { buildTinyModel } from './helpers/tiny-model';
import { conceptStore, eidOf, openStore, writeFile } from './helpers/semantic-fixture';

let dir: string;
let tablePath: string;

/** A 4-dimensional static table where each concept owns one axis. */
function writeStaticTable(file: string): void {
  const concepts = [
    ['password', 'credential', 'login', 'verify', 'user', 'secret', 'token'],
    ['http', 'request', 'url', 'socket', 'download', 'server', 'fetch'],
    ['sum', 'total', 'number', 'mean', 'average', 'comput'],
    ['file', 'path', 'read', 'disk', 'open', 'folder'],
  ];
  const vocab = concepts.flat();
  const dims = 8;
  const vectors = new Int8Array(vocab.length * dims);
  let row = 0;
  concepts.forEach((words, axis) => {
    for (let i = 0; i < words.length; i++, row++) vectors[row * dims + axis] = 127;
  });
  fs.writeFileSync(
    file,
    encodeStaticTable({ header: { dims, words: vocab.length }, vocab, idf: new Float32Array(vocab.length).fill(1), scale: new Float32Array(vocab.length).fill(1 / 127), vectors }),
  );
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-embed-offline-'));
  tablePath = path.join(dir, 'static.bin');
  writeStaticTable(tablePath);
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('choosing a model', () => {
  it('no model named: off, nothing downloaded, and the note says how to name one', () => {
    expect(decideModel(undefined, {})).toEqual({ kind: 'off', note: NO_MODEL_NOTE });
    expect(decideModel({ cacheDir: dir }, {})).toEqual({ kind: 'off', note: NO_MODEL_NOTE });
    expect(NO_MODEL_NOTE).toContain(DEFAULT_MODEL);
  });

  it('offline with no cached copy: off, with the places it looked', () => {
    const d = decideModel({ model: DEFAULT_MODEL }, { NSCCN_OFFLINE: '1', XDG_CACHE_HOME: dir });
    expect(d.kind).toBe('off');
    if (d.kind === 'off') {
      expect(d.note).toContain(`no model found at ${path.join(dir, 'nsccn', 'models', DEFAULT_MODEL)}`);
      expect(d.note).toContain('NSCCN_OFFLINE=1');
    }
  });

  it('allowRemote false is offline too; `none` switches the stream off; NSCCN_MODEL is read', () => {
    expect(decideModel({ model: 'org/some-model', allowRemote: false, cacheDir: dir }, {})).toMatchObject({ kind: 'off' });
    expect(decideModel({ model: 'none' }, {})).toEqual({ kind: 'off', note: 'model stream off: switched off by settings (model: none)' });
    expect(decideModel(undefined, { NSCCN_MODEL: 'off' })).toMatchObject({ kind: 'off' });
    expect(decideModel(undefined, { NSCCN_MODEL: path.join(dir, 'missing-model') })).toEqual({ kind: 'off', note: `model stream off: no model found at ${path.join(dir, 'missing-model')}` });
  });

  it('online, a named hub id is planned for download into the cache', () => {
    const d = decideModel({ model: DEFAULT_MODEL, cacheDir: dir }, {});
    expect(d).toMatchObject({ kind: 'load', plan: { name: DEFAULT_MODEL, ref: DEFAULT_MODEL, local: false, allowRemote: true, cacheDir: dir, dtypes: ['q8', 'fp32'] } });
  });

  it('a folder that is not a model is named as such', () => {
    const d = decideModel({ model: dir }, {});
    expect(d).toMatchObject({ kind: 'off' });
    if (d.kind === 'off') expect(d.note).toMatch(/is not a transformers\.js model folder/);
  });
});

describe('embedding service without a model', () => {
  it('says so at once and the static stream still ranks by meaning', async () => {
    process.env.NSCCN_OFFLINE = '1';
    process.env.NSCCN_STATIC_TABLE = tablePath;
    process.env.XDG_CACHE_HOME = dir;
    try {
      const store = conceptStore();
      const logs: string[] = [];
      const svc = new EmbeddingService(store, undefined, (m) => logs.push(m));
      const t0 = performance.now();
      svc.start();
      await svc.idle();
      expect(performance.now() - t0).toBeLessThan(2000);
      expect(svc.status()).toBeNull();
      expect(svc.notes().filter((n) => n === NO_MODEL_NOTE)).toHaveLength(1);
      expect(logs.filter((l) => l.startsWith('model stream off'))).toHaveLength(1); // logged once
      const streams = svc.streams();
      expect(streams.map((s) => s.name)).toEqual(['static']);
      expect((await streams[0].search('check the login credential', 3))[0]?.eid).toBe(eidOf(store, 'func:auth.py:verify_password'));
      expect((await streams[0].search('download a url', 3))[0]?.eid).toBe(eidOf(store, 'func:net.py:fetch_url'));
      expect(await streams[0].search('zebra giraffe', 3)).toEqual([]); // no known word, no direction
      await svc.close();
    } finally {
      delete process.env.NSCCN_OFFLINE;
      delete process.env.NSCCN_STATIC_TABLE;
      delete process.env.XDG_CACHE_HOME;
    }
  });

  it('progress while the static stream fills is the true count at every step, and ends complete', async () => {
    process.env.NSCCN_OFFLINE = '1';
    process.env.NSCCN_STATIC_TABLE = tablePath;
    try {
      // 1,300 functions in 13 files: three batches of 512 and a last one, with a look between each.
      const store = openStore();
      for (let f = 0; f < 13; f++) writeFile(store, `m${f}.py`, Array.from({ length: 100 }, (_, i) => ({ name: `f${i}`, body: i % 2 ? 'read the file path' : 'fetch a url' })));
      const { VectorStore } = await import('../server/src/engine/store/vectors');
      const truth = new VectorStore(store.db);
      const { StaticEmbedder } = await import('../server/src/engine/embed/static-embedder');
      const settled = vi.spyOn(StaticEmbedder.prototype, 'settled');
      const svc = new EmbeddingService(store, { model: 'none' }, () => {});
      svc.start();
      const seen: Array<{ done: number; total: number; truth: number }> = [];
      const idle = svc.idle();
      let finished = false;
      void idle.then(() => (finished = true));
      while (!finished) {
        const [p] = svc.progress();
        seen.push({ done: p.done, total: p.total, truth: truth.counts('static').done });
        await new Promise((r) => setImmediate(r));
      }
      const moving = seen.filter((s) => s.done > 0 && s.done < s.total);
      expect(moving.length).toBeGreaterThanOrEqual(2);
      for (const s of seen) expect(s).toMatchObject({ done: s.truth, total: 13 * 101 });
      expect(svc.progress()).toEqual([{ stream: 'static', done: 13 * 101, total: 13 * 101, complete: true }]);
      expect(settled).toHaveBeenCalledTimes(1); // the fill over: the embedder lets go of its scratch
      settled.mockRestore();
      await svc.close();
    } finally {
      delete process.env.NSCCN_OFFLINE;
      delete process.env.NSCCN_STATIC_TABLE;
    }
  });

  it('a broken model folder fails fast with a note, and search has no model stream', async () => {
    const broken = buildTinyModel(dir, { name: 'broken' });
    fs.writeFileSync(path.join(broken.dir, 'onnx', 'model.onnx'), 'not an onnx graph');
    process.env.NSCCN_STATIC_TABLE = 'none';
    try {
      const logs: string[] = [];
      const svc = new EmbeddingService(conceptStore(), { model: broken.dir }, (m) => logs.push(m));
      svc.start();
      await svc.idle();
      expect(svc.streams()).toEqual([]);
      expect(svc.status()).toBeNull();
      expect(svc.notes()).toContain('static stream off: switched off (NSCCN_STATIC_TABLE=none)');
      const note = svc.notes().find((n) => n.startsWith(`model stream off: could not load ${broken.dir}`));
      expect(note).toBeDefined();
      expect(logs).toContain(note);
      await svc.close();
    } finally {
      delete process.env.NSCCN_STATIC_TABLE;
    }
  });

  it('a load that makes no progress is given up after the timeout', async () => {
    const slow = buildTinyModel(dir, { name: 'slow' });
    process.env.NSCCN_STATIC_TABLE = 'none';
    try {
      const svc = new EmbeddingService(conceptStore(), { model: slow.dir }, () => {});
      svc.timeouts = { loadIdleMs: 1, batchMs: 1000 };
      svc.start();
      await svc.idle();
      expect(svc.notes().join('\n')).toMatch(/model stream off: could not load .*made no progress for 0 s; gave up/);
      await svc.close();
    } finally {
      delete process.env.NSCCN_STATIC_TABLE;
    }
  });
});

describe('quantization named on an index whose vectors are all in place', () => {
  it('is applied when the engine opens: bits for binary, none for float', async () => {
    const { Engine } = await import('../server/src/engine/engine');
    const { VectorStore } = await import('../server/src/engine/store/vectors');
    const { copyFixture } = await import('./helpers/workspace');
    const root = copyFixture('python');
    try {
      for (const [quantization, bits] of [['float', false], ['binary', true], ['binary', true], ['float', false]] as const) {
        const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none', quantization } });
        await engine.indexWorkspace();
        await engine.embeddings.idle();
        expect(new VectorStore(engine.store.db).hasBinary('static'), quantization).toBe(bits);
        await engine.close();
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
