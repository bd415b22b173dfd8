// End to end through MCP: the SDK's own Client spawns the built `nsccn mcp` on fixture copies
// and calls every tool; the answers are checked against the fixtures' known graphs (the same
// edges test/engine-graph.test.ts and test/causal.test.ts assert on the engine).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, type SearchResult, type Skeleton, type TraceResult, type Window } from '../protocol';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { countTokens } from '../server/src/engine/skeleton/tokens';
import { copyShop, tempDir } from './helpers/lsp-client';
import { startMcp, text, waitReady, type McpSession } from './helpers/mcp';
import { FIXTURES } from './helpers/workspace';

let shop: McpSession;
let causal: McpSession;
const cleanups: Array<() => void> = [];

beforeAll(async () => {
  const a = tempDir('nsccn-mcp-shop-');
  copyShop(a.dir);
  const b = tempDir('nsccn-mcp-causal-');
  fs.cpSync(path.join(FIXTURES, 'causal'), b.dir, { recursive: true });
  cleanups.push(a.cleanup, b.cleanup);
  [shop, causal] = await Promise.all([startMcp(a.dir), startMcp(b.dir)]);
  await Promise.all([waitReady(shop), waitReady(causal)]);
});

afterAll(async () => {
  await Promise.all([shop?.close(), causal?.close()]);
  cleanups.forEach((c) => c());
});

describe('listing', () => {
  it('lists the six tools, each with a schema written for a model', async () => {
    const { tools } = await shop.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['search_and_rank', 'read_skeleton', 'trace_causal_path', 'open_surgical_window', 'index_status', 'build_context']);
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(80);
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    const trace = tools.find((t) => t.name === 'trace_causal_path')!;
    expect((trace.inputSchema.properties!.direction as { enum: string[] }).enum).toEqual(['up', 'down', 'state', 'errors', 'config']);
    expect(trace.inputSchema.required).toEqual(['entity_id']);
  });

  it('lists a skeleton resource per indexed file and a template, and reads one', async () => {
    const { resourceTemplates } = await shop.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['nsccn://skeleton/{path}']);
    const { resources } = await shop.client.listResources();
    expect(resources.map((r) => r.name)).toEqual([
      'shop/__init__.py',
      'shop/base.py',
      'shop/broken.py',
      'shop/models.py',
      'shop/services/__init__.py',
      'shop/services/checkout.py',
      'shop/services/payments.py',
    ]);
    const read = await shop.client.readResource({ uri: 'nsccn://skeleton/shop/services/payments.py' });
    const body = (read.contents[0] as { text: string }).text;
    expect(body).toContain(' 4| def charge(user, amount):');
    expect(body).not.toContain('_gateway().send(amount)'); // bodies elided
    // A percent-encoded path names the same file.
    const encoded = await shop.client.readResource({ uri: 'nsccn://skeleton/shop%2Fservices%2Fpayments.py' });
    expect((encoded.contents[0] as { text: string }).text).toBe(body);
  });

  it('refuses a resource outside the root', async () => {
    await expect(shop.client.readResource({ uri: 'nsccn://skeleton/..%2F..%2Fetc%2Fpasswd' })).rejects.toThrow(/outside the workspace root/);
  });
});

