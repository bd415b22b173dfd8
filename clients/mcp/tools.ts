// The six tools, as data: name, a description written for a model (when to use it, what comes
// back, what to call next), the JSON schema of its arguments, and how it maps to the nsccn/*
// requests of protocol/. Each answer is structured data plus a compact text rendering.
import {
  ENTITY_KINDS,
  Methods,
  RELATIONS,
  TRACE_DEFAULT_DEPTH,
  TRACE_DIRECTIONS,
  TRACE_MAX_DEPTH,
  WINDOW_MAX_CONTEXT,
  type SkeletonResponse,
  type StatusResponse,
  type TraceResult,
  type WindowResponse,
} from '../../protocol';
import * as A from './args';
import { buildContext, CONTEXT_DEFAULT_BUDGET, CONTEXT_MAX_BUDGET, CONTEXT_MIN_BUDGET } from './context';
import type { Root } from './confine';
import { renderSearch, renderSkeleton, renderStatus, renderTrace, renderWindow } from './render';
import { searchQuery } from './query';

export interface ToolContext {
  /** A request to the language server (cancelled with the tool call). */
  call<R>(method: string, params: unknown): Promise<R>;
  root: Root;
  /** MCP progress, sent only when the client asked for it. */
  progress(done: number, total: number, message: string): Promise<void>;
  /** Adapter-side state for index_status. */
  info(): { restarts: number; indexProgress: string | null };
}

export interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

export interface ToolSpec {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[]; additionalProperties: false };
  run(args: A.Args, ctx: ToolContext): Promise<ToolAnswer>;
}

export const SEARCH_DEFAULT_LIMIT = 10;
/** Tighter than the protocol's SEARCH_MAX_LIMIT: an agent pays for every hit it reads. */
export const TOOL_SEARCH_MAX_LIMIT = 100;
export const WINDOW_DEFAULT_CONTEXT = 3;

const ENTITY_ID = {
  type: 'string',
  description:
    'An entity id as returned by search_and_rank, read_skeleton or trace_causal_path: kind:path:qualified.name, e.g. func:src/auth.py:validate_token, method:src/models.py:User.save, class:src/api.py:Router. ' +
    'A name only one entity has works too: User.save, a dotted module path as in a traceback or an import (app.models.User.save), src/models.py:User.save, a file and line from a traceback (src/models.py:42: the definition holding that line), a pytest id (tests/test_api.py::TestRouter::test_get).',
};

const searchAndRank: ToolSpec = {
  name: 'search_and_rank',
  title: 'Locate code',
  description:
    'Locate: find the functions, methods and classes that matter for a task, ranked by hybrid search (BM25 + embeddings + exact names, fused). ' +
    'The query can be a few words ("validate the session token"), an identifier (User.save), or a whole bug report, error message or traceback, Python or JavaScript (the frames are looked up first; a quoted error message finds the code that raises it). ' +
    'Returns one line per hit: entity id, file:line, signature. ' +
    'Next: read_skeleton on a hit\'s file to orient, trace_causal_path on an id to follow calls/state/errors, open_surgical_window on an id to read its code. ' +
    'For a first look at a whole task in one call, use build_context instead.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look for: words, an identifier, a bug report or a traceback.' },
      limit: { type: 'integer', minimum: 1, maximum: TOOL_SEARCH_MAX_LIMIT, default: SEARCH_DEFAULT_LIMIT, description: 'How many hits to return.' },
      kind: {
        anyOf: [
          { type: 'string', enum: [...ENTITY_KINDS] },
          { type: 'array', items: { type: 'string', enum: [...ENTITY_KINDS] } },
        ],
        description: 'Only entities of this kind (or kinds): function, method, class, module, ...',
      },
      path: {
        anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
        description: 'Only under this path prefix or glob, relative to the workspace root (e.g. "src/auth/" or "**/test_*.py").',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  async run(raw, ctx) {
    const args = A.object(this.name, raw, ['query', 'limit', 'kind', 'path']);
    const query = A.requiredString(this.name, args, 'query');
    const limit = A.optionalInt(this.name, args, 'limit', 1, TOOL_SEARCH_MAX_LIMIT) ?? SEARCH_DEFAULT_LIMIT;
    const kinds = A.optionalList(this.name, args, 'kind', ENTITY_KINDS);
    const paths = A.optionalList(this.name, args, 'path')?.map((p) => ctx.root.pathFilter(p));
    const res = await searchQuery(ctx, { query, limit, ...(kinds ? { kinds } : {}), ...(paths ? { paths } : {}) });
    const results = res.results.map(({ uri: _uri, ranks: _ranks, ...r }) => r);
    const cut = res.queryCut ? `\n[the query is ${res.queryCut.length.toLocaleString('en')} characters: its first and last ${(res.queryCut.read / 2).toLocaleString('en')} were read]` : '';
    return { structured: { results, streams: res.streams, ...(res.queryCut ? { queryCut: res.queryCut } : {}) }, text: renderSearch(results, res.streams) + cut };
  },
};

