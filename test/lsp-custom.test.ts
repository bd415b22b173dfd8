// End to end: the nsccn/* requests with their errors, bad input of every kind (the server must
// answer with a clear JSON-RPC error and keep running), several workspace folders, and a clean
// shutdown that closes every index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, Methods, TRACE_MAX_DEPTH, type SearchResponse, type SkeletonResponse, type StatusResponse, type TraceResult, type WindowResponse } from '../protocol';
import { LspClient, copyShop, fileUri, sleep, tempDir, writeFiles } from './helpers/lsp-client';

let client: LspClient;
let root: string;
let cleanup: () => void;
const uri = (rel: string) => fileUri(path.join(root, rel));

/** The JSON-RPC error a request fails with. */
async function rpcError(method: string, params: unknown): Promise<{ code: number; message: string; data?: { suggestions?: string[] } }> {
  try {
    await client.request(method, params);
  } catch (e) {
    const err = e as { code: number; message: string; data?: { suggestions?: string[] } };
    return { code: err.code, message: err.message, data: err.data };
  }
  throw new Error(`${method} ${JSON.stringify(params)} succeeded; an error was expected`);
}

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir('nsccn-lsp-custom-'));
  copyShop(root);
  writeFiles(root, { 'README.txt': 'not code\n' });
  client = await LspClient.start({ folders: [root] });
  await client.waitReady();
});

afterAll(async () => {
  if (client.running) await client.stop();
  cleanup();
});

describe('nsccn/search', () => {
  it('ranks entities and gives each result its URI', async () => {
    const res = await client.request<SearchResponse & { results: Array<{ uri: string }> }>(Methods.search, { query: 'charge card', limit: 3 });
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results.length).toBeLessThanOrEqual(3);
    expect(res.results[0].id).toBe('func:shop/services/payments.py:charge');
    expect(res.results[0].uri).toBe(uri('shop/services/payments.py'));
    expect(res.streams).toContain('lexical');
  });

  it('filters by kind and path', async () => {
    const res = await client.request<SearchResponse>(Methods.search, { query: 'order', kinds: ['method'], paths: ['shop/models.py'] });
    expect(res.results.length).toBeGreaterThan(0);
    expect(res.results.every((r) => r.kind === 'method' && r.file === 'shop/models.py')).toBe(true);
  });

  it('rejects bad params with InvalidParams naming the field', async () => {
    for (const [params, field] of [
      [{}, 'query'],
      [{ query: '   ' }, 'query'],
      [{ query: 42 }, 'query'],
      [{ query: 'x', limit: 0 }, 'limit'],
      [{ query: 'x', limit: 1.5 }, 'limit'],
      [{ query: 'x', kinds: ['gadget'] }, 'kinds'],
      [{ query: 'x', paths: 'shop' }, 'paths'],
      [null, 'params'],
    ] as const) {
      const err = await rpcError(Methods.search, params);
      expect(err.code).toBe(ErrorCodes.InvalidParams);
      expect(err.message).toContain(field);
    }
  });
});

describe('nsccn/skeleton', () => {
  it('returns the skeleton of a file with its URI', async () => {
    const res = await client.request<SkeletonResponse>(Methods.skeleton, { uri: uri('shop/services/checkout.py') });
    expect(res.uri).toBe(uri('shop/services/checkout.py'));
    expect(res.file).toBe('shop/services/checkout.py');
    expect(res.text).toContain('def checkout(user: User, skus)');
    expect(res.text).not.toContain('order.add_item(sku)'); // bodies elided
    expect(res.skeletonTokens).toBeLessThan(res.originalTokens);
    expect(res.entities.map((e) => e.id)).toContain('func:shop/services/checkout.py:cancel');
  });

  it('reflects an unsaved buffer', async () => {
    const u = uri('shop/services/payments.py');
    const text = fs.readFileSync(path.join(root, 'shop/services/payments.py'), 'utf8') + '\n\ndef refund(user):\n    """Give it back."""\n    return charge(user, -1)\n';
    await client.open(u, text, 1);
    try {
      const res = await client.request<SkeletonResponse>(Methods.skeleton, { uri: u });
      expect(res.text).toContain('def refund(user)');
    } finally {
      await client.close(u);
    }
  });

  it('errors: missing uri, outside the workspace, not a language file', async () => {
    expect((await rpcError(Methods.skeleton, {})).code).toBe(ErrorCodes.InvalidParams);
    const outside = await rpcError(Methods.skeleton, { uri: 'file:///definitely/elsewhere.py' });
    expect(outside.code).toBe(ErrorCodes.OutsideWorkspace);
    expect(outside.message).toContain('outside');
    expect((await rpcError(Methods.skeleton, { uri: 'untitled:Untitled-1' })).code).toBe(ErrorCodes.OutsideWorkspace);
    expect((await rpcError(Methods.skeleton, { uri: 'not a uri' })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError(Methods.skeleton, { uri: uri('README.txt') })).code).toBe(ErrorCodes.NotIndexed);
  });
});

