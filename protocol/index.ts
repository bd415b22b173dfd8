// The wire contract of NSCCN: method names, params and results of every nsccn/* request,
// the JSON the CLI prints, and entity-id helpers. Imported by the server, the MCP adapter,
// the editor-client tests and the test suite. No runtime dependencies.
//
// Conventions: `file` is a workspace-relative path with `/`; `line`/`endLine` are 1-based and
// inclusive; columns are 0-based UTF-16 code units (as in LSP).

export const Methods = {
  search: 'nsccn/search',
  skeleton: 'nsccn/skeleton',
  trace: 'nsccn/trace',
  window: 'nsccn/window',
  status: 'nsccn/status',
} as const;

/** Kinds of entity in the graph. Code entities first, then the state/config targets of causal edges. */
export type EntityKind =
  | 'module'
  | 'class'
  | 'function'
  | 'method'
  | 'attr'
  | 'global'
  | 'config'
  | 'file';

export const ENTITY_KINDS: readonly EntityKind[] = ['module', 'class', 'function', 'method', 'attr', 'global', 'config', 'file'];
export const CODE_KINDS: readonly EntityKind[] = ['module', 'class', 'function', 'method'];

export type Relation = 'CALLS' | 'INHERITS' | 'IMPORTS' | 'MUTATES' | 'READS_CONFIG' | 'PROPAGATES_ERROR';
export const RELATIONS: readonly Relation[] = [
  'CALLS',
  'INHERITS',
  'IMPORTS',
  'MUTATES',
  'READS_CONFIG',
  'PROPAGATES_ERROR',
];

// ---------------------------------------------------------------------------------------------
// Entity ids: `{prefix}:{relative/path}:{qualified.name}`; config ids have no path.

const KIND_PREFIX: Record<EntityKind, string> = {
  module: 'module',
  class: 'class',
  function: 'func',
  method: 'method',
  attr: 'attr',
  global: 'global',
  config: 'config',
  file: 'file',
};
const PREFIX_KIND: Record<string, EntityKind> = Object.fromEntries(
  Object.entries(KIND_PREFIX).map(([k, p]) => [p, k as EntityKind]),
);

export function entityId(kind: EntityKind, file: string, qname: string): string {
  if (kind === 'config') return `config:${qname}`;
  if (kind === 'file') return `file:${file}`;
  return `${KIND_PREFIX[kind]}:${file}:${qname}`;
}

export interface ParsedEntityId {
  kind: EntityKind;
  file: string | null;
  qname: string;
}

/** Parses an id; returns null when it is not of the NSCCN shape. */
export function parseEntityId(id: string): ParsedEntityId | null {
  const colon = id.indexOf(':');
  if (colon <= 0) return null;
  const kind = PREFIX_KIND[id.slice(0, colon)];
  if (!kind) return null;
  const rest = id.slice(colon + 1);
  if (kind === 'config') return rest ? { kind, file: null, qname: rest } : null;
  if (kind === 'file') return rest ? { kind, file: rest, qname: rest } : null;
  const last = rest.lastIndexOf(':');
  if (last <= 0 || last === rest.length - 1) return null;
  return { kind, file: rest.slice(0, last), qname: rest.slice(last + 1) };
}

// ---------------------------------------------------------------------------------------------
// Errors: JSON-RPC error codes of the nsccn/* requests (outside the reserved ranges).

export const ErrorCodes = {
  InvalidParams: -32602,
  UnknownEntity: 1001,
  OutsideWorkspace: 1002,
  BadPosition: 1003,
  NotIndexed: 1004,
  IndexUnavailable: 1005,
} as const;

export interface ErrorData {
  /** Closest known ids when an id was not found. */
  suggestions?: string[];
}

// ---------------------------------------------------------------------------------------------
// nsccn/search — Locate

export interface SearchParams {
  query: string;
  limit?: number;
  kinds?: EntityKind[];
  /** Path prefixes or globs (workspace-relative) to restrict results to. */
  paths?: string[];
  /** Rank test code like any other (default false: tests come after the code they test). */
  includeTests?: boolean;
  /** Also rank files, aggregated from entity scores ("which file do I open?"). */
  files?: boolean;
}

export interface SearchFileResult {
  file: string;
  /** The file as a URI (LSP answers, like SearchResult.uri). */
  uri?: string;
  score: number;
  /** Ids of the file's entities among the ranked hits, best first. */
  hits: string[];
}