const readSkeleton: ToolSpec = {
  name: 'read_skeleton',
  title: 'Orient in a file',
  description:
    'Orient: the skeleton of one file — imports, classes, signatures, docstrings and class attributes, with function bodies elided as "..." (typically 70-80 % fewer tokens than the file). ' +
    'Each definition line is prefixed with its line number in the real file. Use it instead of reading a whole file. ' +
    'Entity ids are kind:<file_path>:<Qualified.name> (func:, method:, class:). Next: trace_causal_path or open_surgical_window on one of them.',
  inputSchema: {
    type: 'object',
    properties: {
      file_path: { type: 'string', description: 'The file, relative to the workspace root (e.g. "src/auth.py"); an absolute path inside the root also works, and so does a module\'s dotted name (e.g. "app.auth").' },
    },
    required: ['file_path'],
    additionalProperties: false,
  },
  async run(raw, ctx) {
    const args = A.object(this.name, raw, ['file_path']);
    const file = ctx.root.file(A.requiredString(this.name, args, 'file_path'), { modules: true });
    const { uri: _uri, ...s } = await ctx.call<SkeletonResponse>(Methods.skeleton, { uri: file.uri });
    return { structured: s as unknown as Record<string, unknown>, text: renderSkeleton(s) };
  },
};

const traceCausalPath: ToolSpec = {
  name: 'trace_causal_path',
  title: 'Trace the causal graph',
  description:
    'Trace: follow the causal graph from an entity. direction "down" = what it calls (default), "up" = who calls it, ' +
    '"state" = attributes/globals it and its callees mutate or read (and who else mutates them), "errors" = exceptions that can escape it (or, for an exception class, who raises it), ' +
    '"config" = configuration keys/files it depends on (or, for a config id, who reads it). ' +
    'Returns an indented tree: arrow, relation, target id, the line of the call site, the target signature; [unresolved] marks names the index could not resolve, [ambiguous] one of several candidates, [may call: override] an override in a subclass that a call on a base-class method may reach (dynamic dispatch; dispatch: false leaves these out). ' +
    'Next: open_surgical_window on the ids that matter.',
  inputSchema: {
    type: 'object',
    properties: {
      entity_id: ENTITY_ID,
      direction: { type: 'string', enum: [...TRACE_DIRECTIONS], default: 'down', description: 'up, down, state, errors or config (see the tool description).' },
      depth: { type: 'integer', minimum: 1, maximum: TRACE_MAX_DEPTH, default: TRACE_DEFAULT_DEPTH, description: 'Levels to follow; 1 = direct neighbours only.' },
      relations: {
        type: 'array',
        items: { type: 'string', enum: [...RELATIONS] },
        description: 'Only these relations (CALLS, INHERITS, IMPORTS, MUTATES, READS_CONFIG, PROPAGATES_ERROR).',
      },
      dispatch: { type: 'boolean', default: true, description: 'Follow calls into overrides in subclasses ("may call"); false: only the methods the code names.' },
    },
    required: ['entity_id'],
    additionalProperties: false,
  },
  async run(raw, ctx) {
    const args = A.object(this.name, raw, ['entity_id', 'direction', 'depth', 'relations', 'dispatch']);
    const id = ctx.root.entityId(A.requiredString(this.name, args, 'entity_id'));
    const direction = A.optionalOneOf(this.name, args, 'direction', TRACE_DIRECTIONS) ?? 'down';
    const depth = A.optionalInt(this.name, args, 'depth', 1, TRACE_MAX_DEPTH) ?? TRACE_DEFAULT_DEPTH;
    const relations = A.optionalList(this.name, args, 'relations', RELATIONS);
    const dispatch = A.optionalBool(this.name, args, 'dispatch');
    const t = await ctx.call<TraceResult>(Methods.trace, { id, direction, depth, ...(relations ? { relations } : {}), ...(dispatch === false ? { dispatch } : {}) });
    return { structured: t as unknown as Record<string, unknown>, text: renderTrace(t) };
  },
};

