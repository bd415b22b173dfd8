// The graph as a ranking signal: one step of personalised PageRank restricted to the top hits.
// Each of the top entities passes a share of its score to the top entities it is linked to by
// CALLS, INHERITS or IMPORTS (either direction): a hit whose callers or callees also match is
// more likely the answer than an isolated one. Measured by `npm run eval -- retrieval`; off
// when the share is 0 (see weights.ts for the figure it is set from).
import type { Store } from '../store/store';

const RELATIONS = new Set(['CALLS', 'INHERITS', 'IMPORTS']);

export interface Boostable {
  id: string;
  score: number;
}

/** Adds `share` × (sum of linked neighbours' scores) to each of the first `top` items, in place. */
export function propagateScores<T extends Boostable>(items: T[], store: Store, share: number, top = 30): void {
  if (!(share > 0) || items.length < 2) return;
  const head = items.slice(0, top);
  const score = new Map(head.map((c) => [c.id, c.score]));
  const bonus = new Map<string, number>();
  for (const c of head) {
    const linked = new Set<string>();
    for (const e of store.outgoing(c.id)) if (RELATIONS.has(e.relation) && e.edge_target && e.edge_target !== c.id && score.has(e.edge_target)) linked.add(e.edge_target);
    for (const e of store.incoming(c.id)) if (RELATIONS.has(e.relation) && e.source !== c.id && score.has(e.source)) linked.add(e.source);
    for (const n of linked) bonus.set(c.id, (bonus.get(c.id) ?? 0) + share * score.get(n)!);
  }
  for (const c of head) c.score += bonus.get(c.id) ?? 0;
  items.sort((a, b) => b.score - a.score);
}
