// Order statistics the benches report: the p-th percentile of sorted samples, and a median.

/** The p-th percentile (0–100) of samples sorted ascending: the sample at that rank. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The median of samples in any order (NaN for none). */
export function median(xs: readonly number[]): number {
  return xs.length ? percentile([...xs].sort((a, b) => a - b), 50) : NaN;
}
