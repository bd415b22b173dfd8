// Hybrid search: every available stream over-retrieves, RRF fuses, then kind and path filters
// apply. Streams come and go (a model finishes loading); the service asks for them per query.
import picomatch from 'picomatch';
import type { EntityKind, SearchParams, SearchResponse, SearchResult } from '../../../../protocol';
import { ErrorCodes } from '../../../../protocol';
import { EngineError } from '../errors';
import type { Store } from '../store/store';
import type { EntityDbRow } from '../store/rows';
import { reciprocalRankFusion } from './fuse';
import type { SearchStream } from './types';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 500;

export interface DetailedSearch extends SearchResponse {
  /** Each stream's own ranking (eids, best first), before fusion. */
  perStream: Record<string, number[]>;
}

export class SearchService {
  constructor(
    private readonly store: Store,
    private readonly streams: () => SearchStream[],
  ) {}

  streamNames(): string[] {
    return this.streams().map((s) => s.name);
  }

  async search(params: SearchParams): Promise<DetailedSearch> {
    if (!params || typeof params.query !== 'string') throw new EngineError(ErrorCodes.InvalidParams, 'search needs a `query` string');
    const limit = params.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new EngineError(ErrorCodes.InvalidParams, `limit must be an integer from 1 to ${MAX_LIMIT}, got ${JSON.stringify(params.limit)}`);
    }
    const streams = this.streams();
    const filtered = !!(params.kinds?.length || params.paths?.length);
    // Filters drop results after fusion: retrieve more when they are on.
    const k = Math.max(limit * 3, 20) * (filtered ? 5 : 1);
    const perStream: Record<string, number[]> = {};
    await Promise.all(
      streams.map(async (s) => {
        try {
          perStream[s.name] = await s.search(params.query, k);
        } catch {
          perStream[s.name] = []; // a failing stream must not take search down
        }
      }),
    );
    const fused = reciprocalRankFusion(perStream);
    const kindOk = params.kinds?.length ? new Set<EntityKind>(params.kinds) : null;
    const pathOk = params.paths?.length ? pathFilter(params.paths) : null;
    const results: SearchResult[] = [];
    for (const f of fused) {
      const row = this.store.entityByEid(f.eid);
      if (!row || !row.path) continue;
      if (kindOk && !kindOk.has(row.kind as EntityKind)) continue;
      if (pathOk && !pathOk(row.path)) continue;
      results.push(toResult(row, f.score, f.ranks));
      if (results.length >= limit) break;
    }
    return { results, streams: streams.map((s) => s.name), perStream };
  }
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