describe('search_and_rank', () => {
  it('ranks the card charge first and answers with ids, file:line and signatures', async () => {
    const r = await shop.call('search_and_rank', { query: 'charge card', limit: 3 });
    const { results } = r.structuredContent as { results: SearchResult[] };
    expect(results[0].id).toBe('func:shop/services/payments.py:charge');
    expect(results.length).toBeLessThanOrEqual(3);
    expect(text(r).split('\n')[0]).toBe('func:shop/services/payments.py:charge  shop/services/payments.py:4  def charge(user, amount)');
  });

  it('filters by kind and path (relative or absolute inside the root)', async () => {
    const r = await shop.call('search_and_rank', { query: 'order', kind: 'method', path: 'shop/models.py' });
    const { results } = r.structuredContent as { results: SearchResult[] };
    expect(results.length).toBeGreaterThan(0);
    expect(results.every((x) => x.kind === 'method' && x.file === 'shop/models.py')).toBe(true);
  });

  it('takes a traceback and puts the frames first, innermost first', async () => {
    const traceback = [
      'Traceback (most recent call last):',
      '  File "/srv/app/shop/services/checkout.py", line 12, in checkout',
      '    pay.charge(user, order.total())',
      '  File "/srv/app/shop/services/payments.py", line 6, in charge',
      '    validate_amount(amount)',
      '  File "/srv/app/shop/services/payments.py", line 11, in validate_amount',
      '    raise ValueError("amount must be positive")',
      'ValueError: amount must be positive',
    ].join('\n');
    const progress: string[] = [];
    const r = (await shop.client.callTool({ name: 'search_and_rank', arguments: { query: traceback, limit: 5 } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    })) as CallToolResult;
    // The server's answer already leads with the functions holding the frames' lines: no lookups.
    expect(progress).toEqual([]);
    const ids = (r.structuredContent as { results: SearchResult[] }).results.map((x) => x.id);
    expect(ids.slice(0, 3)).toEqual([
      'func:shop/services/payments.py:validate_amount',
      'func:shop/services/payments.py:charge',
      'func:shop/services/checkout.py:checkout',
    ]);
    expect(text(r)).toContain('[traceback payments.py:11]');
  });

  it('looks a frame up by name when its line is not where the function is now (an older traceback)', async () => {
    // `charge` is at lines 4–7 today; the report's code had it further down.
    const traceback = ['Traceback (most recent call last):', '  File "/srv/app/shop/services/payments.py", line 40, in charge', '    validate_amount(amount)', 'ValueError: amount must be positive'].join('\n');
    const progress: string[] = [];
    const r = (await shop.client.callTool({ name: 'search_and_rank', arguments: { query: traceback, limit: 5 } }, undefined, {
      onprogress: (p) => progress.push(p.message ?? ''),
    })) as CallToolResult;
    expect(progress.slice(0, 1)).toEqual(['looking up frame charge']);
    expect((r.structuredContent as { results: SearchResult[] }).results[0].id).toBe('func:shop/services/payments.py:charge');
    expect(text(r)).toContain('[traceback payments.py:40]');
  });
});

describe('read_skeleton', () => {
  it('returns the skeleton with source line numbers', async () => {
    const r = await shop.call('read_skeleton', { file_path: 'shop/services/checkout.py' });
    const s = r.structuredContent as unknown as Skeleton;
    expect(s.file).toBe('shop/services/checkout.py');
    expect(s.skeletonTokens).toBeLessThan(s.originalTokens);
    expect(s.entities.map((e) => e.id)).toContain('func:shop/services/checkout.py:checkout');
    expect(text(r)).toContain(' 7| def checkout(user: User, skus):');
    expect(text(r)).not.toContain('order.add_item(sku)');
  });
});

