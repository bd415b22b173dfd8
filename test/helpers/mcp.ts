// Drives the built `nsccn mcp` over stdio with the MCP SDK's own Client, as an agent's host
// does. The adapter's child language server is found through the process table.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO } from './lsp-client';

export const CLI = path.join(REPO, 'dist', 'server', 'src', 'cli', 'main.js');

export interface McpSession {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  /** Calls a tool; the result as the SDK gives it. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function startMcp(root: string): Promise<McpSession> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: build first with \`npx tsc -p tsconfig.json\``);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--root', root, '--model', 'none'],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'nsccn-test', version: '0' });
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    call: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    close: () => client.close(),
  };
}

export function text(r: CallToolResult): string {
  const first = r.content[0];
  if (!first || first.type !== 'text') throw new Error(`no text content: ${JSON.stringify(r)}`);
  return first.text;
}

/** Pids of the direct children of `pid` (the adapter's language server). */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls nsccn's index_status until the index is ready. */
export async function waitReady(s: McpSession, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await s.call('index_status');
    // Ready, and every vector stream complete: a search's order no longer moves while vectors
    // fill in (a loaded machine ran build_context's search before the static stream had them).
    const st = r.structuredContent as { state?: string; streamProgress?: Array<{ complete: boolean }> };
    if (st?.state === 'ready' && (st.streamProgress ?? []).every((p) => p.complete)) return;
    if (Date.now() > deadline) throw new Error(`still indexing after ${timeoutMs} ms: ${text(r)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
