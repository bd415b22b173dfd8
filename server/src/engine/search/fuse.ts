// Weighted Reciprocal Rank Fusion: score(d) = Σ over streams of w_s / (k + rank of d in s).
// Weights come from the query's profile (./weights.ts); a missing weight counts 1, so plain
// RRF is the case where every weight is 1.
export const RRF_K = 60;

export interface Fused {
  eid: number;
  score: number;
  /** 1-based rank of the entity in each stream that returned it. */
  ranks: Record<string, number>;
}

export function reciprocalRankFusion(lists: Record<string, number[]>, k = RRF_K, weights: Record<string, number> = {}): Fused[] {
  const byEid = new Map<number, Fused>();
  for (const [stream, eids] of Object.entries(lists)) {
    const w = weights[stream] ?? 1;
    eids.forEach((eid, i) => {
      let f = byEid.get(eid);
      if (!f) byEid.set(eid, (f = { eid, score: 0, ranks: {} }));
      f.score += w / (k + i + 1);
      f.ranks[stream] = i + 1;
    });
  }
  // Ties (an entity at rank r in one stream vs another at rank r in another) keep the order of
  // the best single rank, then the eid, so results are deterministic.
  return [...byEid.values()].sort((a, b) => b.score - a.score || Math.min(...Object.values(a.ranks)) - Math.min(...Object.values(b.ranks)) || a.eid - b.eid);
}
