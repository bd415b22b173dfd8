// End to end over the real server on fixtures/python/shop: type hierarchy and go-to-
// implementation from INHERITS edges (Model <- User, Order; both override Model.__init__, neither
// save), and the answer-shaping params of the nsccn/* requests (maxTokens, docs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LspClient, copyShop, fileUri, tempDir } from './helpers/lsp-client';
import type { LspRange } from './helpers/lsp-text';
import { Commands, ErrorCodes, Methods, type ChangesResponse, type SearchResponse, type SkeletonResponse, type TraceResult, type WindowResponse } from '../protocol';

interface TItem {
  name: string;
  uri: string;
  selectionRange: LspRange;
  data?: { id: string };
}

let client: LspClient;
let root: string;
let cleanup: () => void;
const uri = (rel: string) => fileUri(path.join(root, rel));
function at(rel: string, needle: string): { line: number; character: number } {
  const lines = fs.readFileSync(path.join(root, rel), 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  if (line < 0) throw new Error(`${needle} not in ${rel}`);
  return { line, character: lines[line].indexOf(needle) };
}
const prepare = (rel: string, needle: string) =>
  client.request<TItem[] | null>('textDocument/prepareTypeHierarchy', { textDocument: { uri: uri(rel) }, position: at(rel, needle) });
const names = (items: TItem[] | null) => (items ?? []).map((i) => i.data?.id ?? i.name).sort();

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir('nsccn-lsp-types-'));
  copyShop(root);
  // A git history for nsccn/changes: the fixture committed, then one line of _write edited.
  const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' };
  for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-qm', 'base']]) execFileSync('git', args, { cwd: root, env });
  const base = path.join(root, 'shop/base.py');
  fs.writeFileSync(base, fs.readFileSync(base, 'utf8').replace('return (table, row)', 'return (table, dict(row))'));
  client = await LspClient.start({ folders: [root] });
  await client.waitReady();
});
afterAll(async () => {
  expect(await client.stop()).toBe(0);
  cleanup();
});

describe('type hierarchy', () => {
  it('advertises the type hierarchy and implementation providers', () => {
    expect(client.capabilities.typeHierarchyProvider).toBe(true);
    expect(client.capabilities.implementationProvider).toBe(true);
  });

  it('Model: no supertypes in the workspace, subtypes User and Order', async () => {
    const [model] = (await prepare('shop/base.py', 'Model:'))!;
    expect(model.data?.id).toBe('class:shop/base.py:Model');
    expect(await client.request('typeHierarchy/supertypes', { item: model })).toEqual([]);
    expect(names(await client.request<TItem[]>('typeHierarchy/subtypes', { item: model }))).toEqual(['class:shop/models.py:Order', 'class:shop/models.py:User']);
  });

  it('User: supertype Model, found from a base-class reference too', async () => {
    const [user] = (await prepare('shop/models.py', 'User(Model)'))!;
    expect(user.data?.id).toBe('class:shop/models.py:User');
    const supers = await client.request<TItem[]>('typeHierarchy/supertypes', { item: user });
    expect(names(supers)).toEqual(['class:shop/base.py:Model']);
    expect(supers[0].uri).toBe(uri('shop/base.py'));
    // An item without data is found again by its position.
    const bare = { ...user, data: undefined };
    expect(names(await client.request<TItem[]>('typeHierarchy/supertypes', { item: bare }))).toEqual(['class:shop/base.py:Model']);
  });

  it('outside any class: null', async () => {
    expect(await prepare('shop/base.py', 'REGISTRY = {}')).toBeNull();
  });
});

describe('implementation', () => {
  const impl = (rel: string, needle: string) =>
    client.request<Array<{ uri: string; range: LspRange }> | null>('textDocument/implementation', { textDocument: { uri: uri(rel) }, position: at(rel, needle) });
  const where = (locs: Array<{ uri: string; range: LspRange }> | null) => (locs ?? []).map((l) => `${path.relative(root, new URL(l.uri).pathname)}:${l.range.start.line + 1}`).sort();

  it('a method: its overrides in subclasses', async () => {
    expect(where(await impl('shop/base.py', '__init__'))).toEqual([`shop/models.py:${at('shop/models.py', 'def __init__(self, email').line + 1}`, `shop/models.py:${at('shop/models.py', 'def __init__(self, user').line + 1}`].sort());
  });

  it('a method nobody overrides: null', async () => {
    expect(await impl('shop/base.py', 'def save')).toBeNull();
  });

  it('a class: its subclasses', async () => {
    expect(where(await impl('shop/base.py', 'class Model'))).toEqual(['shop/models.py:25', 'shop/models.py:6'].sort());
  });
});