describe('nsccn/trace', () => {
  it('traces down from an id', async () => {
    const res = await client.request<TraceResult>(Methods.trace, { id: 'func:shop/services/checkout.py:checkout', direction: 'down', depth: 1 });
    expect(res.root).toBe('func:shop/services/checkout.py:checkout');
    expect(res.depth).toBe(1);
    const targets = res.adjacency[res.root].map((e) => e.target);
    expect(targets).toContain('func:shop/services/payments.py:charge');
    expect(Object.keys(res.adjacency)).toEqual([res.root]); // depth 1
  });

  it('traces up from a cursor position', async () => {
    const lines = fs.readFileSync(path.join(root, 'shop/base.py'), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('def touch'));
    const res = await client.request<TraceResult>(Methods.trace, { uri: uri('shop/base.py'), position: { line, character: 10 }, direction: 'up' });
    expect(res.root).toBe('method:shop/base.py:Model.touch');
    expect(res.adjacency[res.root].map((e) => e.target).sort()).toEqual(['method:shop/base.py:Model.save', 'method:shop/models.py:Order.add_item']);
  });

  it('errors: unknown id with suggestions, bad direction, depth out of range, bad relations, bad positions', async () => {
    const unknown = await rpcError(Methods.trace, { id: 'func:shop/services/checkout.py:chekout', direction: 'down' });
    expect(unknown.code).toBe(ErrorCodes.UnknownEntity);
    expect(unknown.data?.suggestions).toContain('func:shop/services/checkout.py:checkout');
    expect((await rpcError(Methods.trace, { id: 'func:shop/services/checkout.py:checkout' })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError(Methods.trace, { id: 'func:shop/services/checkout.py:checkout', direction: 'sideways' })).message).toContain('direction');
    for (const depth of [0, -1, TRACE_MAX_DEPTH + 1, 'deep']) {
      const err = await rpcError(Methods.trace, { id: 'func:shop/services/checkout.py:checkout', direction: 'down', depth });
      expect(err.code).toBe(ErrorCodes.InvalidParams);
      expect(err.message).toContain('depth');
    }
    expect((await rpcError(Methods.trace, { id: 'func:shop/services/checkout.py:checkout', direction: 'down', relations: ['CALLZ'] })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError(Methods.trace, { direction: 'down' })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError(Methods.trace, { uri: uri('shop/base.py'), direction: 'down' })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError(Methods.trace, { uri: uri('shop/base.py'), position: { line: -1, character: 0 }, direction: 'down' })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError(Methods.trace, { uri: uri('shop/base.py'), position: { line: 9999, character: 0 }, direction: 'down' })).code).toBe(ErrorCodes.BadPosition);
    expect((await rpcError(Methods.trace, { uri: 'file:///elsewhere/x.py', position: { line: 0, character: 0 }, direction: 'down' })).code).toBe(ErrorCodes.OutsideWorkspace);
  });
});

describe('nsccn/window', () => {
  it('shows an entity with context and its URI', async () => {
    const res = await client.request<WindowResponse>(Methods.window, { id: 'method:shop/models.py:User.rename', contextLines: 1 });
    expect(res.uri).toBe(uri('shop/models.py'));
    expect(res.code).toContain('def rename(');
    expect(res.start).toBe(res.entityStart - 1);
    expect(res.end).toBe(res.entityEnd + 1);
    // The file's last function: its context ends with the file, not on an empty line past it.
    const last = await client.request<WindowResponse>(Methods.window, { id: 'func:shop/models.py:price_of', contextLines: 1 });
    expect(last.end).toBe(fs.readFileSync(path.join(root, 'shop/models.py'), 'utf8').split('\n').length - 1);
    expect(last.end).toBe(last.entityEnd);
  });

  it('shows the entity at a cursor', async () => {
    const lines = fs.readFileSync(path.join(root, 'shop/services/payments.py'), 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('raise ValueError'));
    const res = await client.request<WindowResponse>(Methods.window, { uri: uri('shop/services/payments.py'), position: { line, character: 8 } });
    expect(res.id).toBe('func:shop/services/payments.py:validate_amount');
  });

  it('errors: unknown id, bad contextLines', async () => {
    expect((await rpcError(Methods.window, { id: 'func:shop/nowhere.py:nothing' })).code).toBe(ErrorCodes.UnknownEntity);
    expect((await rpcError(Methods.window, { id: 'func:shop/models.py:price_of', contextLines: -3 })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError(Methods.window, { id: 12 })).code).toBe(ErrorCodes.InvalidParams);
  });
});

