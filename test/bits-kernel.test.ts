// The 256-bit Hamming scan in WebAssembly (store/bits-kernel.ts, a module written out byte by
// byte) against the JS scan: the same distances, the same nearest entities, through growth,
// deletions (the last vector moves into the hole) and a bulk load.
import { describe, expect, it } from 'vitest';
import { BitIndex } from '../server/src/engine/store/bits';
import { scanKernel } from '../server/src/engine/store/bits-kernel';

/** Deterministic bytes (a linear congruential generator): the same run every time. */
function randomBytes(seed: number) {
  let x = seed >>> 0;
  return (n: number) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      out[i] = x >>> 24;
    }
    return out;
  };
}

describe('the WebAssembly scan of 256-bit vectors', () => {
  it('runs here (Node 20 has WebAssembly)', () => {
    expect(scanKernel()).not.toBeNull();
  });

  it('gives every distance and count the JS bit count gives', () => {
    const kernel = scanKernel()!;
    const rnd = randomBytes(7);
    const n = 3000;
    kernel.reserve(n, 0);
    kernel.bytes.set(rnd(n * 32));
    const query = new Uint32Array(rnd(32).buffer);
    const { dist, hist } = kernel.scan(query, n);
    const expected = new Uint32Array(257);
    for (let i = 0; i < n; i++) {
      let d = 0;
      for (let j = 0; j < 8; j++) {
        let x = (kernel.words[i * 8 + j] ^ query[j]) >>> 0;
        while (x) {
          d += x & 1;
          x >>>= 1;
        }
      }
      expect(dist[i]).toBe(d);
      expected[d]++;
    }
    expect([...hist]).toEqual([...expected]);
    // All ones against all zeros: the largest distance.
    kernel.bytes.fill(0xff, 0, 32);
    expect(kernel.scan(new Uint32Array(8), 1).dist[0]).toBe(256);
  });

  it('finds the same nearest entities as the JS scan through sets, growth, deletions and a load', () => {
    const rnd = randomBytes(11);
    const fast = new BitIndex(32);
    const plain = new BitIndex(32, false);
    const check = () => {
      for (let q = 0; q < 5; q++) {
        const query = rnd(32);
        for (const pool of [1, 17, 400]) expect(fast.nearest(query, pool)).toEqual(plain.nearest(query, pool));
      }
    };
    for (let eid = 1; eid <= 2500; eid++) {
      const v = rnd(32);
      fast.set(eid, v);
      plain.set(eid, v);
    }
    check();
    for (let eid = 3; eid <= 2500; eid += 7) {
      fast.delete(eid);
      plain.delete(eid);
    }
    for (let eid = 10; eid <= 2000; eid += 13) {
      const v = rnd(32);
      fast.set(eid, v);
      plain.set(eid, v);
    }
    check();
    expect(fast.size).toBe(plain.size);
    const { eids, bytes } = plain.dump();
    const loaded = new BitIndex(32);
    loaded.load(eids, bytes);
    expect(loaded.dump()).toEqual(fast.dump());
    for (let q = 0; q < 3; q++) {
      const query = rnd(32);
      expect(loaded.nearest(query, 50)).toEqual(plain.nearest(query, 50));
    }
  });
});
