// Truncated SVD of a sparse matrix by randomized range finding (Halko, Martinsson and Tropp
// 2011): multiply by a random Gaussian block, sharpen with a few power iterations, and solve the
// small problem exactly. Everything in plain typed arrays; the tall matrices are row-major.
import type { SparseMatrix } from './ppmi';
import { mulberry32 } from '../random';

export interface SvdResult {
  /** rows × rank, row-major, left singular vectors. */
  u: Float64Array;
  sigma: Float64Array;
  rank: number;
}

/** Deterministic PRNG (mulberry32) with Gaussian draws (Box–Muller). */
export function gaussian(seed: number): () => number {
  const uniform = mulberry32(seed);
  return () => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
}

/** Y = A·X, X is cols × l row-major, Y rows × l. */
function times(a: SparseMatrix, x: Float64Array, l: number): Float64Array {
  const y = new Float64Array(a.rows * l);
  for (let i = 0; i < a.rows; i++) {
    const yi = i * l;
    for (let p = a.rowStart[i]; p < a.rowStart[i + 1]; p++) {
      const v = a.val[p];
      const xc = a.col[p] * l;
      for (let j = 0; j < l; j++) y[yi + j] += v * x[xc + j];
    }
  }
  return y;
}

/** Z = Aᵀ·Y, Y is rows × l row-major, Z cols × l. */
function timesTransposed(a: SparseMatrix, y: Float64Array, l: number): Float64Array {
  const z = new Float64Array(a.cols * l);
  for (let i = 0; i < a.rows; i++) {
    const yi = i * l;
    for (let p = a.rowStart[i]; p < a.rowStart[i + 1]; p++) {
      const v = a.val[p];
      const zc = a.col[p] * l;
      for (let j = 0; j < l; j++) z[zc + j] += v * y[yi + j];
    }
  }
  return z;
}

/** Gram matrix YᵀY (l × l) of a row-major n × l matrix. */
function gram(y: Float64Array, n: number, l: number): Float64Array {
  const g = new Float64Array(l * l);
  for (let i = 0; i < n; i++) {
    const r = i * l;
    for (let a = 0; a < l; a++) {
      const ya = y[r + a];
      if (ya === 0) continue;
      const ga = a * l;
      for (let b = a; b < l; b++) g[ga + b] += ya * y[r + b];
    }
  }
  for (let a = 0; a < l; a++) for (let b = 0; b < a; b++) g[a * l + b] = g[b * l + a];
  return g;
}

/** Orthonormal columns spanning Y's, by Cholesky QR applied twice (stable enough here). */
function orthonormalize(y: Float64Array, n: number, l: number): Float64Array {
  let q = y;
  for (let pass = 0; pass < 2; pass++) {
    const g = gram(q, n, l);
    // Cholesky G = RᵀR (upper R), with a tiny ridge for columns that collapsed.
    const r = new Float64Array(l * l);
    let maxDiag = 0;
    for (let a = 0; a < l; a++) maxDiag = Math.max(maxDiag, g[a * l + a]);
    const ridge = maxDiag * 1e-12 + 1e-300;
    for (let j = 0; j < l; j++) {
      let d = g[j * l + j] + ridge;
      for (let k = 0; k < j; k++) d -= r[k * l + j] * r[k * l + j];
      const rjj = Math.sqrt(Math.max(d, ridge));
      r[j * l + j] = rjj;
      for (let i = j + 1; i < l; i++) {
        let s = g[j * l + i];
        for (let k = 0; k < j; k++) s -= r[k * l + j] * r[k * l + i];
        r[j * l + i] = s / rjj;
      }
    }
    // Q = Y R⁻¹: forward substitution on each row (row · R⁻¹).
    const out = new Float64Array(n * l);
    for (let i = 0; i < n; i++) {
      const o = i * l;
      for (let j = 0; j < l; j++) {
        let s = q[o + j];
        for (let k = 0; k < j; k++) s -= out[o + k] * r[k * l + j];
        out[o + j] = s / r[j * l + j];
      }
    }
    q = out;
  }
  return q;
}

/** Eigen-decomposition of a symmetric l × l matrix by cyclic Jacobi rotations. */
export function symmetricEigen(m: Float64Array, l: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(m);
  const v = new Float64Array(l * l);
  for (let i = 0; i < l; i++) v[i * l + i] = 1;
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < l; p++) for (let q = p + 1; q < l; q++) off += a[p * l + q] ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < l; p++) {
      for (let q = p + 1; q < l; q++) {
        const apq = a[p * l + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * l + q] - a[p * l + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < l; k++) {
          const akp = a[k * l + p];
          const akq = a[k * l + q];
          a[k * l + p] = c * akp - s * akq;
          a[k * l + q] = s * akp + c * akq;
        }
        for (let k = 0; k < l; k++) {
          const apk = a[p * l + k];
          const aqk = a[q * l + k];
          a[p * l + k] = c * apk - s * aqk;
          a[q * l + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < l; k++) {
          const vkp = v[k * l + p];
          const vkq = v[k * l + q];
          v[k * l + p] = c * vkp - s * vkq;
          v[k * l + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const values = new Float64Array(l);
  for (let i = 0; i < l; i++) values[i] = a[i * l + i];
  return { values, vectors: v };
}

export function randomizedSvd(a: SparseMatrix, rank: number, opts: { oversample?: number; powerIterations?: number; seed?: number } = {}): SvdResult {
  const l = Math.min(rank + (opts.oversample ?? 16), a.cols, a.rows);
  const k = Math.min(rank, l);
  const next = gaussian(opts.seed ?? 1);
  const omega = new Float64Array(a.cols * l);
  for (let i = 0; i < omega.length; i++) omega[i] = next();
  let q = orthonormalize(times(a, omega, l), a.rows, l);
  for (let it = 0; it < (opts.powerIterations ?? 2); it++) {
    const z = orthonormalize(timesTransposed(a, q, l), a.cols, l);
    q = orthonormalize(times(a, z, l), a.rows, l);
  }
  // B = QᵀA (l × cols); BBᵀ = (AᵀQ)ᵀ(AᵀQ) = gram(AᵀQ). Its eigenvectors rotate Q into U.
  const bt = timesTransposed(a, q, l);
  const { values, vectors } = symmetricEigen(gram(bt, a.cols, l), l);
  const order = [...values.keys()].sort((x, y) => values[y] - values[x]).slice(0, k);
  const sigma = Float64Array.from(order.map((i) => Math.sqrt(Math.max(0, values[i]))));
  const u = new Float64Array(a.rows * k);
  for (let i = 0; i < a.rows; i++) {
    for (let j = 0; j < k; j++) {
      const e = order[j];
      let s = 0;
      for (let m = 0; m < l; m++) s += q[i * l + m] * vectors[m * l + e];
      u[i * k + j] = s;
    }
  }
  return { u, sigma, rank: k };
}
