// A trace cut to a token budget by usefulness: resolved edges before unresolved names (builtins
// and libraries, which the text view folds into one line anyway), and nearer hops before farther
// ones. An edge is kept only while the one that reached its
// source is kept, so what remains is still a connected trace from the root.
import type { TraceEdge, TraceResult } from '../../../../protocol';
import { finish, tokensOf, truncation, TRUNCATION_RESERVE } from './measure';

interface Item {
  node: string;
  edge: TraceEdge;
  hop: number;
}

/** Hop of every node reachable from the root over resolved edges (root = 0). */
function hops(t: TraceResult): Map<string, number> {
  const hop = new Map([[t.root, 0]]);
  let frontier = [t.root];
  for (let h = 1; frontier.length; h++) {
    const next: string[] = [];
    for (const n of frontier) {
      for (const e of t.adjacency[n] ?? []) {
        if (!e.resolved || hop.has(e.target)) continue;
        hop.set(e.target, h);
        next.push(e.target);
      }
    }
    frontier = next;
  }
  return hop;
}

export function fitTrace(t: TraceResult, maxTokens: number): TraceResult {
  if (tokensOf(t) <= maxTokens) return t;
  if (t.paths) return fitPaths(t, maxTokens);
  const hop = hops(t);
  const items: Item[] = [];
  for (const [node, edges] of Object.entries(t.adjacency)) {
    for (const edge of edges) items.push({ node, edge, hop: (hop.get(node) ?? Infinity) + 1 });
  }
  // Resolved first, then by hop; the sort is stable, so ties keep the trace's own order.
  items.sort((a, b) => Number(b.edge.resolved) - Number(a.edge.resolved) || a.hop - b.hop);

  const out: TraceResult = { root: t.root, direction: t.direction, depth: t.depth, adjacency: {}, entities: {} };
  if (t.entities[t.root]) out.entities[t.root] = t.entities[t.root];
  if (t.escaping) out.escaping = t.escaping;
  let left = maxTokens - tokensOf(out) - TRUNCATION_RESERVE;
  const reached = new Set([t.root]);
  const kept = new Set<Item>();
  const hasKey = new Set<string>([t.root]);
  let full = false;
  for (const it of items) {
    if (full || !reached.has(it.node)) continue;
    const described = it.edge.resolved && !out.entities[it.edge.target] && t.entities[it.edge.target];
    const cost = tokensOf(it.edge) + (hasKey.has(it.node) ? 0 : tokensOf(it.node) + 2) + (described ? tokensOf(it.edge.target) + tokensOf(described) : 0);
    if (cost > left) {
      full = true; // in order of usefulness: nothing less useful may take the place of what did not fit
      continue;
    }
    left -= cost;
    kept.add(it);
    hasKey.add(it.node);
    if (described) out.entities[it.edge.target] = described;
    if (it.edge.resolved) reached.add(it.edge.target);
  }
  // The parts' costs are estimates of the whole: drop the last kept (a leaf, as children come
  // after the edge that reached them) until the assembled answer fits.
  const order = [...kept];
  const assemble = () => {
    const keptEdges = new Set(order.map((it) => it.edge));
    out.adjacency = {};
    for (const [node, list] of Object.entries(t.adjacency)) {
      const k = list.filter((e) => keptEdges.has(e));
      if (k.length || node === t.root) out.adjacency[node] = k;
    }
    const named = new Set([t.root, ...order.flatMap((it) => (it.edge.resolved ? [it.edge.target] : []))]);
    out.entities = Object.fromEntries(Object.entries(t.entities).filter(([id]) => named.has(id)));
  };
  const describeDropped = () => {
    const dropped = items.filter((it) => !kept.has(it));
    const unresolved = dropped.filter((it) => !it.edge.resolved).length;
    const firstHop = Math.min(...dropped.filter((it) => it.edge.resolved).map((it) => it.hop));
    const counts: Record<string, number> = { edges: dropped.length };
    if (unresolved) counts['unresolved edges'] = unresolved;
    const what = [Number.isFinite(firstHop) ? `resolved edges from hop ${firstHop} on` : '', unresolved ? `${unresolved} unresolved names` : ''].filter(Boolean).join(', ');
    out.truncated = truncation(
      maxTokens,
      counts,
      `dropped ${dropped.length} of ${items.length} edges (${what}) to fit ${maxTokens} tokens; raise the budget or lower the depth to see them`,
    );
    finish(out);
  };
  assemble();
  describeDropped();
  while (order.length && out.truncated!.tokens > maxTokens) {
    kept.delete(order.pop()!);
    assemble();
    describeDropped();
  }
  return out;
}

/** Paths are shortest first: the longest go first, each whole (half a path answers nothing). */
function fitPaths(t: TraceResult, maxTokens: number): TraceResult {
  const all = t.paths!;
  let n = all.length;
  let out: TraceResult = t;
  do {
    n--;
    const kept = all.slice(0, Math.max(n, 0));
    const named = new Set([t.root, t.to!, ...kept.flatMap((p) => p.hops.map((h) => h.to))]);
    const dropped = all.length - kept.length;
    out = finish({
      ...t,
      entities: Object.fromEntries(Object.entries(t.entities).filter(([id]) => named.has(id))),
      paths: kept,
      truncated: truncation(maxTokens, { paths: dropped }, `dropped the ${dropped} longest of ${all.length} paths to fit ${maxTokens} tokens`),
    });
  } while (n > 0 && out.truncated!.tokens > maxTokens);
  return out;
}
