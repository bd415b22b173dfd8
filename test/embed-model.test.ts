// The real transformers.js path, end to end, with a tiny BERT-shaped model built on the spot:
// settings → model thread → feature extraction → vectors in sqlite-vec → KNN → the model
// stream ranks the right entity first. Also: switching models re-embeds everything, and an
// edited entity is the only one embedded again.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingService } from '../server/src/engine/embed/service';
import { ModelEmbedder } from '../server/src/engine/embed/model-embedder';
import { decideModel } from '../server/src/engine/embed/model-settings';
import { VectorStore } from '../server/src/engine/store/vectors';
import { buildTinyModel, type TinyModel } from './helpers/tiny-model';
import { conceptStore, eidOf, writeFile } from './helpers/semantic-fixture';

let root: string;
let modelA: TinyModel;
let modelB: TinyModel;

beforeAll(() => {
  process.env.NSCCN_STATIC_TABLE = 'none'; // this file is about the model stream
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-embed-model-'));
  modelA = buildTinyModel(root, { name: 'tiny-a', quantized: true });
  modelB = buildTinyModel(root, { name: 'tiny-b', dims: 48, seed: 11 });
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

describe('model embedder (transformers.js in a worker thread)', () => {
  it('loads a local folder, picks the quantized file, and embeds by meaning', async () => {
    const d = decideModel({ model: modelA.dir }, {});
    if (d.kind !== 'load') throw new Error(d.note);
    expect(d.plan.dtypes[0]).toBe('q8');
    const m = await ModelEmbedder.load(d.plan);
    try {
      expect(m.dims).toBe(32);
      expect(m.dtype).toBe('q8');
      const [login, creds, socket] = await m.embed(['verify the user login password', 'check credential token', 'open a socket to the server url']);
      expect(Math.hypot(...login)).toBeCloseTo(1, 4);
      expect(dot(login, creds)).toBeGreaterThan(dot(login, socket) + 0.3);
    } finally {
      await m.close();
    }
  });

  it('finds a model by name under localModelPath and falls back to fp32 without a quantized file', () => {
    const d = decideModel({ model: 'tiny-b', localModelPath: root }, {});
    if (d.kind !== 'load') throw new Error(d.note);
    expect(d.plan.ref).toBe(modelB.dir);
    expect(d.plan.dtypes).toEqual(['fp32']);
  });
});

describe('embedding service with a model', () => {
  it('embeds every entity in the background and the model stream ranks the right one first', async () => {
    const store = conceptStore();
    const logs: string[] = [];
    const svc = new EmbeddingService(store, { model: modelA.dir }, (m) => logs.push(m));
    svc.start();
    expect(svc.streams()).toEqual([]); // nothing blocks: the model is still loading
    await svc.idle();
    const streams = svc.streams();
    expect(streams.map((s) => s.name)).toEqual([`model:${modelA.dir}`]);
    expect(svc.status()).toEqual({ model: modelA.dir, dims: 32, done: 10, total: 10 });
    const model = streams[0];
    expect((await model.search('check the login credential of a user', 5))[0]?.eid).toBe(eidOf(store, 'func:auth.py:verify_password'));
    expect((await model.search('download over http from a server', 5))[0]?.eid).toBe(eidOf(store, 'func:net.py:fetch_url'));
    expect((await model.search('median statistics of the numbers', 5))[0]?.eid).toBe(eidOf(store, 'func:stats.py:average'));
    expect(logs.some((l) => l.startsWith(`model stream on: ${modelA.dir}`))).toBe(true);
    await svc.close();
  });

  it('calls a stream incomplete when entities were written but not embedded yet, and complete once they are', async () => {
    const store = conceptStore();
    const svc = new EmbeddingService(store, { model: modelA.dir }, () => {});
    svc.start();
    await svc.idle();
    expect(svc.incompleteStreams()).toEqual([]);
    // Written without telling the service (an index run before it finishes, another process).
    writeFile(store, 'extra.py', [{ name: 'brand_new', signature: 'def brand_new()', body: 'fresh words' }]);
    const incomplete = svc.incompleteStreams();
    expect(incomplete.length).toBeGreaterThan(0);
    expect(incomplete).toEqual(svc.progress().filter((p) => !p.complete).map((p) => p.stream));
    svc.changed(['extra.py']);
    await svc.idle();
    expect(svc.incompleteStreams()).toEqual([]);
    await svc.close();
  });

  it('re-embeds only the entity whose content changed, and drops vectors of deleted ones', async () => {
    const store = conceptStore();
    const svc = new EmbeddingService(store, { model: modelA.dir }, () => {});
    svc.start();
    await svc.idle();
    expect(svc.embeddedCount('model')).toBe(10);
    const vs = new VectorStore(store.db);
    const eid = eidOf(store, 'func:files.py:read_file');
    // The function now talks to the database instead of the disk.
    writeFile(store, 'files.py', [{ name: 'read_file', signature: 'def read_file(path)', body: 'sql query table row record' }], 'h2');
    expect(vs.pendingEids('model')).toEqual([eid]);
    // Told about another file only: the rescan looks at that file's entities, not this one's.
    svc.changed(['net.py']);
    await svc.idle();
    expect(svc.embeddedCount('model')).toBe(10);
    svc.changed(['files.py']);
    await svc.idle();
    expect(svc.embeddedCount('model')).toBe(11); // one more, not ten more
    expect(vs.pendingEids('model')).toEqual([]);
    const [stream] = svc.streams();
    const hits = await stream.search('insert a record into the sql table', 2);
    expect(hits.map((h) => h.eid)).toContain(eid);

    const gone = eidOf(store, 'func:stats.py:average');
    store.transaction(() => store.deleteFile('stats.py'));
    svc.changed();
    await svc.idle();
    expect((await stream.search('average of the numbers', 10)).map((h) => h.eid)).not.toContain(gone);
    expect(svc.status()).toMatchObject({ done: 8, total: 8 });
    await svc.close();
  });

  it('re-embeds everything when the model changes', async () => {
    const store = conceptStore();
    const a = new EmbeddingService(store, { model: modelA.dir }, () => {});
    a.start();
    await a.idle();
    await a.close();
    const b = new EmbeddingService(store, { model: modelB.dir }, () => {});
    b.start();
    await b.idle();
    expect(b.embeddedCount('model')).toBe(10);
    expect(b.status()).toEqual({ model: modelB.dir, dims: 48, done: 10, total: 10 });
    const [stream] = b.streams();
    expect((await stream.search('read a file from the folder on disk', 3))[0]?.eid).toBe(eidOf(store, 'func:files.py:read_file'));
    await b.close();
    // Back to A with nothing changed: A's vectors were replaced by B's, so all are embedded again.
    const again = new EmbeddingService(store, { model: modelA.dir }, () => {});
    again.start();
    await again.idle();
    expect(again.embeddedCount('model')).toBe(10);
    await again.close();
  });

  it('binary quantization on request gives the same first hits as float', async () => {
    const store = conceptStore();
    const svc = new EmbeddingService(store, { model: modelA.dir, quantization: 'binary' }, () => {});
    svc.start();
    await svc.idle();
    const vs = new VectorStore(store.db);
    expect(vs.hasBinary('model')).toBe(true);
    const [stream] = svc.streams();
    expect((await stream.search('check the login credential of a user', 3))[0]?.eid).toBe(eidOf(store, 'func:auth.py:verify_password'));
    await svc.close();
  });

  it('a complete index made with float vectors gets its bits when reopened with binary, and loses them with float', async () => {
    const store = conceptStore();
    const vs = new VectorStore(store.db);
    for (const [quantization, bits] of [['float', false], ['binary', true], ['float', false]] as const) {
      const svc = new EmbeddingService(store, { model: modelA.dir, quantization }, () => {});
      svc.start();
      await svc.idle();
      expect(vs.hasBinary('model'), quantization).toBe(bits);
      await svc.close();
    }
  });
});
