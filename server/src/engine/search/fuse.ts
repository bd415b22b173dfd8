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

/**
 * Fuses the learned order of `items` (sorted best first) with the plain RRF of the word and
 * meaning streams (every stream but exact names and report signals), by rank: score =
 * 1 / (k + learned rank) + plain / (k + plain rank), times the item's demotion `factor`. In
 * place, sorted; equal scores keep the learned order. (weights.ts REPORT_BLEND says why.)
 */
export function blendWithPlain<T extends { row: { eid: number }; score: number; factor: number }>(
  items: T[],
  perStream: Record<string, number[]>,
  { k, plain }: { k: number; plain: number },
): void {
  const streams = Object.fromEntries(Object.entries(perStream).filter(([name]) => name !== 'exact' && name !== 'signals'));
  const plainRank = new Map(reciprocalRankFusion(streams).map((f, i) => [f.eid, i + 1]));
  items.forEach((c, i) => {
    const r = plainRank.get(c.row.eid);
    c.score = (1 / (k + i + 1) + (r ? plain / (k + r) : 0)) * c.factor;
  });
  items.sort((a, b) => b.score - a.score); // stable: equal scores keep the learned order
}
