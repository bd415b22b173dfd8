// Binary vectors held in memory for the first, coarse step of vector search: one sign bit per
// dimension, compared by Hamming distance over 32-bit words. A linear scan of 100K × 256 bits
// in JS takes a few ms whatever the pool size, where sqlite-vec's bit KNN grows with k (measured
// on the same 104K vectors under the same load: 97–155 ms for a pool of 120 against 14–30 ms
// here, the same 120 candidates). Plain data, no SQL: `vectors.ts` fills and versions it.

import { scanKernel, type ScanKernel } from './bits-kernel';

/**
 * A vector's sign bits, one per dimension, least significant bit first: sqlite-vec's
 * `vec_quantize_binary` (a bit is set for a value above zero; -0 and NaN are not), computed
 * here so that a write or a search does not hand a kilobyte of floats to SQL for 32 bytes back.
 */
export function signBits(v: Float32Array): Uint8Array {
  const out = new Uint8Array(v.length >> 3);
  for (let i = 0; i < v.length; i++) if (v[i] > 0) out[i >> 3] |= 1 << (i & 7);
  return out;
}

export class BitIndex {
  private words: Uint32Array;
  /** `words` as bytes: vectors are copied in without an allocation each (100K at the first search). */
  private bytes: Uint8Array;
  private eids: Float64Array;
  /** eid → slot; built on the first set or delete after a `load` (a search needs only `eids`). */
  private slotMap: Map<number, number> | null = new Map();
  private count = 0;
  /** Distances of the last scan, kept to avoid an allocation per query. */
  private dist = new Uint16Array(0);
  /** 256-bit vectors are held and scanned in WebAssembly (./bits-kernel.ts) where it runs. */
  private readonly kernel: ScanKernel | null;

  /** `width`: bytes per vector as stored (dims / 8); padded here to whole 32-bit words. */
  constructor(readonly width: number, useKernel = true) {
    this.words = new Uint32Array(0);
    this.bytes = new Uint8Array(0);
    this.eids = new Float64Array(0);
    this.kernel = useKernel && this.stride === 8 ? scanKernel() : null;
  }

  get size(): number {
    return this.count;
  }

  private get slot(): Map<number, number> {
    if (!this.slotMap) {
      this.slotMap = new Map();
      for (let i = 0; i < this.count; i++) this.slotMap.set(this.eids[i], i);
    }
    return this.slotMap;
  }

  private get stride(): number {
    return Math.ceil(this.width / 4);
  }

  set(eid: number, bits: Uint8Array): void {
    let at = this.slot.get(eid);
    if (at === undefined) {
      at = this.count++;
      this.grow(this.count);
      this.slot.set(eid, at);
      this.eids[at] = eid;
    }
    const width = this.stride * 4;
    const from = at * width;
    const n = Math.min(bits.length, width);
    this.bytes.set(n === bits.length ? bits : bits.subarray(0, n), from);
    if (n < width) this.bytes.fill(0, from + n, from + width);
  }

  /**
   * Adds `eids.length` vectors held back to back in `bytes`, `width` bytes each (the first
   * search loads every vector of a space this way: no view or copy per vector).
   */
  load(eids: ArrayLike<number>, bytes: Uint8Array): void {
    const width = this.stride * 4;
    if (bytes.length !== eids.length * this.width) throw new Error(`expected ${eids.length} vectors of ${this.width} bytes, got ${bytes.length} bytes`);
    if (this.count === 0 && width === this.width) {
      this.grow(eids.length);
      this.bytes.set(bytes, 0);
      this.eids.set(eids, 0);
      this.count = eids.length;
      this.slotMap = null;
      return;
    }
    for (let i = 0; i < eids.length; i++) this.set(eids[i], bytes.subarray(i * this.width, (i + 1) * this.width));
  }

  /** Every vector back to back (`width` bytes each) and their eids, in slot order (for `load`). */
  dump(): { eids: Float64Array; bytes: Uint8Array } {
    const eids = this.eids.slice(0, this.count);
    const width = this.stride * 4;
    if (width === this.width) return { eids, bytes: this.bytes.slice(0, this.count * width) };
    const bytes = new Uint8Array(this.count * this.width);
    for (let i = 0; i < this.count; i++) bytes.set(this.bytes.subarray(i * width, i * width + this.width), i * this.width);
    return { eids, bytes };
  }

