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
  changes: 'nsccn/changes',
  files: 'nsccn/files',
} as const;

/**
 * Commands the server puts on code lenses; the clients implement them (the server cannot show a
 * list in an editor). `showCallers` takes one argument, {@link ShowCallersArgs}.
 */
export const Commands = {
  showCallers: 'nsccn.showCallers',
} as const;

export interface ShowCallersArgs {
  /** The entity whose callers to show, and the URI of its file. */
  id: string;
  uri: string;
}

/** Kinds of entity in the graph. Code entities first, then the state/config targets of causal edges. */
export type EntityKind =
  | 'module'
  | 'class'
  | 'function'
  | 'method'
  | 'interface'
  | 'type'
  | 'enum'
  | 'namespace'
  | 'attr'
  | 'global'
  | 'config'
  | 'file';

export const ENTITY_KINDS: readonly EntityKind[] = ['module', 'class', 'function', 'method', 'interface', 'type', 'enum', 'namespace', 'attr', 'global', 'config', 'file'];
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
  interface: 'interface',
  type: 'type',
  enum: 'enum',
  namespace: 'namespace',
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

/** A module's dotted name (`app.models`), which names its file where a path is asked for. */
export const DOTTED_MODULE_NAME = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/;

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
  /** LSP's RequestCancelled: a `$/cancelRequest` stopped the request (queued or running). */
  RequestCancelled: -32800,
} as const;

export interface ErrorData {
  /** Closest known ids when an id was not found. */
  suggestions?: string[];
}

// ---------------------------------------------------------------------------------------------
// Token budgets: `maxTokens` on search, skeleton, trace and window. The answer is cut by
// usefulness until its JSON (estimated with the engine's BPE-like counter) fits, and says what it
// dropped in `truncated`. Text views print less than the JSON, so they fit too.

/** Most results a search returns (every face: LSP, CLI, MCP take at most this). */
export const SEARCH_MAX_LIMIT = 500;
/**
 * Most characters of a query search reads. A longer one (a whole pasted log) is read at its
 * start and its end, half each (the description, and the traceback that ends a report), and
 * the answer says so in `queryCut`: reading 5 MB of it took seconds.
 */
export const SEARCH_MAX_QUERY_CHARS = 200_000;
/** Most lines of context a source window shows around its entity. */
export const WINDOW_MAX_CONTEXT = 200;

/**
 * Largest JSON-RPC message (its Content-Length) the language server reads: a larger one is a
 * broken or hostile client; the server says so on stderr and exits with an error, without
 * waiting for or buffering the announced bytes. Headers are limited to MAX_HEADER_BYTES.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
export const MAX_HEADER_BYTES = 16 * 1024;

export const MAX_TOKENS_MIN = 20;
export const MAX_TOKENS_MAX = 1_000_000;

export interface Truncation {
  maxTokens: number;
  /** Estimated tokens of the answer as returned. */
  tokens: number;
  /** What was left out, by kind (e.g. `{"edges": 40, "unresolved edges": 30}`). */
  dropped: Record<string, number>;
  /** One line for people: what was dropped and how to see it. */
  note: string;
}

// ---------------------------------------------------------------------------------------------
// nsccn/search — Locate

export interface SearchParams {
  query: string;
  limit?: number;
  kinds?: EntityKind[];
  /** Path prefixes or globs (workspace-relative) to restrict results to. */
  paths?: string[];
  /** Token budget: results are dropped from the lowest rank up until the answer fits. */
  maxTokens?: number;
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
  /** Vector streams still filling (or loading) when this answer was made: it may rank differently later. */
  incomplete?: string[];
  truncated?: Truncation;
  /** Files ranked by the scores of their entities, when asked for with `files: true`. */
  files?: SearchFileResult[];
  /** The query was longer than search reads (`SEARCH_MAX_QUERY_CHARS`): its first and last `read / 2` characters were read. */
  queryCut?: { length: number; read: number };
}

// ---------------------------------------------------------------------------------------------
// nsccn/skeleton — Orient

/** How much of each docstring a skeleton keeps: all of it, its first line and `...`, or none. */
export type DocsLevel = 'full' | 'first-line' | 'none';
export const DOCS_LEVELS: readonly DocsLevel[] = ['full', 'first-line', 'none'];
export const DEFAULT_DOCS_LEVEL: DocsLevel = 'first-line';

export interface SkeletonParams {
  uri: string;
  /** Default `first-line`. */
  docs?: DocsLevel;
  /** Token budget: docstrings go first, then the most deeply nested lines. */
  maxTokens?: number;
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
  /** The docstring level the text was made with. */
  docs?: DocsLevel;
  truncated?: Truncation;
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
/** Paths between two entities (`to`): how many by default and at most. */
export const TRACE_DEFAULT_PATHS = 3;
/**
 * How the faces label a dispatch edge: an override in a subclass that a call on a base-class
 * method may reach. Call hierarchy items start their `detail` with it (LSP has no tag for it).
 */
export const MAY_CALL_LABEL = 'may call (override)';
export const TRACE_MAX_PATHS = 20;

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
  /** Token budget: unresolved names go first, then the farthest hops. */
  maxTokens?: number;
  /**
   * Follow dispatch edges ("may call": overrides of a called method in subclasses), marked
   * `dispatch` on the edge. Default true; false leaves only the calls the code names.
   */
  dispatch?: boolean;
  /**
   * Another entity: answer the shortest paths from the root to it over `relations` (default
   * CALLS) instead of a traversal; `depth` bounds their length (default TRACE_MAX_DEPTH).
   */
  to?: string;
  /** With `to`: at most this many paths, shortest first (default TRACE_DEFAULT_PATHS). */
  k?: number;
}

