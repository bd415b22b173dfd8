// Traversals of the causal graph (the "Trace" step). Breadth-first from a root, depth-bounded,
// cycle-safe; each direction is a choice of which edges to follow and which to report:
//   up      callers (incoming CALLS)
//   down    callees (outgoing CALLS)
//   state   what the root mutates and reads, through its callees, and who else mutates that state
//   errors  exceptions that can escape the root (raised in it or its callees, not caught on the
//           way); for an exception class, who raises it
//   config  configuration the root depends on, through its callees; for a config key, its readers
import type { Relation, TraceDirection, TraceEdge, TraceEntity, TraceResult } from '../../../../protocol';
import { ErrorCodes, TRACE_DEFAULT_DEPTH, TRACE_DIRECTIONS, TRACE_MAX_DEPTH } from '../../../../protocol';
import type { EdgeRow } from '../api';
import { EngineError } from '../errors';
import type { Store } from '../store/store';
import { toEdge } from '../store/read-rows';
import type { Graph } from './graph';
import { runNow, type Traversal } from './cooperative';

export interface TraceRequest {
  id: string;
  direction: TraceDirection;
  depth?: number;
  relations?: Relation[];
  maxTokens?: number;
  /** Paths to this entity instead of a traversal (see graph/paths.ts). */
  to?: string;
  k?: number;
  /** Follow dispatch edges, marked (default); false: only the calls the code names. */
  dispatch?: boolean;
}

type Step = {
  dir: 'out' | 'in';
  relations: Relation[];
  /** follow (expand) or only report */
  follow: boolean;
  /** `relations` given by the caller replace this step's (up/down follow any relation), instead of filtering it */
  open?: boolean;
};

const PLANS: Record<TraceDirection, Step[]> = {
  // `--relations INHERITS`: up = subclasses, down = bases; IMPORTS: up = importers, down = imports.
  up: [{ dir: 'in', relations: ['CALLS'], follow: true, open: true }],
  down: [{ dir: 'out', relations: ['CALLS'], follow: true, open: true }],
  state: [
    { dir: 'out', relations: ['CALLS'], follow: true },
    { dir: 'out', relations: ['MUTATES', 'READS_CONFIG'], follow: false },
  ],
  errors: [
    { dir: 'out', relations: ['CALLS'], follow: true },
    { dir: 'out', relations: ['PROPAGATES_ERROR'], follow: false },
  ],
  config: [
    { dir: 'out', relations: ['CALLS'], follow: true },
    { dir: 'out', relations: ['READS_CONFIG'], follow: false },
  ],
};

/** Plans for roots that are state, errors or config themselves: who touches them. */
const TARGET_PLANS: Partial<Record<TraceDirection, Step[]>> = {
  state: [{ dir: 'in', relations: ['MUTATES', 'READS_CONFIG'], follow: false }],
  errors: [{ dir: 'in', relations: ['PROPAGATES_ERROR'], follow: false }],
  config: [{ dir: 'in', relations: ['READS_CONFIG'], follow: false }],
};

export function validateTrace(req: TraceRequest): { depth: number } {
  if (!TRACE_DIRECTIONS.includes(req.direction)) {
    throw new EngineError(ErrorCodes.InvalidParams, `direction must be one of ${TRACE_DIRECTIONS.join(', ')}, got ${JSON.stringify(req.direction)}`);
  }
  const depth = req.depth ?? TRACE_DEFAULT_DEPTH;
  if (!Number.isInteger(depth) || depth < 1 || depth > TRACE_MAX_DEPTH) {
    throw new EngineError(ErrorCodes.InvalidParams, `depth must be an integer from 1 to ${TRACE_MAX_DEPTH}, got ${JSON.stringify(req.depth)}`);
  }
  return { depth };
}

export function trace(store: Store, graph: Graph, req: TraceRequest, rootKind: string): TraceResult {
  return runNow(traceTraversal(store, graph, req, rootKind));
}