export interface SearchResult {
  id: string;
  kind: EntityKind;
  name: string;
  file: string;
  line: number;
  endLine: number;
  signature: string;
  score: number;
  /** The file as a URI (LSP answers; with several workspace folders `file` alone is ambiguous). */
  uri?: string;
  /** 1-based rank of this result in each stream that returned it. */
  ranks?: Record<string, number>;
}

export interface SearchResponse {
  results: SearchResult[];
  /** The streams that took part, e.g. ["lexical", "semantic:static"]. */
  streams: string[];
  /** Files ranked by the scores of their entities, when asked for with `files: true`. */
  files?: SearchFileResult[];
}

// ---------------------------------------------------------------------------------------------
// nsccn/skeleton — Orient

export interface SkeletonParams {
  uri: string;
}

export interface SkeletonEntity {
  id: string;
  kind: EntityKind;
  name: string;
  /** 1-based line of the entity in the skeleton text. */
  skeletonLine: number;
  /** 1-based line of the entity in the source file. */
  sourceLine: number;
}

export interface Skeleton {
  file: string;
  text: string;
  originalTokens: number;
  skeletonTokens: number;
  entities: SkeletonEntity[];
}

export interface SkeletonResponse extends Skeleton {
  uri: string;
}

// ---------------------------------------------------------------------------------------------
// nsccn/trace — Trace

export type TraceDirection = 'up' | 'down' | 'state' | 'errors' | 'config';
export const TRACE_DIRECTIONS: readonly TraceDirection[] = ['up', 'down', 'state', 'errors', 'config'];
export const TRACE_DEFAULT_DEPTH = 3;
export const TRACE_MAX_DEPTH = 10;

export interface Position {
  line: number; // 0-based, as in LSP
  character: number; // 0-based UTF-16
}

export interface TraceParams {
  id?: string;
  uri?: string;
  position?: Position;
  direction: TraceDirection;
  depth?: number;
  relations?: Relation[];
}

export interface TraceEdge {
  /** Entity id, or the name as written when `resolved` is false. */
  target: string;
  relation: Relation;
  resolved: boolean;
  /** The edge runs from `target` to this node (callers in `up`, other mutators in `state`). */
  incoming?: boolean;
  /** One of several candidates for an ambiguous name. */
  ambiguous?: boolean;
  /** For PROPAGATES_ERROR and CALLS: the site is inside a try that catches the error. */
  caught?: boolean;
  /** 1-based line of the site in the source entity's file. */
  line?: number;
}

export interface TraceEntity {
  kind: EntityKind;
  signature: string;
  file: string | null;
  line: number | null;
}

export interface TraceResult {
  root: string;
  direction: TraceDirection;
  depth: number;
  adjacency: Record<string, TraceEdge[]>;
  entities: Record<string, TraceEntity>;
  /** `errors` direction from a function: exception ids (or names) that can escape it. */
  escaping?: string[];
}

// ---------------------------------------------------------------------------------------------
// nsccn/window — Examine

export interface WindowParams {
  id?: string;
  uri?: string;
  position?: Position;
  contextLines?: number;
}

export interface Window {
  id: string;
  file: string;
  /** 1-based first and last line shown (context included). */
  start: number;
  end: number;
  /** 1-based first and last line of the entity itself. */
  entityStart: number;
  entityEnd: number;
  /** The lines, each prefixed with its number: `  12 | def f():`. */
  code: string;
}

export interface WindowResponse extends Window {
  uri: string;
}

// ---------------------------------------------------------------------------------------------
// nsccn/status

export interface StatusParams {}

export interface EmbeddingStatus {
  model: string;
  dims: number;
  done: number;
  total: number;
}

export interface StatusResponse {
  state: 'indexing' | 'ready';
  files: number;
  entities: number;
  edges: number;
  embeddings: EmbeddingStatus | null;
  /** Search streams that are on, e.g. ["lexical", "semantic:static"], and why others are off. */
  streams: string[];
  notes: string[];
}

// ---------------------------------------------------------------------------------------------
// CLI-only JSON

export interface IndexSummary {
  files: number;
  parsed: number;
  unchanged: number;
  deleted: number;
  skipped: Array<{ file: string; reason: string }>;
  entities: number;
  edges: number;
  seconds: number;
}

export interface StatsResponse {
  root: string;
  files: number;
  entities: Record<string, number>;
  edges: Record<string, number>;
  unresolvedEdges: number;
  dbBytes: number;
  embeddings: EmbeddingStatus | null;
}
