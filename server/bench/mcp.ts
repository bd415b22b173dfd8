// `npm run bench -- mcp`: the MCP adapter as an agent meets it, over real stdio with the SDK's
// own Client, on a copy of the Python standard library (the index is written inside the copy).
//  1. Tool latency p50/p99 (client side: MCP → adapter → language server and back) of
//     search_and_rank, read_skeleton, trace_causal_path (depth 3) and open_surgical_window over
//     50 stdlib functions; the spec's targets are search < 50 ms, skeleton < 20 ms,
//     trace < 5 ms, window < 1 ms.
//  2. Tokens an agent reads to learn "what does X call, what calls it, what is its signature":
//     through the tools (trace down + trace up, depth 1: the root line carries the signature)
//     versus reading the whole files (X's file and every file holding one of its callers);
//     median and p90 of tools/files.
//     Beside each, the same request sent straight to a language server (no MCP, no adapter).
//  3. build_context: tokens used vs budget (never over), and its latency.
// Writes bench-results/bench-mcp.json.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { pathToFileURL } from 'node:url';
import { Methods, type StatusResponse, type TraceResult } from '../../protocol';
import { LspChild } from '../../clients/mcp/child';
import { countTokens } from '../src/engine/skeleton/tokens';
import { listDocumentedFunctions, sample, usableQuestion, type DocumentedFunction } from '../eval/stdlib-sample';
import { pythonStdlib } from './corpora';
import { percentile } from './stats';

const SKIP = ['site-packages', 'dist-packages'];
const FUNCTIONS = 50;
const ROUNDS = 3;
const BUDGETS = [1000, 2000, 4000, 8000];
const CONTEXT_QUERIES = 20;
const TARGETS_MS: Record<string, number> = { search_and_rank: 50, read_skeleton: 20, trace_causal_path: 5, open_surgical_window: 1 };

/** Copies the .py/.pyi files of the stdlib (not site-packages) to a temp folder. */
function copyStdlib(stdlib: string, to: string): void {
  fs.cpSync(stdlib, to, {
    recursive: true,
    filter: (src) => {
      const rel = path.relative(stdlib, src);
      if (!rel) return true;
      if (SKIP.includes(rel.split(path.sep)[0]) || path.basename(src) === '__pycache__') return false;
      const st = fs.lstatSync(src);
      return st.isDirectory() || (st.isFile() && /\.pyi?$/.test(src));
    },
  });
}

const round = (x: number, d = 2) => +x.toFixed(d);

function textOf(r: CallToolResult): string {
  const t = r.content[0];
  return t && t.type === 'text' ? t.text : '';
}

/**
 * The same requests straight to a second `nsccn lsp` on the same index (no MCP hop, no
 * adapter), with the adapter's own connection code: what the adapter adds is the difference.
 */
async function lspDirect(cli: string, root: string, chosen: Array<DocumentedFunction & { id: string }>): Promise<Record<string, number[]>> {
  const child = new LspChild({ root, command: { command: process.execPath, args: [cli, 'lsp', '--stdio'] }, initializationOptions: { embeddings: { model: 'none' } }, log: () => {} });
  const out: Record<string, number[]> = { search_and_rank: [], read_skeleton: [], trace_causal_path: [], open_surgical_window: [] };
  try {
    await child.start();
    while ((await child.request<StatusResponse>(Methods.status, {})).state !== 'ready') await new Promise((r) => setTimeout(r, 250));
    const timed = async (tool: string, method: string, params: unknown) => {
      const t0 = performance.now();
      await child.request(method, params);
      out[tool].push(performance.now() - t0);
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const f of chosen) {
        await timed('search_and_rank', Methods.search, { query: f.query, limit: 10 });
        await timed('read_skeleton', Methods.skeleton, { uri: pathToFileURL(path.join(root, f.path)).href });
        await timed('trace_causal_path', Methods.trace, { id: f.id, direction: 'down', depth: 3 });
        await timed('open_surgical_window', Methods.window, { id: f.id, contextLines: 3 });
      }
    }
    return out;
  } finally {
    await child.stop();
  }
}