/** The trace as a traversal that yields once per node it expands (see cooperative.ts). */
export function* traceTraversal(store: Store, graph: Graph, req: TraceRequest, rootKind: string): Traversal<TraceResult> {
  const { depth } = validateTrace(req);
  const isTarget = rootKind === 'attr' || rootKind === 'global' || rootKind === 'config' || rootKind === 'file' || (req.direction === 'errors' && rootKind === 'class');
  let plan = (isTarget && TARGET_PLANS[req.direction]) || PLANS[req.direction];
  if (req.relations?.length) {
    const keep = new Set(req.relations);
    plan = plan.map((s) => ({ ...s, relations: s.open ? [...keep] : s.relations.filter((r) => keep.has(r)) })).filter((s) => s.relations.length);
  }
  const adjacency: Record<string, TraceEdge[]> = {};
  const entities: Record<string, TraceEntity> = {};
  const describe = (id: string) => {
    if (entities[id]) return;
    const e = store.entity(id);
    if (e) entities[id] = { kind: e.kind as TraceEntity['kind'], signature: e.signature, file: e.path, line: e.sr === null ? null : e.sr + 1 };
  };
  describe(req.id);
  const seen = new Set([req.id]);
  const reported = new Map<string, TraceEdge>();
  const withDispatch = req.dispatch !== false;
  let frontier = [req.id];
  for (let level = 0; level < depth && frontier.length; level++) {
    const next: string[] = [];
    for (const node of frontier) {
      yield;
      const list = (adjacency[node] ??= []);
      for (const step of plan) {
        const rows = step.dir === 'out' ? store.outgoing(node) : store.incoming(node);
        for (const r of rows) {
          if (!step.relations.includes(r.relation)) continue;
          const e = toEdge(r);
          if (e.dispatch && !withDispatch) continue;
          const other = step.dir === 'out' ? e.target : e.source;
          const key = `${node}\0${other ?? e.targetName}\0${e.relation}`;
          const known = reported.get(key);
          if (known) {
            // One certain call to a target is enough to show it as certain.
            if (known.dispatch && !e.dispatch) delete known.dispatch;
            continue;
          }
          const edge = toTraceEdge(e, other, step.dir === 'in');
          reported.set(key, edge);
          list.push(edge);
          if (!other) continue;
          describe(other);
          if (step.follow && !seen.has(other)) {
            seen.add(other);
            next.push(other);
          }
        }
      }
    }
    frontier = next;
  }
  // Who else mutates the state the root's subgraph mutates (state direction only).
  if (req.direction === 'state' && !isTarget && (!req.relations || req.relations.includes('MUTATES'))) {
    const touched = new Set<string>();
    for (const edges of Object.values(adjacency)) for (const e of edges) if (e.relation === 'MUTATES' && e.resolved) touched.add(e.target);
    for (const t of touched) {
      yield;
      const list = (adjacency[t] ??= []);
      for (const r of store.incoming(t)) {
        if (r.relation !== 'MUTATES' || seen.has(r.source)) continue;
        const key = `${t}\0${r.source}\0MUTATES`;
        if (reported.has(key)) continue;
        const edge: TraceEdge = { target: r.source, relation: 'MUTATES', resolved: true, incoming: true, line: r.sr + 1 };
        reported.set(key, edge);
        list.push(edge);
        describe(r.source);
      }
    }
  }
  for (const k of Object.keys(adjacency)) if (!adjacency[k].length && k !== req.id) delete adjacency[k];
  const result: TraceResult = { root: req.id, direction: req.direction, depth, adjacency, entities };
  if (req.direction === 'errors' && !isTarget) result.escaping = escapingErrors(store, graph, req.id, depth, withDispatch);
  return result;
}

function toTraceEdge(e: EdgeRow, other: string | null, incoming: boolean): TraceEdge {
  const t: TraceEdge = { target: other ?? e.targetName, relation: e.relation, resolved: other !== null, line: e.span.start.row + 1 };
  if (incoming) t.incoming = true;
  if (e.ambiguous) t.ambiguous = true;
  if (e.dispatch) t.dispatch = true;
  if (e.relation === 'PROPAGATES_ERROR') t.caught = e.caught;
  return t;
}

/**
 * Exceptions that can escape `root`: raised in it and not caught there, or escaping a callee
 * through a call site whose enclosing `try` does not catch them. Depth-bounded like the trace.
 * The answer for a function depends on the depth left when it is reached, so results are
 * memoised per (function, depth left); the depth shrinks on every call, so recursion ends
 * without a cycle check and the answer does not depend on the order calls are visited in.
 */
export function escapingErrors(store: Store, graph: Graph, root: string, depth: number, dispatch = true): string[] {
  const memo = new Map<string, Set<string>>();
  const visit = (fn: string, left: number): Set<string> => {
    const key = `${left}\0${fn}`;
    const cached = memo.get(key);
    if (cached) return cached;
    const out = new Set<string>();
    for (const r of store.outgoing(fn)) {
      if (r.relation === 'PROPAGATES_ERROR') {
        if (!r.caught) out.add(r.edge_target ?? r.target);
      } else if (r.relation === 'CALLS' && r.edge_target && left > 0 && (r.dispatch !== 1 || dispatch)) {
        const catches: string[] = r.catches ? JSON.parse(r.catches) : [];
        for (const exc of visit(r.edge_target, left - 1)) {
          if (!catches.length || !catches.some((h) => graph.caughtBy(r.path, fn, h, exc))) out.add(exc);
        }
      }
    }
    memo.set(key, out);
    return out;
  };
  return [...visit(root, depth)].sort();
}
