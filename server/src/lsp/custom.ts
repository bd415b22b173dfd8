// The nsccn/* requests: the zoom-in workflow (search → skeleton → trace → window) plus status,
// with the names and shapes of protocol/index.ts. Params are validated here, field by field;
// an entity can be named by id or by a cursor (uri + position).
import {
  DOCS_LEVELS,
  MAX_TOKENS_MAX,
  MAX_TOKENS_MIN,
  RELATIONS,
  TRACE_DIRECTIONS,
  TRACE_MAX_DEPTH,
  TRACE_MAX_PATHS,
  type ChangesResponse,
  type EmbeddingStatus,
  type FilesResponse,
  type SearchParams,
  type SearchFileResult,
  type SearchResponse,
  type SearchResult,
  type SkeletonResponse,
  type StatusResponse,
  type TraceResult,
  type WindowResponse,
} from '../../../protocol';
import { ENTITY_KINDS, ErrorCodes, SEARCH_MAX_LIMIT, WINDOW_MAX_CONTEXT } from '../../../protocol';
import { fitSearch } from '../engine';
import { EngineError, type Cancellation } from '../engine';
import { pathToUri } from './convert';
import { entityAtCursor } from './cursor';
import { invalidParams } from './errors';
import * as P from './params';
import type { Workspace, Workspaces } from './workspaces';

/** Every entity kind (protocol's EntityKind union as a value, for validating `kinds`). */

/** A search result with the URI of its file (`file` alone is ambiguous across folders). */
export type SearchResultWithUri = SearchResult & { uri: string };

export async function search(workspaces: Workspaces, method: string, raw: unknown, cancel?: Cancellation): Promise<SearchResponse> {
  const o = P.object(method, raw);
  if (typeof o.query !== 'string' || !o.query.trim()) throw invalidParams(method, "'query' must be a non-empty string");
  const params: SearchParams = { query: o.query };
  const limit = P.optionalInt(method, o, 'limit', 1, SEARCH_MAX_LIMIT);
  if (limit !== undefined) params.limit = limit;
  const kinds = P.optionalStrings(method, o, 'kinds', ENTITY_KINDS);
  if (kinds) params.kinds = kinds;
  const paths = P.optionalStrings(method, o, 'paths');
  if (paths) params.paths = paths;
  const maxTokens = maxTokensParam(method, o);
  const includeTests = P.optionalBool(method, o, 'includeTests');
  if (includeTests !== undefined) params.includeTests = includeTests;
  const files = P.optionalBool(method, o, 'files');
  if (files !== undefined) params.files = files;

  const answers = await Promise.all(workspaces.list().map(async (ws) => ({ ws, res: await ws.engine.search(params, cancel) })));
  const streams = new Set<string>();
  const incomplete = new Set<string>();
  const results: SearchResultWithUri[] = [];
  for (const { ws, res } of answers) {
    res.streams.forEach((s) => streams.add(s));
    res.incomplete?.forEach((s) => incomplete.add(s));
    for (const r of res.results) results.push({ ...r, uri: pathToUri(ws.engine.absolutePath(r.file)) });
  }
  if (answers.length > 1) results.sort((a, b) => b.score - a.score);
  // With one folder the engine's own limit applies; merged answers keep the largest one asked.
  const cap = limit ?? Math.max(0, ...answers.map((a) => a.res.results.length));
  const fileRanking = files ? mergeFiles(answers.map((a) => (a.res.files ?? []).map((f) => ({ ...f, uri: pathToUri(a.ws.engine.absolutePath(f.file)) }))), cap) : undefined;
  // A stream incomplete in any folder makes the merged ranking provisional: say so, as the engine does.
  // Every folder read the same query: any one's cut is the answer's.
  const queryCut = answers.find((a) => a.res.queryCut)?.res.queryCut;
  const merged: SearchResponse = { results: results.slice(0, cap), streams: [...streams], ...(incomplete.size ? { incomplete: [...incomplete] } : {}), ...(fileRanking ? { files: fileRanking } : {}), ...(queryCut ? { queryCut } : {}) };
  // The budget applies to the merged answer, so it is cut here, once.
  return maxTokens === undefined ? merged : fitSearch(merged, maxTokens);
}

/** Several folders' file rankings as one, by score (each file with its URI: paths alone are ambiguous across folders). */
function mergeFiles(lists: SearchFileResult[][], cap: number): SearchFileResult[] {
  const all = lists.flat();
  if (lists.length > 1) all.sort((a, b) => b.score - a.score);
  return all.slice(0, cap);
}

export async function skeleton(workspaces: Workspaces, method: string, raw: unknown): Promise<SkeletonResponse> {
  const o = P.object(method, raw);
  const uri = P.string(method, o, 'uri');
  const docs = o.docs === undefined || o.docs === null ? undefined : P.oneOf(method, o, 'docs', DOCS_LEVELS);
  const maxTokens = maxTokensParam(method, o);
  const { ws, path } = workspaces.route(uri);
  return { ...(await ws.engine.skeletonLoading(path, { docs, maxTokens })), uri };
}

