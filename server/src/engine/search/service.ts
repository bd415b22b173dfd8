// Hybrid search: every available stream over-retrieves, kind and path filters narrow each
// stream's list, weighted RRF fuses (weights by kind of query, ./weights.ts); then a name that
// exists goes first, or — for sentences and reports — the learned model ranks (./rerank.ts) and
// a traceback's frames lead, then the one entity spelling out a message the report quotes. Only
// what some stream puts in its first RANK_DEPTH is ranked; deeper hits follow in fused order,
// so a larger limit never changes the first answers. Test code is demoted unless asked for;
// files are ranked from their entities' scores. Streams come and go (a model finishes
// loading); the service asks for them per query. A search that is cancelled stops at the next
// stage (streams, candidates, graph boost) with RequestCancelled.
import picomatch from 'picomatch';
import type { EntityKind, SearchFileResult, SearchParams, SearchResponse, SearchResult } from '../../../../protocol';
import { ENTITY_KINDS, ErrorCodes, SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY_CHARS } from '../../../../protocol';
import { EngineError } from '../errors';
import { pauseForCancel, stopIfCancelled, type Cancellation } from '../graph/cooperative';
import type { Store } from '../store/store';
import type { EntityDbRow } from '../store/read-rows';
import { rankFiles } from './files';
import { blendWithPlain, reciprocalRankFusion, type Fused } from './fuse';
import { analyzeQuery, readablePart } from './query';
import { workspaceFile, type SignalStream } from './signals';
import { languageForPath } from '../languages/registry';

import type { SearchStream, StreamHit } from './types';
import { propagateScores } from './graph-boost';
import { RANK_DEPTH } from './features';
import { rerank } from './rerank';
import { RERANK_WEIGHTS } from './rerank-weights';
import { DECLARATION_DEMOTION, GRAPH_SHARE, profileOf, REPORT_BLEND, STREAM_WEIGHTS, TEST_DEMOTION } from './weights';

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

/** Identifiers whose words the reranker keeps between searches, at most (then it starts over). */
const MAX_IDENTIFIER_WORDS = 200_000;

export class SearchService {
  private readonly identifierWords = new Map<string, readonly string[]>();

  constructor(
    private readonly store: Store,
    private readonly streams: () => SearchStream[],
    /** Test code (ranks after the rest unless `includeTests`). */
    private readonly isTest: (path: string) => boolean,
    /** What a report points at surely enough to go first (its frames, a message only one entity spells out). */
    private readonly signals: Pick<SignalStream, 'leaders'>,
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
    const query = readablePart(params.query, SEARCH_MAX_QUERY_CHARS);
    const streams = this.streams();
    const filtered = !!(params.kinds?.length || params.paths?.length);
    // Filters leave hits out and test demotion moves them down: retrieve more than asked.
    const k = Math.max(limit * 3, RANK_DEPTH) * (filtered ? 5 : 1);
    const hits: Record<string, StreamHit[]> = {};
    await Promise.all(
      streams.map(async (s) => {
        try {
          if (!cancel?.isCancellationRequested) hits[s.name] = await s.search(query, k);
        } catch {
          hits[s.name] = []; // a failing stream must not take search down
        }
      }),
    );
    // The streams ran mostly synchronously (SQLite): a cancel sent meanwhile is read now.
    await pauseForCancel(cancel, 'search');
    const perStream = Object.fromEntries(Object.entries(hits).map(([name, h]) => [name, h.map((x) => x.eid)]));
    const signals = analyzeQuery(query);
    const profile = profileOf(signals);
    const kindOk = params.kinds?.length ? new Set<EntityKind>(params.kinds) : null;
    const pathOk = params.paths?.length ? pathFilter(params.paths) : null;
    const rows = this.store.entitiesByEid([...new Set(Object.values(perStream).flat())]);
    // Filters apply to each stream's list, before fusion: a rank is a rank among what may be
    // answered, as if the workspace held only that.
    const allowed = (h: StreamHit) => {
      const row = rows.get(h.eid);
      return !!row && (!kindOk || kindOk.has(row.kind as EntityKind)) && (!pathOk || (!!row.path && pathOk(row.path)));
    };
    const ranked = filtered ? Object.fromEntries(Object.entries(hits).map(([name, h]) => [name, h.filter(allowed)])) : hits;
    const lists = filtered ? Object.fromEntries(Object.entries(ranked).map(([name, h]) => [name, h.map((x) => x.eid)])) : perStream;
    const fused = reciprocalRankFusion(lists, undefined, STREAM_WEIGHTS[profile]);
    if (profile === 'identifier') leadWith(fused, lists.exact ?? [], (f) => f.eid);

    // The ranking is made over the entities some stream puts in its first RANK_DEPTH (what the
    // streams retrieve for the default limit); a larger limit only adds the deeper ones after
    // them, so asking for more never changes the first answers.
    const pool: Candidate[] = [];
    const deeper: Candidate[] = [];
    for (const f of fused) {
      const row = rows.get(f.eid);
      if (!row || !row.path) continue;
      const demote = !params.includeTests && this.isTest(row.path);
      const declaration = languageForPath(row.path)?.isDeclarationFile?.(row.path) ?? false;
      const factor = (demote ? TEST_DEMOTION : 1) * (declaration ? DECLARATION_DEMOTION : 1);
      const c = { id: row.id, row, fused: f, score: f.score, factor };
      (Object.values(f.ranks).some((r) => r <= RANK_DEPTH) ? pool : deeper).push(c);
    }
    stopIfCancelled(cancel, 'search');
    if (profile === 'identifier') {
      for (const c of pool) c.score *= c.factor;
      // Stable: equal scores keep the fused order.
      pool.sort((a, b) => b.score - a.score);
    } else {
      if (this.identifierWords.size > MAX_IDENTIFIER_WORDS) this.identifierWords.clear();
      rerank(pool, query, ranked, this.store, RERANK_WEIGHTS, options.explain, this.identifierWords);
      if (profile === 'report') blendWithPlain(pool, lists, REPORT_BLEND);
      propagateScores(pool, this.store, GRAPH_SHARE[profile]);
    }
    const candidates = [...pool, ...after(pool, deeper)];
    if (profile !== 'identifier') leadWith(candidates, this.signals.leaders(signals), (c) => c.row.eid, (c) => c.factor);
    const results = candidates.slice(0, limit).map((c) => toResult(c.row, c.score, c.fused.ranks));
    // Files the query names by path, within the path filter when there is one.
    const named = params.files ? signals.paths.map((p) => workspaceFile(this.store, p)).filter((f): f is string => f !== null && (!pathOk || pathOk(f))) : [];
    const files: SearchFileResult[] | undefined = params.files ? this.files(candidates, profile === 'identifier' ? [] : (ranked.lexical ?? []), named, limit) : undefined;
    return {
      results,
      streams: streams.map((s) => s.name),
      ...(files ? { files } : {}),
      ...(query !== params.query ? { queryCut: { length: params.query.length, read: SEARCH_MAX_QUERY_CHARS } } : {}),
      perStream,
      ...(options.explain ? { candidates: candidates.map((c) => ({ eid: c.row.eid, features: c.features ?? [] })) } : {}),
    };
  }

