// Hybrid search: every available stream over-retrieves, weighted RRF fuses (weights by kind of
// query, ./weights.ts); kind and path filters apply; then a name that exists goes first, or —
// for sentences and reports — the learned model ranks (./rerank.ts) and a traceback's frames
// lead; test code is demoted unless asked for; files are ranked from their entities' scores. Streams come
// and go (a model finishes loading); the service asks for them per query. A search that is
// cancelled stops at the next stage (streams, candidates, graph boost) with RequestCancelled.
import picomatch from 'picomatch';
import type { EntityKind, SearchFileResult, SearchParams, SearchResponse, SearchResult } from '../../../../protocol';
import { ENTITY_KINDS, ErrorCodes, SEARCH_MAX_LIMIT } from '../../../../protocol';
import { EngineError } from '../errors';
import { pauseForCancel, stopIfCancelled, type Cancellation } from '../graph/cooperative';
import type { Store } from '../store/store';
import type { EntityDbRow } from '../store/read-rows';
import { rankFiles } from './files';
import { reciprocalRankFusion, type Fused } from './fuse';
import { analyzeQuery } from './query';
import { frameEntities } from './signals';
import { languageForPath } from '../languages/registry';

import type { SearchStream, StreamHit } from './types';
import { propagateScores } from './graph-boost';
import { RANK_DEPTH } from './features';
import { rerank } from './rerank';
import { RERANK_WEIGHTS } from './rerank-weights';
import { DECLARATION_DEMOTION, GRAPH_SHARE, profileOf, STREAM_WEIGHTS, TEST_DEMOTION } from './weights';

export const DEFAULT_LIMIT = 20;

export interface DetailedSearch extends SearchResponse {
  /** Each stream's own ranking (eids, best first), before fusion. */
  perStream: Record<string, number[]>;
  /** With `explain`: every candidate's ranking features (./features.ts), in ranked order. */
  candidates?: Array<{ eid: number; features: number[] }>;
}

export interface SearchOptions {
  /** Keep the candidates' ranking features in the answer (the reranker's fitter reads them). */
  explain?: boolean;
}

interface Candidate {
  id: string;
  row: EntityDbRow;
  fused: Fused;
  score: number;
  /** Test code and declaration files: what the worth is multiplied by. */
  factor: number;
  features?: number[];
}

export class SearchService {
  constructor(
    private readonly store: Store,
    private readonly streams: () => SearchStream[],
    /** Test code (ranks after the rest unless `includeTests`). */
    private readonly isTest: (path: string) => boolean,
  ) {}

  streamNames(): string[] {
    return this.streams().map((s) => s.name);
  }

  async search(params: SearchParams, cancel?: Cancellation, options: SearchOptions = {}): Promise<DetailedSearch> {
    if (!params || typeof params.query !== 'string') throw new EngineError(ErrorCodes.InvalidParams, 'search needs a `query` string');
    if (!params.query.trim()) throw new EngineError(ErrorCodes.InvalidParams, 'search needs a non-empty query');
    const limit = params.limit ?? DEFAULT_LIMIT;
    const unknownKinds = (params.kinds ?? []).filter((k) => !(ENTITY_KINDS as readonly string[]).includes(k));
    if (unknownKinds.length) throw new EngineError(ErrorCodes.InvalidParams, `unknown kind ${unknownKinds.join(', ')}; known: ${ENTITY_KINDS.join(', ')}`);
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_MAX_LIMIT) {
      throw new EngineError(ErrorCodes.InvalidParams, `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}, got ${JSON.stringify(params.limit)}`);
    }
    stopIfCancelled(cancel, 'search');
    const streams = this.streams();
    const filtered = !!(params.kinds?.length || params.paths?.length);
    // Filters and test demotion reorder after fusion: retrieve more than asked.
    const k = Math.max(limit * 3, RANK_DEPTH) * (filtered ? 5 : 1);
    const hits: Record<string, StreamHit[]> = {};
    await Promise.all(
      streams.map(async (s) => {
        try {
          if (!cancel?.isCancellationRequested) hits[s.name] = await s.search(params.query, k);
        } catch {
          hits[s.name] = []; // a failing stream must not take search down
        }
      }),
    );
    // The streams ran mostly synchronously (SQLite): a cancel sent meanwhile is read now.
    await pauseForCancel(cancel, 'search');
    const perStream = Object.fromEntries(Object.entries(hits).map(([name, h]) => [name, h.map((x) => x.eid)]));
    const signals = analyzeQuery(params.query);
    const profile = profileOf(signals);
    const fused = reciprocalRankFusion(perStream, undefined, STREAM_WEIGHTS[profile]);
    if (profile === 'identifier') exactFirst(fused, perStream.exact ?? []);

