// "How does A reach B?": the k shortest simple paths from one entity to another over resolved
// edges of chosen relations. Distances to the target are computed first (backwards, over
// incoming edges), so the forward search only takes steps that can still arrive within the
// length being tried; lengths are tried shortest first, so paths come out shortest first, and in
// the graph's own edge order within a length (deterministic).
import type { PathHop, Relation, TracePath } from '../../../../protocol';
import type { Store } from '../store/store';

/** Upper bound on search steps, so a dense graph answers (with fewer paths) instead of hanging. */
const MAX_STEPS = 200_000;

interface Step {
  to: string;
  hop: PathHop;
}

export function shortestPaths(store: Store, from: string, to: string, relations: Relation[], maxLength: number, k: number): TracePath[] {
  const wanted = new Set(relations);
  const out = (node: string): Step[] => {
    const steps: Step[] = [];
    const seen = new Set<string>();
    for (const r of store.outgoing(node)) {
      if (!r.edge_target || !wanted.has(r.relation as Relation)) continue;
      const key = `${r.edge_target}\0${r.relation}`;
      if (seen.has(key)) continue; // one hop per target and relation: the first site
      seen.add(key);
      const hop: PathHop = { from: node, to: r.edge_target, relation: r.relation as Relation, line: r.sr + 1 };
      if (r.ambiguous) hop.ambiguous = true;
      steps.push({ to: r.edge_target, hop });
    }
    return steps;
  };
  // Distance of every node that reaches `to` within maxLength, walking edges backwards.
  const dist = new Map([[to, 0]]);
  let frontier = [to];
  for (let d = 1; d <= maxLength && frontier.length; d++) {
    const next: string[] = [];
    for (const n of frontier) {
      for (const r of store.incoming(n)) {
        if (!wanted.has(r.relation as Relation) || dist.has(r.source)) continue;
        dist.set(r.source, d);
        next.push(r.source);
      }
    }
    frontier = next;
  }
  const shortest = dist.get(from);
  if (shortest === undefined || from === to) return [];

  const paths: TracePath[] = [];
  const memo = new Map<string, Step[]>();
  const stepsOf = (n: string) => memo.get(n) ?? (memo.set(n, out(n)), memo.get(n)!);
  let budget = MAX_STEPS;
  const onPath = new Set([from]);
  const hops: PathHop[] = [];
  const walk = (node: string, left: number): void => {
    if (paths.length >= k || budget-- <= 0) return;
    if (left === 0) {
      if (node === to) paths.push({ hops: [...hops] });
      return;
    }
    for (const s of stepsOf(node)) {
      const d = dist.get(s.to);
      if (d === undefined || d > left - 1 || onPath.has(s.to)) continue;
      if (s.to === to && left - 1 > 0) continue; // a longer path must not pass through the target
      onPath.add(s.to);
      hops.push(s.hop);
      walk(s.to, left - 1);
      hops.pop();
      onPath.delete(s.to);
      if (paths.length >= k) return;
    }
  };
  for (let length = shortest; length <= maxLength && paths.length < k && budget > 0; length++) walk(from, length);
  return paths;
}

/** Fills each hop's `code` with its site's line, read through `lineOf` (buffer or disk). */
export function withCode(paths: TracePath[], fileOf: (id: string) => string | null, lineOf: (file: string, line: number) => string | undefined): TracePath[] {
  for (const p of paths) {
    for (const h of p.hops) {
      const file = fileOf(h.from);
      const text = file ? lineOf(file, h.line) : undefined;
      if (text !== undefined) h.code = text.trim();
    }
  }
  return paths;
}