describe('nsccn/status', () => {
  it('reports the index', async () => {
    const s = await client.request<StatusResponse>(Methods.status, {});
    expect(s).toMatchObject({ state: 'ready', files: 7 });
    expect(s.entities).toBeGreaterThan(0);
    expect(s.edges).toBeGreaterThan(0);
  });
});

describe('bad input never takes the server down', () => {
  it('answers malformed standard requests with InvalidParams', async () => {
    expect((await rpcError('textDocument/documentSymbol', {})).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError('textDocument/documentSymbol', { textDocument: { uri: 7 } })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError('textDocument/hover', { textDocument: { uri: uri('shop/base.py') } })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError('textDocument/prepareCallHierarchy', { textDocument: { uri: uri('shop/base.py') }, position: { line: 'x', character: 0 } })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError('callHierarchy/outgoingCalls', {})).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError('callHierarchy/incomingCalls', { item: { uri: uri('shop/base.py') } })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError('codeLens/resolve', { range: {} })).code).toBe(ErrorCodes.InvalidParams);
    expect((await rpcError('workspace/symbol', {})).code).toBe(ErrorCodes.InvalidParams);
  });

  it('answers stale or foreign ids and URIs with their own codes', async () => {
    const item = { name: 'gone', kind: 12, uri: uri('shop/base.py'), range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, selectionRange: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, data: { id: 'func:shop/base.py:gone' } };
    expect((await rpcError('callHierarchy/outgoingCalls', { item })).code).toBe(ErrorCodes.UnknownEntity);
    expect((await rpcError('codeLens/resolve', { range: item.range, data: { uri: uri('shop/base.py'), id: 'func:shop/base.py:gone' } })).code).toBe(
      ErrorCodes.UnknownEntity,
    );
    expect((await rpcError('textDocument/documentSymbol', { textDocument: { uri: 'file:///elsewhere/a.py' } })).code).toBe(ErrorCodes.OutsideWorkspace);
    expect((await rpcError('textDocument/definition', { textDocument: { uri: 'file:///elsewhere/a.py' }, position: { line: 0, character: 0 } })).code).toBe(
      ErrorCodes.OutsideWorkspace,
    );
    // A position past the end of a file is no entity, not a crash.
    expect(await client.request('textDocument/prepareCallHierarchy', { textDocument: { uri: uri('shop/base.py') }, position: { line: 5000, character: 3 } })).toBeNull();
  });

  it('survives garbage notifications and keeps serving', async () => {
    const u = uri('shop/base.py');
    await client.notify('textDocument/didOpen', {});
    await client.notify('textDocument/didOpen', { textDocument: { uri: 'file:///elsewhere/a.py', text: 'x', version: 1 } });
    await client.notify('textDocument/didChange', { textDocument: { uri: uri('shop/never-opened.py'), version: 2 }, contentChanges: [{ text: 'x' }] });
    await client.notify('textDocument/didClose', { textDocument: { uri: 'file:///elsewhere/a.py' } });
    await client.notify('workspace/didChangeWatchedFiles', { changes: 'nope' });
    await client.open(u, fs.readFileSync(path.join(root, 'shop/base.py'), 'utf8'), 1);
    await client.change(u, 2, [{ range: { start: { line: 999, character: 0 }, end: { line: 1000, character: 0 } }, text: 'x' }]);
    await client.change(u, 3, 'not an array' as unknown as unknown[]);
    await client.close(u);
    await client.notify('nsccn/unknownNotification', { x: 1 });
    const unknownMethod = await rpcError('nsccn/nope', {});
    expect(unknownMethod.code).toBe(-32601); // MethodNotFound
    await sleep(100);
    expect(client.running).toBe(true);
    const syms = await client.request<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri: u } });
    expect(syms.map((s) => s.name)).toContain('Model');
  });
});