export async function benchMcp(): Promise<Record<string, unknown>> {
  const stdlib = pythonStdlib();
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-mcp-')));
  const root = path.join(tmp, 'stdlib');
  const cli = path.join(__dirname, '..', 'src', 'cli', 'main.js');
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--root', root, '--model', 'none'], stderr: 'ignore' });
  const client = new Client({ name: 'nsccn-bench', version: '0' });
  try {
    copyStdlib(stdlib, root);
    const candidates = listDocumentedFunctions(root).filter(usableQuestion);
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 })) as CallToolResult;
      if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${textOf(r)}`);
      return r;
    };

    const started = performance.now();
    for (;;) {
      const s = await call('index_status', {});
      if ((s.structuredContent as { state: string }).state === 'ready') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const indexSeconds = (performance.now() - started) / 1000;
    const status = (await call('index_status', {})).structuredContent as { files: number; entities: number; edges: number };

    // The 50 functions: a seeded sample of the eval's documented functions that the index holds.
    const chosen: Array<DocumentedFunction & { id: string }> = [];
    for (const f of sample(candidates, FUNCTIONS * 3, 7)) {
      if (chosen.length >= FUNCTIONS) break;
      const id = `${f.kind === 'function' ? 'func' : 'method'}:${f.path}:${f.qname}`;
      const r = await client.callTool({ name: 'open_surgical_window', arguments: { entity_id: id, context_lines: 0 } });
      if (!r.isError) chosen.push({ ...f, id });
    }

    // 1. Latency.
    const times: Record<string, number[]> = { search_and_rank: [], read_skeleton: [], trace_causal_path: [], open_surgical_window: [] };
    const timed = async (name: string, args: Record<string, unknown>) => {
      const t0 = performance.now();
      await call(name, args);
      times[name].push(performance.now() - t0);
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (const f of chosen) {
        await timed('search_and_rank', { query: f.query, limit: 10 });
        await timed('read_skeleton', { file_path: f.path });
        await timed('trace_causal_path', { entity_id: f.id, direction: 'down', depth: 3 });
        await timed('open_surgical_window', { entity_id: f.id });
      }
    }
    const direct = await lspDirect(cli, root, chosen);
    const latency = Object.entries(times).map(([tool, xs]) => {
      xs.sort((a, b) => a - b);
      const d = direct[tool].sort((a, b) => a - b);
      return {
        tool,
        n: xs.length,
        p50ms: round(percentile(xs, 50)),
        p99ms: round(percentile(xs, 99)),
        targetMs: TARGETS_MS[tool],
        lspOnlyP50ms: round(percentile(d, 50)),
        lspOnlyP99ms: round(percentile(d, 99)),
      };
    });

    // 2. Tokens: tools vs whole files.
    const ratios: number[] = [];
    const perFunction: Array<{ id: string; toolTokens: number; fileTokens: number }> = [];
    const fileTokens = new Map<string, number>();
    const tokensOfFile = (rel: string) => {
      if (!fileTokens.has(rel)) fileTokens.set(rel, countTokens(fs.readFileSync(path.join(root, rel), 'utf8')));
      return fileTokens.get(rel)!;
    };
    for (const f of chosen) {
      const down = await call('trace_causal_path', { entity_id: f.id, direction: 'down', depth: 1 });
      const up = await call('trace_causal_path', { entity_id: f.id, direction: 'up', depth: 1 });
      const toolTokens = countTokens(textOf(down)) + countTokens(textOf(up));
      const t = up.structuredContent as unknown as TraceResult;
      const files = new Set([f.path]);
      for (const e of t.adjacency[t.root] ?? []) {
        const file = t.entities[e.target]?.file;
        if (e.resolved && file) files.add(file);
      }
      const whole = [...files].reduce((a, rel) => a + tokensOfFile(rel), 0);
      ratios.push(toolTokens / whole);
      perFunction.push({ id: f.id, toolTokens, fileTokens: whole });
    }
    ratios.sort((a, b) => a - b);

    // 3. build_context under budgets.
    const contexts: Array<{ budget: number; usedMin: number; usedMedian: number; usedMax: number; over: number; p50ms: number }> = [];
    for (const budget of BUDGETS) {
      const used: number[] = [];
      const ms: number[] = [];
      for (const f of chosen.slice(0, CONTEXT_QUERIES)) {
        const t0 = performance.now();
        const r = await call('build_context', { query: f.query, token_budget: budget });
        ms.push(performance.now() - t0);
        used.push(countTokens(textOf(r)));
      }
      used.sort((a, b) => a - b);
      ms.sort((a, b) => a - b);
      contexts.push({
        budget,
        usedMin: used[0],
        usedMedian: percentile(used, 50),
        usedMax: used[used.length - 1],
        over: used.filter((u) => u > budget).length,
        p50ms: round(percentile(ms, 50)),
      });
    }

    const result = {
      corpus: { root: stdlib, files: status.files, entities: status.entities, edges: status.edges, coldIndexSeconds: round(indexSeconds, 1) },
      functions: chosen.length,
      rounds: ROUNDS,
      latency,
      tokens: {
        question: 'what does X call, what calls it, and what is its signature',
        tools: 'trace_causal_path down + up, depth 1 (text content)',
        files: "X's file + every file holding a caller of X (whole text)",
        medianRatio: round(percentile(ratios, 50), 4),
        p90Ratio: round(percentile(ratios, 90), 4),
        medianToolTokens: percentile(perFunction.map((p) => p.toolTokens).sort((a, b) => a - b), 50),
        medianFileTokens: percentile(perFunction.map((p) => p.fileTokens).sort((a, b) => a - b), 50),
      },
      buildContext: contexts,
    };
    console.table(latency);
    console.table([result.tokens]);
    console.table(contexts);
    return result;
  } finally {
    await client.close().catch(() => {});
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
