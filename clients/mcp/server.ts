// `nsccn mcp`: an MCP server over stdio that maps every tool to the nsccn/* requests of a child
// language server (child.ts). Thin wiring: tools are data (tools.ts), resources in
// resources.ts, path confinement in confine.ts, errors as tool results in errors.ts.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { ErrorCodes, Methods, type StatusResponse } from '../../protocol';
import { LspChild, type ChildCommand } from './child';
import { Root } from './confine';
import { renderToolError, toToolError } from './errors';
import { listSkeletons, readSkeleton, skeletonTemplate } from './resources';
import { TOOLS, type ToolContext } from './tools';

export interface McpOptions {
  root: string;
  /** How to start the language server (`nsccn lsp --stdio`). */
  lspCommand: ChildCommand;
  /** The language server's initializationOptions (exclude, embeddings, ...). */
  initializationOptions?: unknown;
  version: string;
  log?: (message: string) => void;
}

const INSTRUCTIONS =
  'NSCCN navigates this code base through a causal code graph (calls, inheritance, imports, state mutations, config reads, raised errors) and hybrid search. ' +
  'Work Locate → Orient → Trace → Examine: search_and_rank (or build_context for a first look at a task) → read_skeleton → trace_causal_path → open_surgical_window. ' +
  'Prefer these over reading whole files: they cost a fraction of the tokens.';

/** Runs until stdin closes; then stops the language server and resolves. */
export async function runMcpServer(options: McpOptions): Promise<void> {
  const log = options.log ?? ((m: string) => process.stderr.write(`nsccn mcp: ${m}\n`));
  const root = new Root(options.root);
  const child = new LspChild({ root: root.real, command: options.lspCommand, initializationOptions: options.initializationOptions, log });
  const index = new IndexState();
  child.onStart = () => index.reset();

  const server = new Server(
    { name: 'nsccn', title: 'NSCCN code navigator', version: options.version },
    { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  const caller = (signal?: AbortSignal) => ({ call: <R>(method: string, params: unknown) => child.request<R>(method, params, signal) });

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { title: t.title, readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === req.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `unknown tool '${req.params.name}'; the tools are ${TOOLS.map((t) => t.name).join(', ')}`);
    const token = extra._meta?.progressToken;
    const ctx: ToolContext = {
      ...caller(extra.signal),
      root,
      progress: (progress, total, message) => {
        if (token === undefined) return Promise.resolve();
        return extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total, message } }).catch(() => {});
      },
      info: () => ({ restarts: child.restarts, indexProgress: describeProgress(child) }),
    };
    let building: StatusResponse | null = null;
    try {
      building = tool.name === 'index_status' ? null : await index.building(ctx);
      const answer = await tool.run(req.params.arguments ?? {}, ctx);
      if (tool.name === 'index_status' && answer.structured.state === 'ready') index.sawReady();
      if (!building) return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured };
      const note = `note: the index is still building (${building.files} files so far${describeProgress(child) ? `, ${describeProgress(child)}` : ''}); answers come from what is indexed — call index_status to see when it is ready.`;
      return {
        content: [{ type: 'text', text: `${note}\n${answer.text}` }],
        structuredContent: { ...answer.structured, index: { state: 'indexing', files: building.files } },
      };
    } catch (e) {
      const err = toToolError(e);
      if (building && (err.code === ErrorCodes.UnknownEntity || err.code === ErrorCodes.NotIndexed)) {
        err.hint = `The index is still building (${building.files} files so far), which may be why; call index_status and try again once it is ready. ${err.hint}`;
      }
      return { isError: true, content: [{ type: 'text', text: renderToolError(err) }], structuredContent: { error: err } };
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [skeletonTemplate] }));
  server.setRequestHandler(ListResourcesRequestSchema, async (req, extra) => {
    try {
      return await listSkeletons(caller(extra.signal), req.params?.cursor);
    } catch (e) {
      throw asMcpError(e);
    }
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
    try {
      return await readSkeleton(caller(extra.signal), root, req.params.uri);
    } catch (e) {
      throw asMcpError(e);
    }
  });

  // Start indexing at once; the first tool call must not pay for the server's start-up.
  child.start().catch((e) => log(e instanceof Error ? e.message : String(e)));

  // stdin closing is how a client says goodbye; a signal is treated the same way.
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
    server.onclose = () => resolve();
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await child.stop();
  await server.close().catch(() => {});
}

/**
 * How long a tool call waits, on a folder the server found indexed, for its start-up check (a
 * stat of every file: site-packages ~0.2 s) and the re-index of what the check finds. Answered
 * at once, the first calls read the index as the last process left it: a file changed while no
 * server ran, or the unsaved text of an editor that quit, traced as if it were on disk.
 */
const SETTLE_MS = 2000;
const SETTLE_POLL_MS = 25;

/** Whether the first index run is still going; asked of the server until it says ready once. */
class IndexState {
  private ready = false;

  reset(): void {
    this.ready = false;
  }

  sawReady(): void {
    this.ready = true;
  }

  /**
   * The status while the index builds, null once it is ready. A complete index being checked
   * against the disk is waited for, up to SETTLE_MS; a first index is not (it takes minutes).
   */
  async building(ctx: ToolContext): Promise<StatusResponse | null> {
    if (this.ready) return null;
    let s = await ctx.call<StatusResponse>(Methods.status, {});
    if (s.checking) {
      const until = Date.now() + SETTLE_MS;
      while (s.state !== 'ready' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
        s = await ctx.call<StatusResponse>(Methods.status, {});
      }
    }
    if (s.state === 'ready') this.ready = true;
    return s.state === 'indexing' && !s.checking ? s : null;
  }
}

function describeProgress(child: LspChild): string | null {
  const p = child.progress;
  if (!p) return null;
  return [p.percentage !== undefined ? `${p.percentage}%` : '', p.message ?? ''].filter(Boolean).join(' ') || null;
}

function asMcpError(e: unknown): McpError {
  if (e instanceof McpError) return e;
  const err = toToolError(e);
  return new McpError(ErrorCode.InvalidParams, `${err.message} — ${err.hint}`, err.suggestions ? { suggestions: err.suggestions } : undefined);
}