/** One step of a path: an edge from `from` to `to`, at its site. */
export interface PathHop {
  from: string;
  to: string;
  relation: Relation;
  /** 1-based line of the site in `from`'s file, and that line's text (trimmed). */
  line: number;
  code?: string;
  ambiguous?: boolean;
  /** The hop is a dispatch edge: an override the call may reach ("may call"). */
  dispatch?: boolean;
}

export interface TracePath {
  hops: PathHop[];
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
  /**
   * A dispatch edge ("may call"): the call names a method of a base class, and this override
   * in a subclass may run instead. Absent on the calls the code names.
   */
  dispatch?: boolean;
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
  /** With `to`: the target, and the paths found (shortest first; empty: it is not reached). */
  to?: string;
  paths?: TracePath[];
  truncated?: Truncation;
}

// ---------------------------------------------------------------------------------------------
// nsccn/window — Examine

export interface WindowParams {
  id?: string;
  uri?: string;
  position?: Position;
  contextLines?: number;
  /** Token budget: context lines go first, then the entity's last lines. */
  maxTokens?: number;
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
  truncated?: Truncation;
}

export interface WindowResponse extends Window {
  uri: string;
}

// ---------------------------------------------------------------------------------------------
// nsccn/changes — what a git diff touches, and what that reaches

/**
 * Which diff: `since` a revision (that revision → the working tree), `staged` (HEAD → the git
 * index), `worktree` (the git index → the working tree). None: HEAD → the working tree. Untracked
 * files count as added unless `staged`.
 */
export interface ChangesParams {
  /** With several workspace folders: the folder (a file URI) to diff; default the first. */
  uri?: string;
  since?: string;
  staged?: boolean;
  worktree?: boolean;
  /** How far up the callers go (default CHANGES_DEFAULT_DEPTH). */
  depth?: number;
  maxTokens?: number;
}

export const CHANGES_DEFAULT_DEPTH = 2;
/** How far up from a changed entity a test still counts as reaching it. */
export const CHANGES_TEST_DEPTH = 5;

export type ChangeKind = 'added' | 'modified' | 'deleted';

export interface ChangedFile {
  file: string;
  /** The file's path before a rename. */
  oldFile?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
}

export interface ChangedEntity {
  id: string;
  kind: EntityKind;
  change: ChangeKind;
  /** Where it is now (deleted: where it was, in the old version). */
  file: string;
  line: number;
  signature: string;
  /** Changed lines inside it (1-based; deleted entities: lines of the old version; empty when lines were only removed). */
  lines: number[];
  /** Callers up to `depth`, nearest first (deleted: code that still calls or imports it by name). */
  callers: string[];
  /** State it mutates and configuration it reads itself. */
  mutates: string[];
  readsConfig: string[];
  /** Test functions (in test files) that reach it through calls. */
  tests: string[];
}

export interface ChangesResponse {
  /** What was compared, e.g. `HEAD → working tree`. */
  base: string;
  files: ChangedFile[];
  entities: ChangedEntity[];
  truncated?: Truncation;
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

/** How complete one vector stream is: entities with a current vector out of those that can have one. */
export interface StreamProgress {
  stream: string;
  done: number;
  total: number;
  /** Loaded, nothing queued, every entity embedded: answers will not change until the code does. */
  complete: boolean;
}

export interface StatusResponse {
  /** `ready` once every folder's index matches the disk (its first run over, or finding nothing to do). */
  state: 'indexing' | 'ready';
  /**
   * Indexing in name only: no folder's run has found a change yet, and each has an index to
   * answer from (a server's first moments on an indexed folder, before its stat of every file).
   */
  checking?: boolean;
  files: number;
  entities: number;
  edges: number;
  embeddings: EmbeddingStatus | null;
  /** Search streams that are on, e.g. ["lexical", "semantic:static"], and why others are off. */
  streams: string[];
  /** Per vector stream, how complete it is (a model still loading is listed, incomplete). */
  streamProgress?: StreamProgress[];
  notes: string[];
}

// ---------------------------------------------------------------------------------------------
// nsccn/files — the indexed files (the MCP adapter lists them as skeleton resources)

export interface FilesParams {}

export interface IndexedFile {
  file: string;
  uri: string;
  language: string;
}

export interface FilesResponse {
  files: IndexedFile[];
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
  /** What the user should know about this run: it waited for another process, recovered an interrupted run, ... */
  notes?: string[];
}

export interface StatsResponse {
  root: string;
  files: number;
  entities: Record<string, number>;
  /** Edges per relation, dispatch edges not included. */
  edges: Record<string, number>;
  /** CALLS edges to overrides a method call may reach through a subclass ("may call"). */
  dispatchEdges: number;
  unresolvedEdges: number;
  dbBytes: number;
  embeddings: EmbeddingStatus | null;
  streamProgress?: StreamProgress[];
}
