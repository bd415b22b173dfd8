// "How does A reach B?": the k shortest simple paths from one entity to another over resolved
// edges of chosen relations. Distances to the target are computed first (backwards, over
// incoming edges), so the forward search only takes steps that can still arrive within the
// length being tried; lengths are tried shortest first, so paths come out shortest first, and in
// the graph's own edge order within a length (deterministic).
import type { EntityKind, PathHop, Relation, TracePath, TraceResult } from '../../../../protocol';
import { ErrorCodes, TRACE_DEFAULT_PATHS, TRACE_MAX_DEPTH, TRACE_MAX_PATHS } from '../../../../protocol';
import type { Store } from '../store/store';
import { EngineError } from '../errors';
import type { TraceRequest } from './trace';
import { runNow, type Traversal } from './cooperative';

/** Upper bound on search steps, so a dense graph answers (with fewer paths) instead of hanging. */
const MAX_STEPS = 200_000;

/** Params of a paths query: depth bounds the length (default the maximum), k the count. */
export function validatePaths(req: TraceRequest): { depth: number; k: number; relations: Relation[] } {
  if (typeof req.to !== 'string' || !req.to) throw new EngineError(ErrorCodes.InvalidParams, 'to must be an entity id');
  const depth = req.depth ?? TRACE_MAX_DEPTH;
  if (!Number.isInteger(depth) || depth < 1 || depth > TRACE_MAX_DEPTH) {
    throw new EngineError(ErrorCodes.InvalidParams, `depth must be an integer from 1 to ${TRACE_MAX_DEPTH}, got ${JSON.stringify(req.depth)}`);
  }
  const k = req.k ?? TRACE_DEFAULT_PATHS;
  if (!Number.isInteger(k) || k < 1 || k > TRACE_MAX_PATHS) {
    throw new EngineError(ErrorCodes.InvalidParams, `k must be an integer from 1 to ${TRACE_MAX_PATHS}, got ${JSON.stringify(req.k)}`);
  }
  return { depth, k, relations: req.relations?.length ? req.relations : ['CALLS'] };
}

interface Step {
  to: string;
  hop: PathHop;
}

export function shortestPaths(store: Store, from: string, to: string, relations: Relation[], maxLength: number, k: number, dispatch = true): TracePath[] {
  return runNow(shortestPathsTraversal(store, from, to, relations, maxLength, k, dispatch));
}

/** shortestPaths as a traversal that yields once per node it visits (see cooperative.ts). */
export function* shortestPathsTraversal(store: Store, from: string, to: string, relations: Relation[], maxLength: number, k: number, dispatch = true): Traversal<TracePath[]> {
  const wanted = new Set(relations);
  const out = (node: string): Step[] => {
    const steps: Step[] = [];
    const seen = new Map<string, Step>();
    for (const r of store.outgoing(node)) {
      if (!r.edge_target || !wanted.has(r.relation) || (r.dispatch === 1 && !dispatch)) continue;
      const key = `${r.edge_target}\0${r.relation}`;
      const known = seen.get(key);
      // One hop per target and relation: the first site, a certain call before a dispatch one.
      if (known && !(known.hop.dispatch && r.dispatch !== 1)) continue;
      const hop: PathHop = { from: node, to: r.edge_target, relation: r.relation, line: r.sr + 1 };
      if (r.ambiguous) hop.ambiguous = true;
      if (r.dispatch === 1) hop.dispatch = true;
      if (known) known.hop = hop;
      else {
        const step = { to: r.edge_target, hop };
        seen.set(key, step);
        steps.push(step);
      }
    }
    return steps;
  };
  // Distance of every node that reaches `to` within maxLength, walking edges backwards.
  const dist = new Map([[to, 0]]);
  let frontier = [to];
  for (let d = 1; d <= maxLength && frontier.length; d++) {
    const next: string[] = [];
    for (const n of frontier) {
      yield;
      for (const r of store.incoming(n)) {
        if (!wanted.has(r.relation) || dist.has(r.source) || (r.dispatch === 1 && !dispatch)) continue;
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
  const walk = function* (node: string, left: number): Traversal<void> {
    if (paths.length >= k || budget-- <= 0) return;
    yield;
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
      yield* walk(s.to, left - 1);
      hops.pop();
      onPath.delete(s.to);
      if (paths.length >= k) return;
    }
  };
  for (let length = shortest; length <= maxLength && paths.length < k && budget > 0; length++) yield* walk(from, length);
  return paths;
}

/**
 * `trace FROM --to TO` as a trace answer: the paths, each hop with its site's line of code
 * (read through `textOf`: open buffer or disk), and the entities they pass through. The
 * adjacency is left empty: the paths are the answer.
 */
export function pathTrace(store: Store, req: TraceRequest & { to: string }, textOf: (file: string) => string | null): TraceResult {
  return runNow(pathTraversal(store, req, textOf));
}

export function* pathTraversal(store: Store, req: TraceRequest & { to: string }, textOf: (file: string) => string | null): Traversal<TraceResult> {
  const { depth, k, relations } = validatePaths(req);
  const found = yield* shortestPathsTraversal(store, req.id, req.to, relations, depth, k, req.dispatch !== false);
  const lines = new Map<string, string[]>();
  const lineOf = (file: string, line: number) => {
    if (!lines.has(file)) lines.set(file, textOf(file)?.split(/\r\n|\r|\n/) ?? []);
    return lines.get(file)![line - 1];
  };
  for (const p of found) {
    for (const h of p.hops) {
      const file = store.entity(h.from)?.path;
      const text = file ? lineOf(file, h.line) : undefined;
      if (text !== undefined) h.code = text.trim();
    }
  }
  const entities: TraceResult['entities'] = {};
  for (const id of [req.id, req.to, ...found.flatMap((p) => p.hops.map((h) => h.to))]) {
    const e = store.entity(id);
    if (e && !entities[id]) entities[id] = { kind: e.kind as EntityKind, signature: e.signature, file: e.path, line: e.sr === null ? null : e.sr + 1 };
  }
  return { root: req.id, direction: req.direction, depth, adjacency: {}, entities, to: req.to, paths: found };
}
