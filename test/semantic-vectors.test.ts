// The vector store over a real sqlite-vec index: bookkeeping of what is embedded, orphans,
// model switches, and binary KNN (bits, then float re-scoring) agreeing with exact float KNN.
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BitIndex, signBits } from '../server/src/engine/store/bits';
import { fromQ8, norm, rowDistance, toQ8 } from '../server/src/engine/store/q8';
import { openDatabase } from '../server/src/engine/store/db';
import { Store } from '../server/src/engine/store/store';
import { VectorStore } from '../server/src/engine/store/vectors';
import { conceptStore, eidOf, openStore, writeFile } from './helpers/semantic-fixture';

/** Deterministic unit vectors around a few cluster centres, so neighbours are well defined. */
function clustered(n: number, dims: number, clusters: number, seed: number): { vectors: Float32Array[]; cluster: number[] } {
  let a = seed;
  const rand = () => {
    a = (a * 1103515245 + 12345) % 2147483648;
    return a / 2147483648 - 0.5;
  };
  const centres = Array.from({ length: clusters }, () => Float32Array.from({ length: dims }, rand));
  const vectors: Float32Array[] = [];
  const cluster: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % clusters;
    const v = Float32Array.from(centres[c], (x) => x + 0.25 * rand());
    const norm = Math.hypot(...v);
    vectors.push(v.map((x) => x / norm));
    cluster.push(c);
  }
  return { vectors, cluster };
}

function fillStore(n: number) {
  const store = openStore();
  const fns = Array.from({ length: n }, (_, i) => ({ name: `f${i}`, body: `w${i}` }));
  writeFile(store, 'm.py', fns);
  const eids = fns.map((f) => eidOf(store, `func:m.py:${f.name}`));
  return { store, eids };
}