describe('nsccn/* answer params', () => {
  async function rpcError(method: string, params: unknown): Promise<{ code: number; message: string }> {
    try {
      await client.request(method, params);
    } catch (e) {
      return e as { code: number; message: string };
    }
    throw new Error(`${method} succeeded; an error was expected`);
  }

  it('nsccn/skeleton takes docs and maxTokens', async () => {
    const none = await client.request<SkeletonResponse>(Methods.skeleton, { uri: uri('shop/base.py'), docs: 'none' });
    expect(none.docs).toBe('none');
    expect(none.text).not.toContain('"""');
    expect(none.text).toContain('def save(self): ...');
    const def = await client.request<SkeletonResponse>(Methods.skeleton, { uri: uri('shop/base.py') });
    expect(def.docs).toBe('first-line');
    expect(def.text).toContain('def save(self):\n        """Write the row to storage."""');
    const cut = await client.request<SkeletonResponse>(Methods.skeleton, { uri: uri('shop/base.py'), maxTokens: 120 });
    expect(cut.truncated?.maxTokens).toBe(120);
    expect(cut.truncated!.tokens).toBeLessThanOrEqual(120);
  });

  it('nsccn/trace, nsccn/search and nsccn/window take maxTokens and say what they dropped', async () => {
    const t = await client.request<TraceResult>(Methods.trace, { id: 'func:shop/services/checkout.py:checkout', direction: 'down', maxTokens: 200 });
    expect(t.truncated?.dropped.edges).toBeGreaterThan(0);
    expect(t.truncated!.tokens).toBeLessThanOrEqual(200);
    const s = await client.request<SearchResponse>(Methods.search, { query: 'order', limit: 20, maxTokens: 150 });
    expect(s.truncated?.dropped.results).toBeGreaterThan(0);
    const w = await client.request<WindowResponse>(Methods.window, { id: 'func:shop/services/checkout.py:checkout', contextLines: 5, maxTokens: 150 });
    expect(w.truncated?.dropped['context lines']).toBeGreaterThan(0);
    expect(w.uri).toBe(uri('shop/services/checkout.py'));
  });

  it('nsccn/trace with `to` answers paths (direction may be left out)', async () => {
    const t = await client.request<TraceResult>(Methods.trace, { id: 'func:shop/services/checkout.py:checkout', to: 'func:shop/base.py:_write', k: 2 });
    expect(t.paths!.map((p) => p.hops.map((h) => `${h.to}@${h.line}`))).toEqual([['func:shop/base.py:_write@13']]);
    expect(t.paths![0].hops[0].code).toBe('base._write("log", {})');
  });

  it('nsccn/changes: the edited function and who calls it', async () => {
    const r = await client.request<ChangesResponse>(Methods.changes, {});
    expect(r.base).toBe('HEAD → working tree');
    expect(r.files).toEqual([{ file: 'shop/base.py', status: 'modified' }]);
    expect(r.entities.map((e) => [e.change, e.id, e.lines])).toEqual([['modified', 'func:shop/base.py:_write', [32]]]);
    expect(r.entities[0].callers).toEqual(['func:shop/services/checkout.py:checkout', 'method:shop/base.py:Model.save', 'method:shop/models.py:User.rename']);
    const byFolder = await client.request<ChangesResponse>(Methods.changes, { uri: fileUri(root), staged: true });
    expect(byFolder.entities).toEqual([]);
    const bad = await rpcError(Methods.changes, { since: 'nope' });
    expect(bad.code).toBe(ErrorCodes.InvalidParams);
    expect(bad.message).toContain('unknown revision nope');
  });

  it('a resolved code lens runs nsccn.showCallers with the entity and its file', async () => {
    const lenses = await client.request<Array<{ range: LspRange; data: { id: string } }>>('textDocument/codeLens', { textDocument: { uri: uri('shop/base.py') } });
    const save = lenses.find((l) => l.data.id === 'method:shop/base.py:Model.save')!;
    const resolved = await client.request<{ command: { title: string; command: string; arguments: unknown[] } }>('codeLens/resolve', save);
    expect(resolved.command).toEqual({ title: '1 caller · 2 callees', command: Commands.showCallers, arguments: [{ id: 'method:shop/base.py:Model.save', uri: uri('shop/base.py') }] });
  });

  it('nsccn/status says per vector stream how complete it is', async () => {
    await client.eventually(async () => (await client.status()).streamProgress?.every((p) => p.complete) === true, 15_000, 'complete streams');
    const s = await client.status();
    expect(s.streamProgress!.map((p) => p.stream)).toEqual(['static']);
    expect(s.streamProgress![0].done).toBe(s.streamProgress![0].total);
  });

  it('bad docs or maxTokens: InvalidParams naming the field', async () => {
    for (const [method, params, field] of [
      [Methods.skeleton, { uri: uri('shop/base.py'), docs: 'most' }, 'docs'],
      [Methods.skeleton, { uri: uri('shop/base.py'), maxTokens: 3 }, 'maxTokens'],
      [Methods.trace, { id: 'func:shop/base.py:_write', direction: 'up', maxTokens: 'lots' }, 'maxTokens'],
      [Methods.search, { query: 'x', maxTokens: 1.5 }, 'maxTokens'],
      [Methods.window, { id: 'func:shop/base.py:_write', maxTokens: -1 }, 'maxTokens'],
      [Methods.trace, { id: 'func:shop/base.py:_write', to: 'func:shop/base.py:register', k: 50 }, 'k'],
      [Methods.trace, { id: 'func:shop/base.py:_write', to: 7 }, 'to'],
    ] as const) {
      const err = await rpcError(method, params);
      expect(err.code).toBe(ErrorCodes.InvalidParams);
      expect(err.message).toContain(field);
    }
  });
});
