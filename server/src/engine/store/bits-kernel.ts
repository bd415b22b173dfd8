// The Hamming scan of 256-bit vectors (the static table's width) in WebAssembly: four 64-bit
// popcounts a vector, where JS does eight 32-bit bit-twiddling ones (104K vectors: 0.24–0.39 ms
// against 2.0–3.5 ms in JS on this machine). The vectors live in the module's memory, so a scan
// copies nothing. The module is written out below, instruction by instruction (no WebAssembly
// toolchain is part of the build); test/bits-kernel.test.ts checks it against the JS scan.

// Memory layout, in bytes: the query, the histogram of distances (257 counts), the distances
// (2 bytes a vector), then the vectors (32 bytes each), each region where the capacity puts it.
const QUERY_AT = 0;
const HIST_AT = 64;
const DIST_AT = 1152;
const VECTOR_BYTES = 32;
const PAGE = 65536;

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id: number, bytes: number[]) => [id, ...uleb(bytes.length), ...bytes];
const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

// scan(vectors, query, n, dist, hist): for each of n vectors, d = popcount(vector ^ query);
// dist[i] = d (u16); hist[d] += 1 (u32). Locals: 0 vectors, 1 query, 2 n, 3 dist, 4 hist
// (byte addresses), 5–8 the query's four i64 words, 9 d, 10 the end of the vectors.
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i64load = (offset: number) => [0x29, 0x03, offset];
const popcountXor = (word: number) => [...get(0), ...i64load(word * 8), ...get(5 + word), 0x85 /* i64.xor */, 0x7b /* i64.popcnt */];
const histAddress = [...get(4), ...get(9), 0x41, 2, 0x74 /* i32.shl */, 0x6a /* i32.add */];
const BODY = [
  0x02, 0x04, 0x7e, 0x02, 0x7f, // locals: 4 × i64, 2 × i32
  ...[0, 1, 2, 3].flatMap((w) => [...get(1), ...i64load(w * 8), ...set(5 + w)]),
  ...get(0), ...get(2), 0x41, 5, 0x74, 0x6a, ...set(10), // end = vectors + n * 32
  0x02, 0x40, // block
  ...get(2), 0x45 /* i32.eqz */, 0x0d, 0 /* br_if block: n = 0 */,
  0x03, 0x40, // loop
  ...popcountXor(0), ...popcountXor(1), 0x7c /* i64.add */, ...popcountXor(2), 0x7c, ...popcountXor(3), 0x7c,
  0xa7 /* i32.wrap_i64 */, ...set(9),
  ...get(3), ...get(9), 0x3b, 0x01, 0x00, // i32.store16 dist
  ...histAddress, ...histAddress, 0x28, 0x02, 0x00 /* i32.load */, 0x41, 1, 0x6a, 0x36, 0x02, 0x00, // hist[d]++
  ...get(3), 0x41, 2, 0x6a, ...set(3), // dist += 2
  ...get(0), 0x41, VECTOR_BYTES, 0x6a, 0x22, 0 /* local.tee vectors */, ...get(10), 0x49 /* i32.lt_u */, 0x0d, 0 /* br_if loop */,
  0x0b, // end loop
  0x0b, // end block
  0x0b, // end function
];
const MODULE = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]), // type: (i32 × 5) → ()
  ...section(3, [0x01, 0x00]), // one function of that type
  ...section(5, [0x01, 0x00, 0x01]), // one memory, one page to start
  ...section(7, [0x02, ...name('scan'), 0x00, 0x00, ...name('mem'), 0x02, 0x00]),
  ...section(10, [0x01, ...uleb(BODY.length), ...BODY]),
]);

// The little of the WebAssembly API used here (the project's TypeScript libs do not declare it).
interface WasmModule {
  readonly __module: unique symbol;
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule) => { exports: Record<string, unknown> };
}

let compiled: WasmModule | null | undefined;

/** The 256-bit scan, or null where WebAssembly cannot run it (the JS scan is used instead). */
export function scanKernel(): ScanKernel | null {
  if (compiled === undefined) {
    try {
      const api = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
      compiled = api ? new api.Module(MODULE) : null;
    } catch {
      compiled = null;
    }
  }
  if (!compiled) return null;
  try {
    return new ScanKernel(compiled);
  } catch {
    return null;
  }
}

export class ScanKernel {
  private readonly memory: WasmMemory;
  private readonly run: (vectors: number, query: number, n: number, dist: number, hist: number) => void;
  private capacity = 0;
  private vectorsAt = DIST_AT;
  /** The vectors, as 32-bit words and as bytes: views that `reserve` replaces. */
  words = new Uint32Array(0);
  bytes = new Uint8Array(0);

  constructor(module: WasmModule) {
    const instance = new (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly.Instance(module);
    this.memory = instance.exports.mem as WasmMemory;
    this.run = instance.exports.scan as ScanKernel['run'];
  }

  /** Room for `capacity` vectors, the first `keep` of them kept. */
  reserve(capacity: number, keep: number): void {
    if (capacity <= this.capacity) return;
    const vectorsAt = Math.ceil((DIST_AT + capacity * 2) / 64) * 64;
    const end = vectorsAt + capacity * VECTOR_BYTES;
    const have = this.memory.buffer.byteLength;
    if (end > have) this.memory.grow(Math.ceil((end - have) / PAGE));
    const all = new Uint8Array(this.memory.buffer);
    all.copyWithin(vectorsAt, this.vectorsAt, this.vectorsAt + keep * VECTOR_BYTES);
    this.vectorsAt = vectorsAt;
    this.capacity = capacity;
    this.bytes = new Uint8Array(this.memory.buffer, vectorsAt, capacity * VECTOR_BYTES);
    this.words = new Uint32Array(this.memory.buffer, vectorsAt, capacity * (VECTOR_BYTES / 4));
  }

  /** Distances of the first `n` vectors to `query` (8 words), and how many lie at each distance. */
  scan(query: Uint32Array, n: number): { dist: Uint16Array; hist: Uint32Array } {
    const buffer = this.memory.buffer;
    new Uint32Array(buffer, QUERY_AT, 8).set(query.subarray(0, 8));
    const hist = new Uint32Array(buffer, HIST_AT, 257);
    hist.fill(0);
    this.run(this.vectorsAt, QUERY_AT, Math.min(n, this.capacity), DIST_AT, HIST_AT);
    return { dist: new Uint16Array(buffer, DIST_AT, n), hist };
  }
}