describe('trace_causal_path', () => {
  it('down: what checkout calls, with the call-site lines', async () => {
    const r = await shop.call('trace_causal_path', { entity_id: 'func:shop/services/checkout.py:checkout', depth: 1 });
    const t = r.structuredContent as unknown as TraceResult;
    expect(t.adjacency[t.root].map((e) => `${e.target}@${e.line}`)).toEqual([
      'method:shop/models.py:Order.__init__@9',
      'method:shop/models.py:Order.add_item@11',
      'func:shop/services/payments.py:charge@12',
      'method:shop/models.py:Order.total@12',
      'func:shop/base.py:_write@13',
    ]);
    expect(text(r)).toContain('  → CALLS func:shop/services/payments.py:charge (line 12)  def charge(user, amount)');
  });

  it('up: who calls charge', async () => {
    const r = await shop.call('trace_causal_path', { entity_id: 'func:shop/services/payments.py:charge', direction: 'up', depth: 1 });
    const t = r.structuredContent as unknown as TraceResult;
    expect(t.adjacency[t.root].map((e) => e.target)).toEqual(['func:shop/services/checkout.py:checkout']);
    expect(text(r)).toContain('← CALLS func:shop/services/checkout.py:checkout');
  });

  it('errors, state and config on the causal fixture', async () => {
    const errors = await causal.call('trace_causal_path', { entity_id: 'method:service/core.py:Service.charge', direction: 'errors' });
    expect((errors.structuredContent as unknown as TraceResult).escaping).toEqual(['class:service/errors.py:Declined', 'class:service/errors.py:NotFound']);
    expect(text(errors)).toContain('can escape: class:service/errors.py:Declined, class:service/errors.py:NotFound');

    const state = await causal.call('trace_causal_path', { entity_id: 'attr:service/core.py:Service.cache', direction: 'state' });
    const mutators = (state.structuredContent as unknown as TraceResult).adjacency['attr:service/core.py:Service.cache'].map((e) => e.target).sort();
    expect(mutators).toEqual(['func:service/core.py:tune', 'method:service/core.py:Service.__init__', 'method:service/core.py:Service.charge']);

    const config = await causal.call('trace_causal_path', { entity_id: 'method:service/core.py:Service.debug', direction: 'config' });
    const keys = (config.structuredContent as unknown as TraceResult).adjacency['method:service/core.py:Service.debug'].map((e) => e.target).sort();
    expect(keys).toEqual(['config:NSCCN_DEBUG', 'global:service/settings.py:DEBUG']);
  });

  it('read_skeleton takes a module by its dotted name', async () => {
    const r = await shop.call('read_skeleton', { file_path: 'shop.services.payments' });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toMatch(/^shop\/services\/payments\.py /);
  });

  it('takes the names an agent copies from a traceback or an import, not only ids', async () => {
    for (const name of ['shop.services.payments.charge', 'shop/services/payments.py:charge', 'charge']) {
      const r = await shop.call('trace_causal_path', { entity_id: name, depth: 1 });
      expect(r.isError, name).toBeFalsy();
      expect((r.structuredContent as unknown as TraceResult).root).toBe('func:shop/services/payments.py:charge');
    }
  });

  it('an unknown id is a tool error naming the closest ids', async () => {
    const r = await shop.call('trace_causal_path', { entity_id: 'func:shop/services/checkout.py:checkou' });
    expect(r.isError).toBe(true);
    const err = (r.structuredContent as { error: { code: number; suggestions: string[] } }).error;
    expect(err.code).toBe(ErrorCodes.UnknownEntity);
    expect(err.suggestions[0]).toBe('func:shop/services/checkout.py:checkout');
    expect(text(r)).toMatch(/did you mean func:shop\/services\/checkout.py:checkout/);
    expect(text(r)).toMatch(/next: Call the tool again with one of the closest ids/);
  });

  it('a line past the end of a file is a tool error that says so, with no look-alike ids to try', async () => {
    const r = await shop.call('open_surgical_window', { entity_id: 'shop/services/payments.py:9999' });
    expect(r.isError).toBe(true);
    const err = (r.structuredContent as { error: { code: number; suggestions?: string[] } }).error;
    expect(err.code).toBe(ErrorCodes.UnknownEntity);
    expect(err.suggestions).toBeUndefined();
    expect(text(r)).toMatch(/^error: unknown entity shop\/services\/payments\.py:9999: shop\/services\/payments\.py has \d+ lines\nnext: Find the entity with search_and_rank/);
  });
});

describe('open_surgical_window', () => {
  it('shows the entity with line numbers and the context asked for', async () => {
    const r = await shop.call('open_surgical_window', { entity_id: 'func:shop/services/payments.py:charge', context_lines: 1 });
    const w = r.structuredContent as unknown as Window;
    expect([w.start, w.entityStart, w.entityEnd, w.end]).toEqual([3, 4, 7, 8]);
    expect(text(r)).toContain('4 | def charge(user, amount):');
    expect(text(r).split('\n')[0]).toBe('func:shop/services/payments.py:charge  shop/services/payments.py:4-7 (shown 3-8)');
  });
});

describe('index_status', () => {
  it('says the index is ready and what it holds', async () => {
    const r = await shop.call('index_status');
    const s = r.structuredContent as { state: string; files: number; restarts: number };
    expect(s.state).toBe('ready');
    expect(s.files).toBe(7);
    expect(text(r)).toMatch(/^ready: 7 files/);
  });
});