describe('several workspace folders', () => {
  it('gives each folder its own index, routes by URI and sums the status', async () => {
    const a = tempDir('nsccn-lsp-multi-a-');
    const b = tempDir('nsccn-lsp-multi-b-');
    copyShop(a.dir);
    writeFiles(b.dir, { 'tools/cli.py': 'def run_tool():\n    """Run the maintenance tool."""\n    return helper()\n\n\ndef helper():\n    return 1\n' });
    const c = await LspClient.start({ folders: [a.dir, b.dir] });
    try {
      const s = await c.waitReady();
      expect(s.files).toBe(8);
      expect(fs.existsSync(path.join(a.dir, '.nsccn', 'index.db'))).toBe(true);
      expect(fs.existsSync(path.join(b.dir, '.nsccn', 'index.db'))).toBe(true);
      const syms = await c.request<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri: fileUri(path.join(b.dir, 'tools/cli.py')) } });
      expect(syms.map((x) => x.name)).toEqual(['run_tool', 'helper']);
      const found = await c.request<Array<{ name: string; location: { uri: string } }>>('workspace/symbol', { query: 'run_tool' });
      expect(found[0].location.uri).toBe(fileUri(path.join(b.dir, 'tools/cli.py')));
      // Ranked across folders once every folder's vectors are in (until then the answer says it is incomplete).
      let search!: SearchResponse;
      await c.eventually(async () => !(search = await c.request<SearchResponse>(Methods.search, { query: 'charge maintenance tool', limit: 10 })).incomplete, 30_000, 'complete search');
      const uris = new Set(search.results.map((r) => path.dirname(new URL((r as { uri: string }).uri).pathname).split(path.sep).slice(0, 3).join(path.sep)));
      expect(uris.size, JSON.stringify(search.results.map((r) => [r.id, r.score, r.ranks]))).toBe(2);
      const w = await c.request<WindowResponse>(Methods.window, { id: 'func:tools/cli.py:helper' });
      expect(w.uri).toBe(fileUri(path.join(b.dir, 'tools/cli.py')));
      expect((await c.request<TraceResult>(Methods.trace, { id: 'func:tools/cli.py:helper', direction: 'up' })).adjacency['func:tools/cli.py:helper'][0].target).toBe(
        'func:tools/cli.py:run_tool',
      );
    } finally {
      expect(await c.stop()).toBe(0);
      a.cleanup();
      b.cleanup();
    }
  });

  it('follows workspace/didChangeWorkspaceFolders', async () => {
    const a = tempDir('nsccn-lsp-fold-a-');
    const b = tempDir('nsccn-lsp-fold-b-');
    copyShop(a.dir);
    writeFiles(b.dir, { 'extra.py': 'def added_later():\n    return 1\n' });
    const c = await LspClient.start({ folders: [a.dir] });
    try {
      await c.waitReady();
      const bUri = fileUri(path.join(b.dir, 'extra.py'));
      await c.notify('workspace/didChangeWorkspaceFolders', { event: { added: [{ uri: fileUri(b.dir), name: 'b' }], removed: [] } });
      await c.eventually(async () => (await c.status()).files === 8 && (await c.status()).state === 'ready', 10_000, 'added folder indexed');
      const syms = await c.request<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri: bUri } });
      expect(syms.map((x) => x.name)).toEqual(['added_later']);
      await c.notify('workspace/didChangeWorkspaceFolders', { event: { added: [], removed: [{ uri: fileUri(a.dir), name: 'a' }] } });
      await c.eventually(async () => (await c.status()).files === 1, 10_000, 'removed folder dropped');
      try {
        await c.request('textDocument/documentSymbol', { textDocument: { uri: fileUri(path.join(a.dir, 'shop/base.py')) } });
        throw new Error('expected OutsideWorkspace');
      } catch (e) {
        expect((e as { code: number }).code).toBe(ErrorCodes.OutsideWorkspace);
      }
    } finally {
      expect(await c.stop()).toBe(0);
      a.cleanup();
      b.cleanup();
    }
  });
});