const openSurgicalWindow: ToolSpec = {
  name: 'open_surgical_window',
  title: 'Examine an entity',
  description:
    'Examine: the source of one entity (function, method, class) with line numbers, plus a few lines of context — only that code, not the whole file. ' +
    'Use it once search/skeleton/trace have told you which entity matters. Returns "id file:start-end" then the numbered lines.',
  inputSchema: {
    type: 'object',
    properties: {
      entity_id: ENTITY_ID,
      context_lines: {
        type: 'integer',
        minimum: 0,
        maximum: WINDOW_MAX_CONTEXT,
        default: WINDOW_DEFAULT_CONTEXT,
        description: 'Lines shown before and after the entity.',
      },
    },
    required: ['entity_id'],
    additionalProperties: false,
  },
  async run(raw, ctx) {
    const args = A.object(this.name, raw, ['entity_id', 'context_lines']);
    const id = ctx.root.entityId(A.requiredString(this.name, args, 'entity_id'));
    const contextLines = A.optionalInt(this.name, args, 'context_lines', 0, WINDOW_MAX_CONTEXT) ?? WINDOW_DEFAULT_CONTEXT;
    const { uri: _uri, ...w } = await ctx.call<WindowResponse>(Methods.window, { id, contextLines });
    return { structured: w as unknown as Record<string, unknown>, text: renderWindow(w) };
  },
};

const indexStatus: ToolSpec = {
  name: 'index_status',
  title: 'Index status',
  description:
    'Whether the index is ready or still building, how many files/entities/edges it holds, which search streams are on (lexical, semantic) and why others are off. ' +
    'Call it when answers look incomplete or a tool said the index is still building.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  async run(raw, ctx) {
    A.object(this.name, raw, []);
    const s = await ctx.call<StatusResponse>(Methods.status, {});
    const info = ctx.info();
    const structured = { ...s, root: ctx.root.real, restarts: info.restarts, ...(info.indexProgress ? { progress: info.indexProgress } : {}) };
    return { structured, text: renderStatus(s, { root: ctx.root.real, restarts: info.restarts, progress: info.indexProgress }) };
  },
};

const buildContextTool: ToolSpec = {
  name: 'build_context',
  title: 'Build context for a task',
  description:
    "An agent's first look at a task, in one call: the best search hits for the query (a task, a bug report or a traceback), each with its signature and docstring, " +
    'its direct callers and callees, and the state, config and errors it touches — packed most useful first under a token budget (never over it). ' +
    'Then use open_surgical_window on the ids you need to read, and trace_causal_path to go further.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'The task, bug report or traceback.' },
      token_budget: {
        type: 'integer',
        minimum: CONTEXT_MIN_BUDGET,
        maximum: CONTEXT_MAX_BUDGET,
        default: CONTEXT_DEFAULT_BUDGET,
        description: 'Most tokens the answer may take.',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  async run(raw, ctx) {
    const args = A.object(this.name, raw, ['query', 'token_budget']);
    const query = A.requiredString(this.name, args, 'query');
    const budget = A.optionalInt(this.name, args, 'token_budget', CONTEXT_MIN_BUDGET, CONTEXT_MAX_BUDGET) ?? CONTEXT_DEFAULT_BUDGET;
    const c = await buildContext(ctx, query, budget);
    return { structured: c.structured, text: c.text };
  },
};

export const TOOLS: readonly ToolSpec[] = [searchAndRank, readSkeleton, traceCausalPath, openSurgicalWindow, indexStatus, buildContextTool];