export function trace(workspaces: Workspaces, method: string, raw: unknown, cancel?: Cancellation): Promise<TraceResult> {
  const o = P.object(method, raw);
  // Paths (`to`) follow edges forward whatever the direction, so it may be left out there.
  const to = P.optionalString(method, o, 'to');
  const direction = to !== undefined && o.direction === undefined ? 'down' : P.oneOf(method, o, 'direction', TRACE_DIRECTIONS);
  const depth = P.optionalInt(method, o, 'depth', 1, TRACE_MAX_DEPTH);
  const relations = P.optionalStrings(method, o, 'relations', RELATIONS);
  const maxTokens = maxTokensParam(method, o);
  const k = P.optionalInt(method, o, 'k', 1, TRACE_MAX_PATHS);
  const dispatch = P.optionalBool(method, o, 'dispatch');
  const { ws, id } = target(workspaces, method, o);
  return ws.engine.traceCooperatively({ id, direction, depth, relations, maxTokens, to, k, dispatch }, cancel);
}

export function window(workspaces: Workspaces, method: string, raw: unknown): WindowResponse {
  const o = P.object(method, raw);
  const contextLines = P.optionalInt(method, o, 'contextLines', 0, WINDOW_MAX_CONTEXT);
  const maxTokens = maxTokensParam(method, o);
  const { ws, id } = target(workspaces, method, o);
  const w = ws.engine.window(id, contextLines, maxTokens);
  return { ...w, uri: pathToUri(ws.engine.absolutePath(w.file)) };
}

/** What a git diff touches in one folder: `uri` names the folder (or a file in it); default the first. */
export async function changes(workspaces: Workspaces, method: string, raw: unknown): Promise<ChangesResponse> {
  const o = P.object(method, raw ?? {});
  const since = P.optionalString(method, o, 'since');
  const flag = (key: string): boolean | undefined => {
    if (o[key] === undefined || o[key] === null) return undefined;
    if (typeof o[key] !== 'boolean') throw invalidParams(method, `'${key}' must be true or false`);
    return o[key] as boolean;
  };
  const staged = flag('staged');
  const worktree = flag('worktree');
  const depth = P.optionalInt(method, o, 'depth', 1, TRACE_MAX_DEPTH);
  const maxTokens = maxTokensParam(method, o);
  const uri = P.optionalString(method, o, 'uri');
  const all = workspaces.list();
  let ws: Workspace | undefined;
  if (uri === undefined) ws = all[0];
  else ws = all.find((w) => w.uri === uri || pathToUri(w.root) === uri) ?? workspaces.route(uri).ws;
  if (!ws) throw new EngineError(ErrorCodes.IndexUnavailable, 'no workspace folder is open');
  return ws.engine.changes({ since, staged, worktree, depth, maxTokens });
}

/** Status of every folder summed; `indexing` while any folder is. */
export function status(workspaces: Workspaces, indexing: boolean): StatusResponse {
  const all = workspaces.list();
  const parts = all.map((ws) => ({ ws, s: ws.engine.status() }));
  const busy = indexing || parts.some(({ ws, s }) => s.state === 'indexing' || ws.pendingIndex || ws.engine.isIndexing());
  // Busy only until the stat of every file says nothing changed: an agent told "still building"
  // then, on a complete index, waits for nothing.
  const checking = busy && parts.length > 0 && parts.every(({ ws, s }) => s.state !== 'indexing' && !ws.engine.isIndexing() && s.files > 0);
  const streams = new Set<string>();
  const notes: string[] = [];
  for (const { ws, s } of parts) {
    s.streams.forEach((x) => streams.add(x));
    notes.push(...(all.length > 1 ? s.notes.map((n) => `[${ws.name}] ${n}`) : s.notes));
  }
  const vectors = parts.flatMap((p) => (p.s.embeddings ? [p.s.embeddings] : []));
  const streamProgress = parts.flatMap(({ ws, s }) => (s.streamProgress ?? []).map((p) => (all.length > 1 ? { ...p, stream: `[${ws.name}] ${p.stream}` } : p)));
  const embeddings: EmbeddingStatus | null = vectors.length
    ? { ...vectors[0], done: sum(vectors.map((v) => v.done)), total: sum(vectors.map((v) => v.total)) }
    : null;
  if (all.length === 0) notes.push('no workspace folder is open');
  return {
    state: busy ? 'indexing' : 'ready',
    ...(checking ? { checking } : {}),
    files: sum(parts.map((p) => p.s.files)),
    entities: sum(parts.map((p) => p.s.entities)),
    edges: sum(parts.map((p) => p.s.edges)),
    embeddings,
    streams: [...streams],
    streamProgress,
    notes,
  };
}

/** Every indexed file of every folder, sorted by URI. */
export function files(workspaces: Workspaces): FilesResponse {
  const out = workspaces
    .list()
    .flatMap((ws) => ws.engine.store.files().map((f) => ({ file: f.path, uri: pathToUri(ws.engine.absolutePath(f.path)), language: f.language })));
  out.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  return { files: out };
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

function maxTokensParam(method: string, o: P.Obj): number | undefined {
  return P.optionalInt(method, o, 'maxTokens', MAX_TOKENS_MIN, MAX_TOKENS_MAX);
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