  /** The file ranking (./files.ts): the ranked candidates, and the lexical stream's order among them (filters and demotions kept). */
  private files(candidates: Candidate[], lexical: StreamHit[], named: string[], limit: number): SearchFileResult[] {
    const byEid = new Map(candidates.map((c) => [c.row.eid, c]));
    const words = lexical.flatMap((h) => {
      const c = byEid.get(h.eid);
      return c ? [{ id: c.id, file: c.row.path!, weight: c.factor }] : [];
    });
    return rankFiles(candidates.map((c) => ({ id: c.row.id, file: c.row.path!, score: c.score, weight: c.factor })), limit, words, [...new Set(named)]);
  }
}

/**
 * Puts the entities of `order` first, in that order, just above the best score, whatever the
 * ranking said; the rest keep theirs. Two rules use it: an identifier query's exact matches
 * (the exact stream's order), and a report's leaders (./signals.ts `leaders`: the functions
 * holding its traceback's lines, innermost first, the surest evidence a report holds; then the
 * one entity whose literals spell out a message it quotes). `factor` keeps a demoted leader
 * (a test) demoted.
 */
function leadWith<T extends { score: number }>(items: T[], order: readonly number[], eidOf: (t: T) => number, factor: (t: T) => number = () => 1): void {
  if (!order.length || !items.length) return;
  const top = items[0].score;
  const lead = new Map(order.map((eid, i) => [eid, i]));
  for (const t of items) {
    const i = lead.get(eidOf(t));
    if (i !== undefined) t.score = (top + (order.length - i) * 1e-4) * factor(t);
  }
  items.sort((a, b) => b.score - a.score);
}

/**
 * The candidates past the ranking's depth, scored below the last ranked one in their fused
 * order (times their demotion), best first.
 */
function after(ranked: readonly Candidate[], deeper: Candidate[]): Candidate[] {
  if (!deeper.length) return deeper;
  const floor = ranked.length ? Math.min(...ranked.map((c) => c.score)) : 1;
  const best = deeper[0].fused.score || 1;
  for (const c of deeper) c.score = floor * 0.5 * (c.fused.score / best) * c.factor;
  return deeper.sort((a, b) => b.score - a.score);
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
