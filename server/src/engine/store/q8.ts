// The vectors kept for re-scoring, one signed byte per dimension. With the bits on, a search
// takes its candidates by Hamming distance and ranks them by cosine against these rows; only
// the direction of a vector matters there, so a row is the vector scaled to ±127 at its largest
// component and rounded, with no scale kept. A quarter of the float32 row (256 bytes for the
// static table's 256 dimensions, ~1 KB before): the stdlib's 74K rows are ~25 MB instead of ~100.
// The cosine differs from the float one by the rounding, well under 0.01 (test/semantic-vectors).

/** `v` as a re-scoring row: each component × 127 / the largest magnitude, rounded. */
export function toQ8(v: Float32Array): Buffer {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]));
  const out = Buffer.alloc(v.length);
  if (max === 0 || !Number.isFinite(max)) return out;
  const k = 127 / max;
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i] * k) & 0xff;
  return out;
}

/** A re-scoring row as floats (its direction; length about 127 · √dims / spread). */
export function fromQ8(row: Uint8Array): Float32Array {
  const q = new Int8Array(row.buffer, row.byteOffset, row.length);
  return Float32Array.from(q);
}

/** The Euclidean length of `v`. */
export function norm(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return Math.sqrt(s);
}

/**
 * Cosine distance (1 − cosine, as sqlite-vec's `vec_distance_cosine`) from `query` (of length
 * `queryNorm`) to a row: a re-scoring row (one byte per dimension) or, from an index made before
 * them, a float32 row (four). 1 when either side has no direction.
 */
export function rowDistance(query: Float32Array, queryNorm: number, row: Uint8Array): number {
  const dims = query.length;
  let dot = 0;
  let len = 0;
  if (row.length === dims) {
    const q = new Int8Array(row.buffer, row.byteOffset, dims);
    for (let i = 0; i < dims; i++) {
      dot += query[i] * q[i];
      len += q[i] * q[i];
    }
  } else if (row.length === dims * 4) {
    const view = new DataView(row.buffer, row.byteOffset, row.length);
    for (let i = 0; i < dims; i++) {
      const x = view.getFloat32(i * 4, true);
      dot += query[i] * x;
      len += x * x;
    }
  } else {
    throw new Error(`vector row of ${row.length} bytes does not fit ${dims} dimensions`);
  }
  if (len === 0 || queryNorm === 0) return 1;
  return 1 - dot / (queryNorm * Math.sqrt(len));
}
