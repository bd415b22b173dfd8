// The nsccn/* requests: the zoom-in workflow (search → skeleton → trace → window) plus status,
// with the names and shapes of protocol/index.ts. Params are validated here, field by field;
// an entity can be named by id or by a cursor (uri + position).
import {
  RELATIONS,
  TRACE_DIRECTIONS,
  TRACE_MAX_DEPTH,
  type EmbeddingStatus,
  type SearchParams,
  type SearchFileResult,
  type SearchResponse,
  type SearchResult,
  type SkeletonResponse,
  type StatusResponse,
  type TraceResult,
  type WindowResponse,
} from '../../../protocol';
import { ENTITY_KINDS, ErrorCodes } from '../../../protocol';
import { EngineError } from '../engine/errors';
import { pathToUri } from './convert';
import { entityAtCursor } from './cursor';
import { invalidParams } from './errors';
import * as P from './params';
import type { Workspace, Workspaces } from './workspaces';

/** Every entity kind (protocol's EntityKind union as a value, for validating `kinds`). */
export const SEARCH_MAX_LIMIT = 1000;
export const WINDOW_MAX_CONTEXT = 1000;

/** A search result with the URI of its file (`file` alone is ambiguous across folders). */
export type SearchResultWithUri = SearchResult & { uri: string };

export async function search(workspaces: Workspaces, method: string, raw: unknown): Promise<SearchResponse> {
  const o = P.object(method, raw);
  if (typeof o.query !== 'string' || !o.query.trim()) throw invalidParams(method, "'query' must be a non-empty string");
  const params: SearchParams = { query: o.query };
  const limit = P.optionalInt(method, o, 'limit', 1, SEARCH_MAX_LIMIT);
  if (limit !== undefined) params.limit = limit;
  const kinds = P.optionalStrings(method, o, 'kinds', ENTITY_KINDS);
  if (kinds) params.kinds = kinds;
  const paths = P.optionalStrings(method, o, 'paths');
  if (paths) params.paths = paths;
  const includeTests = P.optionalBool(method, o, 'includeTests');
  if (includeTests !== undefined) params.includeTests = includeTests;
  const files = P.optionalBool(method, o, 'files');
  if (files !== undefined) params.files = files;

  const answers = await Promise.all(workspaces.list().map(async (ws) => ({ ws, res: await ws.engine.search(params) })));
  const streams = new Set<string>();
  const results: SearchResultWithUri[] = [];
  for (const { ws, res } of answers) {
    res.streams.forEach((s) => streams.add(s));
    for (const r of res.results) results.push({ ...r, uri: pathToUri(ws.engine.absolutePath(r.file)) });
  }
  if (answers.length > 1) results.sort((a, b) => b.score - a.score);
  // With one folder the engine's own limit applies; merged answers keep the largest one asked.
  const cap = limit ?? Math.max(0, ...answers.map((a) => a.res.results.length));
  const fileRanking = files ? mergeFiles(answers.map((a) => (a.res.files ?? []).map((f) => ({ ...f, uri: pathToUri(a.ws.engine.absolutePath(f.file)) }))), cap) : undefined;
  return { results: results.slice(0, cap), streams: [...streams], ...(fileRanking ? { files: fileRanking } : {}) };
}

/** Several folders' file rankings as one, by score (each file with its URI: paths alone are ambiguous across folders). */
function mergeFiles(lists: SearchFileResult[][], cap: number): SearchFileResult[] {
  const all = lists.flat();
  if (lists.length > 1) all.sort((a, b) => b.score - a.score);
  return all.slice(0, cap);
}

export function skeleton(workspaces: Workspaces, method: string, raw: unknown): SkeletonResponse {
  const uri = P.string(method, P.object(method, raw), 'uri');
  const { ws, path } = workspaces.route(uri);
  return { ...ws.engine.skeleton(path), uri };
}

export function trace(workspaces: Workspaces, method: string, raw: unknown): TraceResult {
  const o = P.object(method, raw);
  const direction = P.oneOf(method, o, 'direction', TRACE_DIRECTIONS);
  const depth = P.optionalInt(method, o, 'depth', 1, TRACE_MAX_DEPTH);
  const relations = P.optionalStrings(method, o, 'relations', RELATIONS);
  const { ws, id } = target(workspaces, method, o);
  return ws.engine.trace({ id, direction, ...(depth !== undefined ? { depth } : {}), ...(relations ? { relations } : {}) });
}

export function window(workspaces: Workspaces, method: string, raw: unknown): WindowResponse {
  const o = P.object(method, raw);
  const contextLines = P.optionalInt(method, o, 'contextLines', 0, WINDOW_MAX_CONTEXT);
  const { ws, id } = target(workspaces, method, o);
  const w = ws.engine.window(id, contextLines);
  return { ...w, uri: pathToUri(ws.engine.absolutePath(w.file)) };
}

/** Status of every folder summed; `indexing` while any folder is. */
export function status(workspaces: Workspaces, indexing: boolean): StatusResponse {
  const all = workspaces.list();
  const parts = all.map((ws) => ({ ws, s: ws.engine.status() }));
  const busy = indexing || parts.some(({ ws, s }) => s.state === 'indexing' || ws.pendingIndex || ws.engine.isIndexing());
  const streams = new Set<string>();
  const notes: string[] = [];
  for (const { ws, s } of parts) {
    s.streams.forEach((x) => streams.add(x));
    notes.push(...(all.length > 1 ? s.notes.map((n) => `[${ws.name}] ${n}`) : s.notes));
  }
  const vectors = parts.flatMap((p) => (p.s.embeddings ? [p.s.embeddings] : []));
  const embeddings: EmbeddingStatus | null = vectors.length
    ? { ...vectors[0], done: sum(vectors.map((v) => v.done)), total: sum(vectors.map((v) => v.total)) }
    : null;
  if (all.length === 0) notes.push('no workspace folder is open');
  return {
    state: busy ? 'indexing' : 'ready',
    files: sum(parts.map((p) => p.s.files)),
    entities: sum(parts.map((p) => p.s.entities)),
    edges: sum(parts.map((p) => p.s.edges)),
    embeddings,
    streams: [...streams],
    notes,
  };
}

/** The entity a request names: `id`, or `uri` + `position` (the name or entity at the cursor). */
function target(workspaces: Workspaces, method: string, o: P.Obj): { ws: Workspace; id: string } {
  if (o.id !== undefined && o.id !== null) {
    const id = P.string(method, o, 'id');
    return { ws: workspaces.owner(id).ws, id };
  }
  if (o.uri === undefined || o.uri === null) throw invalidParams(method, "give either 'id' or 'uri' and 'position'");
  const uri = P.string(method, o, 'uri');
  if (o.position === undefined) throw invalidParams(method, "'position' is required with 'uri'");
  const pos = P.position(method, o.position);
  const { ws, path } = workspaces.route(uri);
  const found = entityAtCursor(ws.engine, path, pos, { enclosing: true });
  if (!found) {
    throw new EngineError(ErrorCodes.BadPosition, `no entity at ${uri}:${pos.line + 1}:${pos.character + 1}`);
  }
  return { ws, id: found.entity.id };
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
