// The graph as a ranking signal: one step of personalised PageRank restricted to the top hits.
// Each of the top entities passes a share of its score to the top entities it is linked to by
// CALLS, INHERITS or IMPORTS (either direction): a hit whose callers or callees also match is
// more likely the answer than an isolated one. Measured by `npm run eval -- retrieval`; off
// when the share is 0 (see weights.ts for the figure it is set from).
import type { Store } from '../store/store';

export interface Boostable {
  id: string;
  score: number;
}

/** Adds `share` × (sum of linked neighbours' scores) to each of the first `top` items, in place. */
export function propagateScores<T extends Boostable>(items: T[], store: Store, share: number, top = 30): void {
  if (!(share > 0) || items.length < 2) return;
  const head = items.slice(0, top);
  const score = new Map(head.map((c) => [c.id, c.score]));
  // One query for the links among the head, not every edge of each (a module's incoming
  // imports, a class called everywhere: thousands of rows for a report's hub-like hits).
  const linked = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    const l = linked.get(a);
    if (l) l.add(b);
    else linked.set(a, new Set([b]));
  };
  for (const [a, b] of store.linksAmong([...score.keys()])) if (a !== b) link(a, b), link(b, a);
  for (const c of head) {
    // Summed in id order: the same neighbours always give the same score.
    const ns = [...(linked.get(c.id) ?? [])].sort();
    for (const n of ns) c.score += share * score.get(n)!;
  }
  items.sort((a, b) => b.score - a.score);
}