  delete(eid: number): void {
    const at = this.slot.get(eid);
    if (at === undefined) return;
    const last = --this.count;
    this.slot.delete(eid);
    if (at !== last) {
      // The last vector moves into the hole: slots stay dense.
      const s = this.stride;
      this.words.copyWithin(at * s, last * s, last * s + s);
      this.eids[at] = this.eids[last];
      this.slot.set(this.eids[at], at);
    }
  }

  /**
   * The `pool` entities nearest to `query` by Hamming distance; ties at the cut go to the
   * lower eid, so the same index and query always give the same pool.
   */
  nearest(query: Uint8Array, pool: number): number[] {
    const n = this.count;
    if (n === 0 || pool <= 0) return [];
    const s = this.stride;
    const q = toWords(query, s);
    let dist: Uint16Array<ArrayBufferLike> = this.dist;
    let hist: Uint32Array<ArrayBufferLike> = new Uint32Array(s * 32 + 1);
    const w = this.words;
    if (this.kernel) ({ dist, hist } = this.kernel.scan(q, n));
    else if (s === 8) {
      if (dist.length < n) dist = this.dist = new Uint16Array(this.words.length / s);
      scan256(w, q, n, dist, hist);
    } else {
      if (dist.length < n) dist = this.dist = new Uint16Array(this.words.length / s);
      for (let i = 0, o = 0; i < n; i++, o += s) {
        let d = 0;
        for (let j = 0; j < s; j++) d += popcount(w[o + j] ^ q[j]);
        dist[i] = d;
        hist[d]++;
      }
    }
    // The distance below which fewer than `pool` vectors lie: all of those, then the cut's lowest eids.
    let cut = 0;
    let below = 0;
    while (cut < hist.length && below + hist[cut] < pool) below += hist[cut++];
    const out: Array<{ eid: number; d: number }> = [];
    const atCut: number[] = [];
    for (let i = 0; i < n; i++) {
      if (dist[i] < cut) out.push({ eid: this.eids[i], d: dist[i] });
      else if (dist[i] === cut) atCut.push(this.eids[i]);
    }
    atCut.sort((a, b) => a - b);
    for (const eid of atCut.slice(0, pool - out.length)) out.push({ eid, d: cut });
    out.sort((a, b) => a.d - b.d || a.eid - b.eid);
    return out.map((x) => x.eid);
  }

  private grow(need: number): void {
    const cap = this.eids.length;
    if (need <= cap) return;
    const next = Math.max(need, cap * 2, 1024);
    if (this.kernel) {
      this.kernel.reserve(next, this.count);
      this.words = this.kernel.words;
      this.bytes = this.kernel.bytes;
    } else {
      const words = new Uint32Array(next * this.stride);
      words.set(this.words);
      this.words = words;
      this.bytes = new Uint8Array(words.buffer);
    }
    const eids = new Float64Array(next);
    eids.set(this.eids);
    this.eids = eids;
  }
}


/**
 * The scan for 256-bit vectors (the static table's width) where WebAssembly does not run,
 * unrolled with the query in locals: 1.6 against 2.8 ms for the stdlib's 73.7K vectors in the
 * loop above.
 */
function scan256(w: Uint32Array, q: Uint32Array, n: number, dist: Uint16Array, hist: Uint32Array): void {
  const q0 = q[0], q1 = q[1], q2 = q[2], q3 = q[3], q4 = q[4], q5 = q[5], q6 = q[6], q7 = q[7];
  for (let i = 0, o = 0; i < n; i++, o += 8) {
    const d =
      popcount(w[o] ^ q0) + popcount(w[o + 1] ^ q1) + popcount(w[o + 2] ^ q2) + popcount(w[o + 3] ^ q3) +
      popcount(w[o + 4] ^ q4) + popcount(w[o + 5] ^ q5) + popcount(w[o + 6] ^ q6) + popcount(w[o + 7] ^ q7);
    dist[i] = d;
    hist[d]++;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

function toWords(bits: Uint8Array, stride: number): Uint32Array {
  const padded = new Uint8Array(stride * 4);
  padded.set(bits.subarray(0, stride * 4));
  return new Uint32Array(padded.buffer);
}
