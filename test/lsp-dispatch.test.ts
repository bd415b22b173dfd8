// End to end: "may call" over stdio, on a copy of fixtures/dispatch (its README states the
// graph). The real language server: call hierarchy items reached only by dispatch say so in
// their detail, textDocument/implementation lists a method's overrides, references leave
// dispatch sites out, nsccn/trace marks them (and drops them on dispatch: false). Then the MCP
// adapter's trace tool, which renders the same edges as text.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAY_CALL_LABEL, Methods, type TraceResult } from '../protocol';
import { LspClient, REPO, fileUri, tempDir } from './helpers/lsp-client';
import type { CallItem, LspRange } from './helpers/lsp-text';
import { startMcp, text, waitReady } from './helpers/mcp';

let client: LspClient;
let root: string;
let cleanup: () => void;

const uri = (rel: string) => fileUri(path.join(root, rel));
/** Position of `needle` in a file (0-based line, character). */
function find(rel: string, needle: string): { line: number; character: number } {
  const lines = fs.readFileSync(path.join(root, rel), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  if (line < 0) throw new Error(`${needle} not in ${rel}`);
  return { line, character: lines[line].indexOf(needle) };
}
const prepare = async (rel: string, needle: string) =>
  (await client.request<CallItem[]>('textDocument/prepareCallHierarchy', { textDocument: { uri: uri(rel) }, position: find(rel, needle) }))[0];
const outgoing = (item: CallItem) => client.request<Array<{ to: CallItem; fromRanges: LspRange[] }>>('callHierarchy/outgoingCalls', { item });
const incoming = (item: CallItem) => client.request<Array<{ from: CallItem; fromRanges: LspRange[] }>>('callHierarchy/incomingCalls', { item });
const mayCall = (detail: string | undefined) => !!detail?.startsWith(MAY_CALL_LABEL);

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir('nsccn-lsp-dispatch-'));
  fs.cpSync(path.join(REPO, 'fixtures', 'dispatch'), root, { recursive: true, filter: (s) => path.basename(s) !== '.nsccn' });
  client = await LspClient.start({ folders: [root] });
  await client.waitReady();
});

afterAll(async () => {
  expect(await client.stop()).toBe(0);
  cleanup();
});

describe('call hierarchy', () => {
  it('outgoing calls of View.as_view: the method it names, and the overrides as "may call"', async () => {
    const calls = await outgoing(await prepare('web/views.py', 'as_view'));
    const line = find('web/views.py', 'self.dispatch_request()').line;
    expect(calls.map((c) => [c.to.uri.slice(c.to.uri.lastIndexOf('/') + 1), c.to.name, mayCall(c.to.detail)]).sort()).toEqual([
      ['routes.py', 'dispatch_request', true],
      ['routes.py', 'dispatch_request', true],
      ['views.py', 'dispatch_request', false],
      ['views.py', 'dispatch_request', true],
    ]);
    // Every item's call site is the one call in as_view.
    expect(calls.every((c) => c.fromRanges.every((r) => r.start.line === line))).toBe(true);
    const certain = calls.find((c) => !mayCall(c.to.detail))!;
    expect(certain.to.detail).toBe('def dispatch_request(self)');
    expect(calls.find((c) => mayCall(c.to.detail))!.to.detail).toBe(`${MAY_CALL_LABEL} · def dispatch_request(self)`);
  });

  it('incoming calls: the base method is called for certain, an override only "may" be', async () => {
    const base = await prepare('web/handlers.py', 'handle(self, data)');
    expect((await incoming(base)).map((c) => [c.from.name, mayCall(c.from.detail)])).toEqual([['serve', false]]);
    const xml = await client.request<CallItem[]>('textDocument/prepareCallHierarchy', {
      textDocument: { uri: uri('web/handlers.py') },
      position: { line: find('web/handlers.py', 'return "xml"').line - 1, character: 8 },
    });
    expect(xml[0].name).toBe('handle');
    const callers = await incoming(xml[0]);
    expect(callers.map((c) => [c.from.name, mayCall(c.from.detail)])).toEqual([['serve', true]]);
    expect(callers[0].from.detail).toBe(`${MAY_CALL_LABEL} · def serve(handler: BaseHandler, data)`);
  });
});

describe('implementation and references', () => {
  it('textDocument/implementation on BaseHandler.handle lists its three overrides', async () => {
    const locs = await client.request<Array<{ uri: string; range: LspRange }>>('textDocument/implementation', {
      textDocument: { uri: uri('web/handlers.py') },
      position: find('web/handlers.py', 'handle(self, data)'),
    });
    const lines = fs.readFileSync(path.join(root, 'web/handlers.py'), 'utf8').split('\n');
    const owners = locs.map((l) => {
      let i = l.range.start.line;
      while (i > 0 && !lines[i].startsWith('class ')) i--;
      return lines[i];
    });
    expect(owners.sort()).toEqual(['class JsonHandler(BaseHandler):', 'class PrettyJsonHandler(JsonHandler):', 'class XmlHandler(BaseHandler):']);
  });

  it('references of an override leave out the calls that name the base method', async () => {
    const xmlLine = find('web/handlers.py', 'return "xml"').line - 1;
    const refs = await client.request<Array<{ uri: string }> | null>('textDocument/references', {
      textDocument: { uri: uri('web/handlers.py') },
      position: { line: xmlLine, character: 8 },
      context: { includeDeclaration: false },
    });
    expect(refs ?? []).toEqual([]);
  });
});

describe('nsccn/trace', () => {
  it('marks dispatch edges, and leaves them out on dispatch: false', async () => {
    const id = 'method:app/server.py:Server.stop';
    const t = await client.request<TraceResult>(Methods.trace, { id, direction: 'down', depth: 1 });
    expect(t.adjacency[id].filter((e) => e.resolved).map((e) => [e.target, e.dispatch ?? false])).toEqual([
      ['method:web/handlers.py:BaseHandler.close', false],
      ['method:web/handlers.py:XmlHandler.close', true],
    ]);
    const certain = await client.request<TraceResult>(Methods.trace, { id, direction: 'down', depth: 1, dispatch: false });
    expect(certain.adjacency[id].filter((e) => e.resolved).map((e) => e.target)).toEqual(['method:web/handlers.py:BaseHandler.close']);
  });

  it('a dispatch parameter that is not a boolean is a clear error', async () => {
    await expect(client.request(Methods.trace, { id: 'method:app/server.py:Server.stop', direction: 'down', dispatch: 'no' })).rejects.toThrow(/dispatch/);
  });
});

describe('the MCP adapter', () => {
  it('trace_causal_path shows [may call: override], and dispatch: false drops it', async () => {
    const s = await startMcp(root);
    try {
      await waitReady(s);
      const marked = text(await s.call('trace_causal_path', { entity_id: 'method:app/server.py:Server.stop', depth: 1 }));
      expect(marked).toMatch(/→ CALLS method:web\/handlers\.py:XmlHandler\.close \(line \d+\)\s+def close\(self\) \[may call: override\]/);
      expect(marked).toMatch(/→ CALLS method:web\/handlers\.py:BaseHandler\.close \(line \d+\)\s+def close\(self\)\n/);
      const plain = text(await s.call('trace_causal_path', { entity_id: 'method:app/server.py:Server.stop', depth: 1, dispatch: false }));
      expect(plain).not.toContain('XmlHandler');
      const bad = await s.call('trace_causal_path', { entity_id: 'method:app/server.py:Server.stop', dispatch: 'yes' });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain("'dispatch' must be true or false");
    } finally {
      await s.close();
    }
  });
});