describe('build_context', () => {
  it('packs hits, docstrings, callers, callees and errors, most useful first, under the budget', async () => {
    const r = await shop.call('build_context', { query: 'charge the card at checkout' });
    const c = r.structuredContent as { tokens: number; budget: number; hits: Array<{ id: string; calls?: string[]; calledBy?: string[]; raises?: string[]; doc?: string }> };
    expect(c.budget).toBe(4000);
    expect(c.tokens).toBe(countTokens(text(r)));
    const charge = c.hits.find((h) => h.id === 'func:shop/services/payments.py:charge')!;
    expect(charge.calledBy).toEqual(['func:shop/services/checkout.py:checkout']);
    expect(charge.calls).toEqual([
      'func:shop/services/payments.py:validate_amount',
      'func:shop/services/payments.py:_gateway',
      'method:shop/services/payments.py:_gateway.Gateway.send',
    ]);
    expect(charge.raises).toEqual(['ValueError']);
    expect(charge.doc).toBe('"""Charge a user\'s card."""');
    expect(c.hits.slice(0, 2).map((h) => h.id).sort()).toEqual(['func:shop/services/checkout.py:checkout', 'func:shop/services/payments.py:charge']);
  });

  it('is never over a small budget and keeps the heads of the best hits first', async () => {
    for (const budget of [100, 150, 250, 400]) {
      const r = await shop.call('build_context', { query: 'charge the card at checkout', token_budget: budget });
      expect(countTokens(text(r))).toBeLessThanOrEqual(budget);
      const hits = (r.structuredContent as { hits: Array<{ id: string }> }).hits;
      expect(hits.length).toBeGreaterThan(0);
      expect(['func:shop/services/checkout.py:checkout', 'func:shop/services/payments.py:charge']).toContain(hits[0].id);
    }
  });

  it('says so when nothing matches', async () => {
    const r = await shop.call('build_context', { query: 'zzqxv wibblefrotz' });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as { hits: unknown[] }).hits).toEqual([]);
    expect(text(r)).toMatch(/^no hits for the query/);
  });

  it('reports progress when the client sends a progress token', async () => {
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    await shop.client.callTool({ name: 'build_context', arguments: { query: 'charge card' } }, undefined, {
      onprogress: (p) => seen.push(p),
    });
    expect(seen.length).toBeGreaterThan(2);
    expect(seen[0].message).toBe('searching');
    expect(seen[1].message).toMatch(/^gathering (func|method|class):/);
    for (let i = 1; i < seen.length; i++) expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
  });
});

describe('bad arguments', () => {
  it('answers each with a tool error that names the argument', async () => {
    for (const [tool, args, word] of [
      ['search_and_rank', {}, 'query'],
      ['search_and_rank', { query: 'x', limit: 0 }, 'limit'],
      ['search_and_rank', { query: 'x', kind: 'gadget' }, 'kind'],
      ['search_and_rank', { query: 'x', colour: 'red' }, 'colour'],
      ['read_skeleton', { file_path: 42 }, 'file_path'],
      ['read_skeleton', { file_path: 'shop/nope.py' }, 'no file'],
      ['trace_causal_path', { entity_id: ' ' }, 'entity_id'],
      ['trace_causal_path', { entity_id: '../elsewhere/app.py:main' }, 'outside the workspace root'],
      ['trace_causal_path', { entity_id: '/etc/app.py::test_main' }, 'outside the workspace root'],
      ['trace_causal_path', { entity_id: 'func:shop/services/payments.py:charge', direction: 'sideways' }, 'direction'],
      ['trace_causal_path', { entity_id: 'func:shop/services/payments.py:charge', depth: 99 }, 'depth'],
      ['open_surgical_window', { entity_id: 'func:shop/services/payments.py:charge', context_lines: -1 }, 'context_lines'],
      ['build_context', { query: 'x', token_budget: 5 }, 'token_budget'],
    ] as const) {
      const r = await shop.call(tool, args as Record<string, unknown>);
      expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r)).toContain(word);
      expect(text(r)).toMatch(/\nnext: /);
    }
    // The server is still fine.
    expect((await shop.call('index_status')).isError).toBeFalsy();
  });

  it('an unknown tool is a protocol error listing the tools', async () => {
    await expect(shop.call('grep_everything', {})).rejects.toThrow(/search_and_rank/);
  });
});