    const kindOk = params.kinds?.length ? new Set<EntityKind>(params.kinds) : null;
    const pathOk = params.paths?.length ? pathFilter(params.paths) : null;
    const candidates: Candidate[] = [];
    for (const f of fused) {
      const row = this.store.entityByEid(f.eid);
      if (!row || !row.path) continue;
      if (kindOk && !kindOk.has(row.kind as EntityKind)) continue;
      if (pathOk && !pathOk(row.path)) continue;
      const demote = !params.includeTests && this.isTest(row.path);
      const declaration = languageForPath(row.path)?.isDeclarationFile?.(row.path) ?? false;
      const factor = (demote ? TEST_DEMOTION : 1) * (declaration ? DECLARATION_DEMOTION : 1);
      candidates.push({ id: row.id, row, fused: f, score: f.score, factor });
    }
    stopIfCancelled(cancel, 'search');
    if (profile === 'identifier') {
      for (const c of candidates) c.score *= c.factor;
      // Stable: equal scores keep the fused order.
      candidates.sort((a, b) => b.score - a.score);
    } else {
      rerank(candidates, params.query, hits, this.store, RERANK_WEIGHTS, options.explain);
      propagateScores(candidates, this.store, GRAPH_SHARE[profile]);
      if (signals.frames.length) framesFirst(candidates, signals.frames.map((f) => frameEntities(this.store, f)?.holder?.eid));
    }
    const results = candidates.slice(0, limit).map((c) => toResult(c.row, c.score, c.fused.ranks));
    const files: SearchFileResult[] | undefined = params.files ? rankFiles(candidates.map((c) => ({ id: c.row.id, file: c.row.path!, score: c.score })), limit) : undefined;
    return {
      results,
      streams: streams.map((s) => s.name),
      ...(files ? { files } : {}),
      perStream,
      ...(options.explain ? { candidates: candidates.map((c) => ({ eid: c.row.eid, features: c.features ?? [] })) } : {}),
    };
  }
}

/** An identifier query's exact matches lead, in the exact stream's order, whatever fusion said. */
function exactFirst(fused: Fused[], exact: number[]): void {
  if (!exact.length) return;
  const top = fused[0]?.score ?? 0;
  const lead = new Map(exact.map((eid, i) => [eid, i]));
  for (const f of fused) {
    const i = lead.get(f.eid);
    // Just above the best fused score, in the exact stream's order.
    if (i !== undefined) f.score = top + (exact.length - i) * 1e-4;
  }
  fused.sort((a, b) => b.score - a.score);
}

/**
 * The functions holding a traceback's frames lead, innermost first (the code that raised, then
 * its callers), whatever the model said: a frame inside the workspace is the surest evidence a
 * report holds. Others keep their order after them; a demoted holder (a test) stays demoted.
 */
function framesFirst(candidates: Candidate[], holders: Array<number | undefined>): void {
  const order = [...new Set(holders.filter((e): e is number => e !== undefined))];
  if (!order.length || !candidates.length) return;
  const top = candidates[0].score;
  const lead = new Map(order.map((eid, i) => [eid, i]));
  for (const c of candidates) {
    const i = lead.get(c.row.eid);
    if (i !== undefined) c.score = (top + (order.length - i) * 1e-4) * c.factor;
  }
  candidates.sort((a, b) => b.score - a.score);
}

function pathFilter(paths: string[]): (p: string) => boolean {
  const tests = paths.map((p) => {
    if (/[*?[\]{}]/.test(p)) return picomatch(p, { dot: true });
    const prefix = p.replace(/\/+$/, '');
    return (f: string) => f === prefix || f.startsWith(prefix + '/');
  });
  return (f) => tests.some((t) => t(f));
}

export function toResult(row: EntityDbRow, score: number, ranks?: Record<string, number>): SearchResult {
  return {
    id: row.id,
    kind: row.kind as EntityKind,
    name: row.name,
    file: row.path ?? '',
    line: (row.sr ?? 0) + 1,
    endLine: (row.er ?? 0) + 1,
    signature: row.signature,
    score: Math.round(score * 1e6) / 1e6,
    ...(ranks ? { ranks } : {}),
  };
}