describe('VectorStore', () => {
  it('tracks which entities need a vector, and only those whose content changed', () => {
    const store = conceptStore();
    const vs = new VectorStore(store.db);
    vs.open('model', 'm1', 8);
    const pending = vs.pendingEids('model');
    expect(pending.length).toBe(vs.counts('model').total);
    expect(vs.counts('model')).toEqual({ done: 0, total: 10 }); // 5 modules + 5 functions
    vs.put('model', pending.map((eid) => ({ eid, id: vs.entity(eid)!.id, hash: vs.entity(eid)!.hash, vector: Float32Array.from({ length: 8 }, (_, i) => (i === eid % 8 ? 1 : 0.1)) })));
    expect(vs.pendingEids('model')).toEqual([]);
    expect(vs.counts('model').done).toBe(10);

    const before = eidOf(store, 'func:net.py:fetch_url');
    writeFile(store, 'net.py', [{ name: 'fetch_url', signature: 'def fetch_url(url, timeout)', body: 'http request' }], 'h2');
    expect(eidOf(store, 'func:net.py:fetch_url')).toBe(before); // upsert keeps the eid...
    expect(vs.pendingEids('model')).toEqual([before]); // ...and only the changed entity is pending
    expect(vs.pendingEidsOfFiles('model', ['net.py'])).toEqual([before]); // found from its file alone
    expect(vs.pendingEidsOfFiles('model', ['stats.py', 'nowhere.py'])).toEqual([]);
  });

  it('drops vectors of deleted entities, and recognises a reused eid as a new entity', () => {
    const store = conceptStore();
    const vs = new VectorStore(store.db);
    vs.open('static', 't', 8);
    const all = vs.pendingEids('static');
    vs.put('static', all.map((eid) => ({ eid, id: vs.entity(eid)!.id, hash: vs.entity(eid)!.hash, vector: new Float32Array(8).fill(0.5) })));
    const gone = eidOf(store, 'func:stats.py:average');
    store.transaction(() => store.deleteFile('stats.py'));
    expect(vs.dropOrphans('static')).toBe(2);
    expect(vs.knn('static', new Float32Array(8).fill(0.5), 50).map((h) => h.eid)).not.toContain(gone);
    expect(vs.counts('static')).toEqual({ done: 8, total: 8 });
  });

  it('starts over when the model or the width changes', () => {
    const store = conceptStore();
    const vs = new VectorStore(store.db);
    expect(vs.open('model', 'a', 8)).toBe(true);
    const eid = vs.pendingEids('model')[0];
    vs.put('model', [{ eid, id: vs.entity(eid)!.id, hash: vs.entity(eid)!.hash, vector: new Float32Array(8).fill(1) }]);
    expect(vs.open('model', 'a', 8)).toBe(false);
    expect(vs.counts('model').done).toBe(1);
    expect(vs.open('model', 'b', 8)).toBe(true);
    expect(vs.counts('model').done).toBe(0);
    expect(vs.open('model', 'b', 16)).toBe(true);
    expect(() => vs.put('model', [{ eid, id: 'x', hash: 'y', vector: new Float32Array(8) }])).toThrow(/8 dimensions, the space has 16/);
  });

  it('refuses binary vectors whose width is not a multiple of 8, and unsafe space names', () => {
    const { store } = fillStore(2);
    const vs = new VectorStore(store.db);
    vs.open('model', 'odd', 12);
    expect(() => vs.setBinary('model', true)).toThrow(/divisible by 8/);
    expect(() => vs.open('x; DROP TABLE entities', 'm', 8)).toThrow(/invalid vector space name/);
  });

  it('binary KNN with float re-scoring agrees with exact float KNN', () => {
    const n = 600;
    const dims = 64;
    const { store, eids } = fillStore(n);
    const vs = new VectorStore(store.db);
    vs.open('model', 'clustered', dims);
    const { vectors, cluster } = clustered(n, dims, 12, 42);
    vs.put('model', eids.map((eid, i) => ({ eid, id: `func:m.py:f${i}`, hash: vs.entity(eid)!.hash, vector: vectors[i] })));
    vs.setBinary('model', true);
    expect(vs.hasBinary('model')).toBe(true);
    let top1Same = 0;
    let overlap = 0;
    for (let q = 0; q < 40; q++) {
      const query = vectors[q * 7];
      const exact = vs.knn('model', query, 10, { binary: false }).map((h) => h.eid);
      const approx = vs.knn('model', query, 10, { binary: true });
      // Re-scored distances are exact cosine distances, sorted.
      for (let i = 1; i < approx.length; i++) expect(approx[i].distance).toBeGreaterThanOrEqual(approx[i - 1].distance);
      const ids = approx.map((h) => h.eid);
      if (ids[0] === exact[0]) top1Same++;
      overlap += ids.filter((e) => exact.includes(e)).length;
      // The nearest neighbour of a stored vector is itself, and its cluster-mates follow.
      expect(ids[0]).toBe(eids[q * 7]);
      expect(cluster[eids.indexOf(ids[1])]).toBe(cluster[q * 7]);
    }
    expect(top1Same).toBe(40);
    expect(overlap / 400).toBeGreaterThan(0.8);
    // Switching binary off keeps float search working.
    vs.setBinary('model', false);
    expect(vs.knn('model', vectors[0], 3)[0].eid).toBe(eids[0]);
  });

  it('with the bits on, re-scores from a byte per dimension (a quarter of the floats), moves older indexes there, and back when they go off', () => {
    const n = 300;
    const dims = 32;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-q8-'));
    const file = path.join(dir, 'index.db');
    try {
      const store = new Store(openDatabase(file, () => {}).db);
      const fns = Array.from({ length: n }, (_, i) => ({ name: `f${i}`, body: `w${i}` }));
      writeFile(store, 'm.py', fns);
      const eids = fns.map((f) => eidOf(store, `func:m.py:${f.name}`));
      const count = (table: string) => (store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      const tableExists = (table: string) => store.db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(table) !== undefined;
      const rowBytes = (table: string, col: string) => (store.db.prepare(`SELECT max(length(${col})) AS b FROM ${table}`).get() as { b: number }).b;
      const vs = new VectorStore(store.db);
      vs.open('model', 'clustered', dims);
      const { vectors } = clustered(n, dims, 6, 7);
      vs.put('model', eids.map((eid, i) => ({ eid, id: `func:m.py:f${i}`, hash: vs.entity(eid)!.hash, vector: vectors[i] })));
      const probes = [0, 50, 299];
      const floatAnswers = probes.map((q) => vs.knn('model', vectors[q], 8));
      expect(count('vec_model_f')).toBe(n);
      expect(tableExists('vec_model_q8')).toBe(false);
      const exact = probes.map((q) => new Map(vs.knn('model', vectors[q], n).map((h) => [h.eid, h.distance])));
      // Re-scored from the rows: each distance within the rounding of a byte per dimension of
      // the float one, so the same nearest vector and the same neighbours but for near-ties.
      const sameAnswers = (got: ReturnType<typeof vs.knn>[]) =>
        got.forEach((hits, k) => {
          expect(hits.length).toBe(8);
          expect(hits[0].eid).toBe(floatAnswers[k][0].eid);
          const kth = floatAnswers[k][7].distance;
          for (const h of hits) {
            const d = exact[k].get(h.eid)!;
            expect(Math.abs(h.distance - d)).toBeLessThan(0.005);
            expect(d).toBeLessThan(kth + 0.01);
          }
        });

      vs.setBinary('model', true);
      expect(count('vec_model_q8')).toBe(n);
      expect(rowBytes('vec_model_q8', 'q')).toBe(dims);
      expect(count('vec_model_f')).toBe(0);
      expect(tableExists('vec_model_floats')).toBe(false);
      const binaryAnswers = (v: VectorStore) => probes.map((q) => v.knn('model', vectors[q], 8, { rescore: n }));
      sameAnswers(binaryAnswers(vs));
      // A float search asked for while the bits are on scans the rows.
      sameAnswers(probes.map((q) => vs.knn('model', vectors[q], 8, { binary: false })));
      // Writes and deletes go to the rows while the bits are on.
      vs.put('model', [{ eid: eids[1], id: 'func:m.py:f1', hash: vs.entity(eids[1])!.hash, vector: vectors[0] }]);
      expect(vs.knn('model', vectors[0], 2, { rescore: n }).map((h) => h.eid).sort()).toEqual([eids[0], eids[1]].sort());
      vs.put('model', [{ eid: eids[1], id: 'func:m.py:f1', hash: vs.entity(eids[1])!.hash, vector: vectors[1] }]);
      expect(count('vec_model_q8')).toBe(n);
      expect(count('vec_model_f')).toBe(0);

      // An index made before the rows were bytes (bits on, float rows): read as it is when
      // read-only, moved into the rows when a writer opens the space.
      store.db.exec('DROP TABLE vec_model_q8; CREATE TABLE vec_model_floats (eid INTEGER PRIMARY KEY, embedding BLOB NOT NULL)');
      const insFloat = store.db.prepare('INSERT INTO vec_model_floats(eid, embedding) VALUES (?, ?)');
      eids.forEach((eid, i) => insFloat.run(eid, vectors[i]));
      store.db.close();
      const reader = new Database(file, { readonly: true, fileMustExist: true });
      sqliteVec.load(reader);
      const readOnly = new VectorStore(reader);
      expect(readOnly.open('model', 'clustered', dims)).toBe(false);
      sameAnswers(binaryAnswers(readOnly));
      reader.close();
      const writer = new Store(openDatabase(file, () => {}).db);
      const moved = new VectorStore(writer.db);
      expect(moved.open('model', 'clustered', dims)).toBe(false);
      const countW = (table: string) => (writer.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      expect(countW('vec_model_q8')).toBe(n);
      expect(writer.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'vec_model_floats'").get()).toBeUndefined();
      sameAnswers(binaryAnswers(moved));

      // Older still (bits on, floats in vec0): moved into the rows too.
      writer.db.exec('DROP TABLE vec_model_q8; DROP TABLE vec_model_f');
      writer.db.exec(`CREATE VIRTUAL TABLE vec_model_f USING vec0(embedding float[${dims}] distance_metric=cosine)`);
      const ins = writer.db.prepare('INSERT INTO vec_model_f(rowid, embedding) VALUES (?, ?)');
      eids.forEach((eid, i) => ins.run(BigInt(eid), vectors[i]));
      const older = new VectorStore(writer.db);
      expect(older.open('model', 'clustered', dims)).toBe(false);
      expect(countW('vec_model_q8')).toBe(n);
      expect(countW('vec_model_f')).toBe(0);
      sameAnswers(binaryAnswers(older));

      // Bits off: the vectors are back in vec0 (as the rows' directions), and its KNN answers as before.
      older.setBinary('model', false);
      expect(writer.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'vec_model_q8'").get()).toBeUndefined();
      expect(countW('vec_model_f')).toBe(n);
      sameAnswers(probes.map((q) => older.knn('model', vectors[q], 8)));
      writer.db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('re-scoring rows (a byte per dimension)', () => {
  it('give the float cosine within rounding at the static table width, read float rows of older indexes exactly, and refuse a row of another width', () => {
    const { vectors } = clustered(200, 256, 5, 11);
    const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b));
    let worst = 0;
    for (let i = 0; i < 100; i++) {
      const q = vectors[i];
      const v = vectors[199 - i];
      const row = toQ8(v);
      expect(row.length).toBe(256);
      worst = Math.max(worst, Math.abs(rowDistance(q, norm(q), row) - (1 - cos(q, v))));
      // An older index's float32 row: the float cosine itself.
      const floats = new Uint8Array(v.buffer.slice(0));
      expect(rowDistance(q, norm(q), floats)).toBeCloseTo(1 - cos(q, v), 6);
    }
    expect(worst).toBeGreaterThan(0); // rounded, not stored as floats
    expect(worst).toBeLessThan(0.002);
    // The direction is kept: a row read back points where the vector did.
    expect(cos(fromQ8(toQ8(vectors[3])), vectors[3])).toBeGreaterThan(0.9999);
    // No direction, no neighbour.
    expect(rowDistance(vectors[0], norm(vectors[0]), toQ8(new Float32Array(256)))).toBe(1);
    expect(() => rowDistance(vectors[0], norm(vectors[0]), new Uint8Array(100))).toThrow(/100 bytes does not fit 256 dimensions/);
  });
});

describe('sign bits', () => {
  it("are sqlite-vec's vec_quantize_binary, bit for bit (zero, -0 and values below float precision unset)", () => {
    const db = new Database(':memory:');
    sqliteVec.load(db);
    const quantize = db.prepare('SELECT vec_quantize_binary(?) AS b');
    const { vectors } = clustered(300, 256, 5, 7);
    vectors[0].fill(0);
    vectors[1].fill(-0);
    vectors[2].fill(1e-45);
    vectors[3].fill(-1e-45);
    for (let i = 0; i < 256; i += 3) vectors[4][i] = 0;
    for (const v of vectors) expect(Buffer.from(signBits(v)).equals((quantize.get(v) as { b: Buffer }).b)).toBe(true);
    expect([...signBits(Float32Array.from({ length: 16 }, (_, i) => (i % 3 === 0 ? 1 : -1)))]).toEqual([0b01001001, 0b10010010]);
    db.close();
  });
});

describe('binary search held in memory', () => {
  it('takes the pool nearest by Hamming distance, ties to the lower eid, and follows sets and deletes', () => {
    const index = new BitIndex(4); // 32 bits
    const v = (...bytes: number[]) => Uint8Array.from(bytes);
    index.set(5, v(0, 0, 0, 0));
    index.set(3, v(1, 0, 0, 0)); // distance 1 from zero
    index.set(9, v(3, 0, 0, 0)); // 2
    index.set(2, v(0, 0, 0, 1)); // 1
    expect(index.nearest(v(0, 0, 0, 0), 3)).toEqual([5, 2, 3]);
    index.delete(5);
    expect(index.size).toBe(3);
    expect(index.nearest(v(0, 0, 0, 0), 2)).toEqual([2, 3]);
    index.set(3, v(255, 255, 255, 255)); // moved far away
    expect(index.nearest(v(0, 0, 0, 0), 2)).toEqual([2, 9]);
    expect(index.nearest(v(0, 0, 0, 0), 10)).toEqual([2, 9, 3]);
  });

  it('finds the same pool at the static table width (256 bits) as counting every bit', () => {
    let a = 7;
    const byte = () => ((a = (a * 1103515245 + 12345) % 2147483648) >>> 8) & 255;
    const vectors = Array.from({ length: 500 }, () => Uint8Array.from({ length: 32 }, byte));
    const index = new BitIndex(32);
    vectors.forEach((bits, i) => index.set(i + 1, bits));
    const bitsOf = (x: number) => x.toString(2).replace(/0/g, '').length;
    for (let q = 0; q < 5; q++) {
      const query = Uint8Array.from({ length: 32 }, byte);
      const counted = vectors.map((bits, i) => ({ eid: i + 1, d: bits.reduce((s, b, j) => s + bitsOf(b ^ query[j]), 0) }));
      counted.sort((x, y) => x.d - y.d || x.eid - y.eid);
      expect(index.nearest(query, 20)).toEqual(counted.slice(0, 20).map((c) => c.eid));
    }
  });

  it('loads vectors held back to back as set one by one would, and refuses a buffer of the wrong size', () => {
    const bytes = Uint8Array.from([0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 1]);
    const loaded = new BitIndex(4);
    loaded.load([5, 3, 9, 2], bytes);
    expect(loaded.size).toBe(4);
    expect(loaded.nearest(Uint8Array.from([0, 0, 0, 0]), 3)).toEqual([5, 2, 3]);
    loaded.delete(5);
    loaded.load([7], Uint8Array.from([0, 0, 0, 0])); // into an index that holds vectors
    expect(loaded.nearest(Uint8Array.from([0, 0, 0, 0]), 2)).toEqual([7, 2]);
    expect(() => new BitIndex(4).load([1, 2], Uint8Array.from([0, 0, 0, 0]))).toThrow(/2 vectors of 4 bytes/);
  });

  it('a later process reads the bits saved whole while they are current, and the rows once a write moved them', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bits-'));
    const file = path.join(dir, 'index.db');
    try {
      const a = new Store(openDatabase(file, () => {}).db);
      writeFile(a, 'm.py', Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, body: `w${i}` })));
      const va = new VectorStore(a.db);
      va.open('model', 'm', 16);
      const eids = va.pendingEids('model');
      const unit = (i: number) => Float32Array.from({ length: 16 }, (_, j) => (j === i % 16 ? 1 : -0.2));
      va.put('model', eids.map((eid, i) => ({ eid, id: va.entity(eid)!.id, hash: va.entity(eid)!.hash, vector: unit(i) })));
      va.setBinary('model', true);
      va.saveBits('model');
      // Doctored to hold the first vector only: a search that reads the snapshot finds only it.
      a.db.prepare("UPDATE vec_bits_snapshot SET eids = substr(eids, 1, 8), bits = substr(bits, 1, 2) WHERE space = 'model'").run();
      const pool = (vs: VectorStore) => vs.knn('model', unit(7), 3).map((h) => h.eid);
      const b = new Store(openDatabase(file, () => {}).db);
      expect(pool(va)).toHaveLength(3);
      expect(pool(new VectorStore(b.db))).toEqual([eids[0]]); // the saved bits were read
      // A write of bits after the save: the snapshot is stale, the rows are read.
      va.put('model', [{ eid: eids[0], id: va.entity(eids[0])!.id, hash: va.entity(eids[0])!.hash, vector: unit(0) }]);
      expect(pool(new VectorStore(b.db))).toEqual(pool(va));
      a.db.close();
      b.db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sees vectors another connection wrote, and its own writes without a reload', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bits-'));
    const file = path.join(dir, 'index.db');
    try {
      const a = new Store(openDatabase(file, () => {}).db);
      writeFile(a, 'm.py', Array.from({ length: 40 }, (_, i) => ({ name: `f${i}`, body: `w${i}` })));
      const va = new VectorStore(a.db);
      va.open('model', 'm', 16);
      const eids = va.pendingEids('model');
      const unit = (i: number) => Float32Array.from({ length: 16 }, (_, j) => (j === i % 16 ? 1 : j === (i + 1) % 16 ? 0.5 : -0.1));
      va.put('model', eids.slice(0, 30).map((eid, i) => ({ eid, id: va.entity(eid)!.id, hash: va.entity(eid)!.hash, vector: unit(i) })));
      va.setBinary('model', true);
      const probe = unit(3);
      expect(va.knn('model', probe, 1)[0].eid).toBe(eids[3]);

      // Another process (connection) stores a vector unlike the others for a new entity.
      const b = new Store(openDatabase(file, () => {}).db);
      const vb = new VectorStore(b.db);
      vb.open('model', 'm', 16);
      const odd = Float32Array.from({ length: 16 }, (_, j) => (j % 2 ? 1 : -1));
      vb.put('model', [{ eid: eids[35], id: vb.entity(eids[35])!.id, hash: vb.entity(eids[35])!.hash, vector: odd }]);
      expect(va.knn('model', odd, 1)[0].eid).toBe(eids[35]);

      // This store's own delete is seen at once.
      va.put('model', [{ eid: eids[3], id: va.entity(eids[3])!.id, hash: 'gone', vector: null }]);
      expect(va.knn('model', probe, 5).map((h) => h.eid)).not.toContain(eids[3]);
      a.db.close();
      b.db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
