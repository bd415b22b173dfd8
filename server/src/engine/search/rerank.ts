// The learned ranking of prose and report queries: a linear model over each candidate's features
// (./features.ts), trained as a softmax over the candidates of a query (the answer's share of
// exp(score)), so exp(score) is what a candidate is worth. Fusion by ranks alone threw away how
// close the vectors are and what the name says; this model weighs them with the streams' ranks.
// Identifier queries are not reranked: a name that exists goes first (service.ts).
import type { Store } from '../store/store';
import { featuresOf, FEATURES, rankingContext, type Feature } from './features';
import type { StreamHit } from './types';
import type { EntityDbRow } from '../store/read-rows';

export interface Rerankable {
  row: EntityDbRow;
  /** The fused (RRF) score; replaced by the model's worth, times `factor`. */
  score: number;
  /** What the candidate's worth is multiplied by afterwards (test code, declarations). */
  factor: number;
  features?: number[];
}

export type RerankWeights = Record<Feature, number>;

/**
 * Scores `items` by the model, in place, and sorts them best first (ties keep their order).
 * With `keepFeatures` each item also gets its feature vector (the fitter reads them).
 */
export function rerank<T extends Rerankable>(
  items: T[],
  query: string,
  perStream: Record<string, StreamHit[]>,
  store: Store,
  weights: RerankWeights,
  keepFeatures = false,
  identifierWords?: Map<string, readonly string[]>,
): void {
  if (!items.length) return;
  const rows = new Map(items.map((c) => [c.row.eid, c.row]));
  const ctx = rankingContext(query, perStream, Math.max(...items.map((c) => c.score)), identifierWords, (eid) => rows.get(eid)?.path, (eid) => rows.get(eid)?.parent);
  const facts = store.rankingFacts(items.map((c) => c.row.eid));
  const w = FEATURES.map((f) => weights[f] ?? 0);
  const linear = items.map((c) => {
    const f = facts.get(c.row.eid);
    const x = featuresOf({ row: c.row, fusedScore: c.score, body: '', callers: 0, ...f }, ctx);
    if (keepFeatures) c.features = x;
    let s = 0;
    for (let i = 0; i < x.length; i++) s += w[i] * x[i];
    return s;
  });
  const top = Math.max(...linear);
  items.forEach((c, i) => (c.score = Math.exp(linear[i] - top) * c.factor));
  const order = items.map((c, i) => ({ c, i })).sort((a, b) => b.c.score - a.c.score || a.i - b.i);
  order.forEach((o, i) => (items[i] = o.c));
}