describe('settings and lifecycle', () => {
  it('answers requests while the initial index run is still going', async () => {
    const a = tempDir('nsccn-lsp-busy-');
    const files: Record<string, string> = {};
    for (let i = 0; i < 600; i++) {
      const body = Array.from({ length: 20 }, (_, j) => `def fn_${i}_${j}(x):\n    """Step ${j} of module ${i}."""\n    return fn_${i}_${Math.max(0, j - 1)}(x) + ${j}\n\n`).join('\n');
      files[`pkg${i % 10}/mod${i}.py`] = body;
    }
    writeFiles(a.dir, files);
    const c = await LspClient.start({ folders: [a.dir], dynamicWatch: true });
    try {
      await c.eventually(async () => c.progress.some((p) => p.value.kind === 'begin'), 10_000, 'progress begin');
      const states: string[] = [];
      let answeredWhileIndexing = 0;
      for (;;) {
        const [s, syms] = await Promise.all([c.status(), c.request<unknown[]>('workspace/symbol', { query: 'fn_1_1' })]);
        states.push(s.state);
        if (s.state === 'ready') break;
        expect(Array.isArray(syms)).toBe(true);
        answeredWhileIndexing++;
        await sleep(20);
      }
      expect(answeredWhileIndexing).toBeGreaterThan(2);
      expect(c.progress.at(-1)!.value.kind).toBe('end');
      // Reading, then resolution, under one percentage that never goes back.
      const reports = c.progress.map((p) => p.value as { kind: string; message?: string; percentage?: number }).filter((v) => v.kind === 'report');
      expect(reports.some((v) => /: \d+\/600 files$/.test(v.message ?? ''))).toBe(true);
      expect(reports.some((v) => /: resolving 12000\/12000 references$/.test(v.message ?? '')), JSON.stringify(reports)).toBe(true);
      const percentages = reports.map((v) => v.percentage ?? 0);
      expect(percentages).toEqual([...percentages].sort((x, y) => x - y));
      expect((await c.status()).files).toBe(600);
    } finally {
      expect(await c.stop()).toBe(0);
      a.cleanup();
    }
  });

  it('applies initializationOptions (exclude, dbPath) and reports wrong ones without failing', async () => {
    const a = tempDir('nsccn-lsp-opts-');
    copyShop(a.dir);
    const dbPath = path.join(a.dir, 'elsewhere', 'my.db');
    fs.mkdirSync(path.dirname(dbPath));
    const c = await LspClient.start({ folders: [a.dir], initializationOptions: { exclude: ['shop/services/'], dbPath, maxFileBytes: 'big' } });
    try {
      const s = await c.waitReady();
      expect(s.files).toBe(4); // services/ excluded
      expect(fs.existsSync(dbPath)).toBe(true);
      expect(fs.existsSync(path.join(a.dir, '.nsccn'))).toBe(false);
      expect(c.logs.some((l) => l.includes('maxFileBytes'))).toBe(true);
    } finally {
      expect(await c.stop()).toBe(0);
      a.cleanup();
    }
  });

  it('speaks stdio without the --stdio flag too', async () => {
    const a = tempDir('nsccn-lsp-noflag-');
    copyShop(a.dir);
    const c = await LspClient.start({ folders: [a.dir], noStdioFlag: true });
    try {
      expect((await c.waitReady()).files).toBe(7);
    } finally {
      expect(await c.stop()).toBe(0);
      a.cleanup();
    }
  });

  it('answers IndexUnavailable for a folder whose index cannot be opened, and serves the others', async () => {
    const a = tempDir('nsccn-lsp-broken-');
    copyShop(a.dir);
    const missing = path.join(a.dir, 'does-not-exist');
    const c = await LspClient.start({ folders: [missing, a.dir] });
    try {
      await c.waitReady();
      const err = await c
        .request('textDocument/documentSymbol', { textDocument: { uri: fileUri(path.join(missing, 'x.py')) } })
        .then(() => null, (e: { code: number; message: string }) => e);
      expect(err?.code).toBe(ErrorCodes.IndexUnavailable);
      expect(err?.message).toContain('does not exist');
      expect(c.logs.some((l) => l.includes('could not be opened')), c.logs.join('\n')).toBe(true);
      expect((await c.status()).files).toBe(7);
    } finally {
      expect(await c.stop()).toBe(0);
      a.cleanup();
    }
  });

  it('closes every index on shutdown and exits 0; exit without shutdown exits 1', async () => {
    const a = tempDir('nsccn-lsp-exit-');
    copyShop(a.dir);
    const c = await LspClient.start({ folders: [a.dir] });
    await c.waitReady();
    const u = fileUri(path.join(a.dir, 'shop/base.py'));
    await c.open(u, fs.readFileSync(path.join(a.dir, 'shop/base.py'), 'utf8') + '\n# edited\n', 1);
    expect(fs.existsSync(path.join(a.dir, '.nsccn', 'index.db-wal'))).toBe(true); // open database
    expect(await c.stop()).toBe(0);
    // SQLite removes the write-ahead log when the last connection closes cleanly.
    expect(fs.existsSync(path.join(a.dir, '.nsccn', 'index.db-wal'))).toBe(false);

    const d = await LspClient.start({ folders: [a.dir] });
    await d.waitReady();
    expect((await d.status()).files).toBe(7); // the index reopened fine
    await d.notify('exit', undefined);
    expect(await d.exited).toBe(1);
    d.conn.dispose();
    a.cleanup();
  });
});
