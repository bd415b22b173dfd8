// End to end: the real language server over stdio on a copy of fixtures/python/shop. Standard
// LSP views (symbols, call hierarchy, code lens, hover, definition, references) must show the
// fixture's known graph.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LspClient, copyShop, fileUri, tempDir } from './helpers/lsp-client';
import type { CallItem, DocSymbol, LspRange } from './helpers/lsp-text';
import { lineStarts } from './helpers/lsp-text';

type Sym = DocSymbol;
type Item = CallItem;
interface Lens {
  range: LspRange;
  data: { id: string };
  command?: { title: string };
}

let client: LspClient;
let root: string;
let cleanup: () => void;

const uri = (rel: string) => fileUri(path.join(root, rel));
const source = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
/** The text a range covers in a file on disk (single-line ranges). */
function textAt(u: string, r: LspRange): string {
  const text = fs.readFileSync(new URL(u), 'utf8');
  const starts = lineStarts(text);
  return text.slice(starts[r.start.line] + r.start.character, starts[r.end.line] + r.end.character);
}
/** Position of the `nth` occurrence of `needle` in a file (0-based line, UTF-16 character). */
function find(rel: string, needle: string, nth = 0): { line: number; character: number } {
  const lines = source(rel).split('\n');
  let seen = 0;
  for (let line = 0; line < lines.length; line++) {
    let from = 0;
    for (;;) {
      const at = lines[line].indexOf(needle, from);
      if (at < 0) break;
      if (seen++ === nth) return { line, character: at };
      from = at + 1;
    }
  }
  throw new Error(`${needle} not in ${rel}`);
}
const prepare = (rel: string, pos: { line: number; character: number }) =>
  client.request<Item[] | null>('textDocument/prepareCallHierarchy', { textDocument: { uri: uri(rel) }, position: pos });
const outgoing = (item: Item) => client.request<Array<{ to: Item; fromRanges: LspRange[] }>>('callHierarchy/outgoingCalls', { item });
const incoming = (item: Item) => client.request<Array<{ from: Item; fromRanges: LspRange[] }>>('callHierarchy/incomingCalls', { item });

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir('nsccn-lsp-nav-'));
  copyShop(root);
  client = await LspClient.start({ folders: [root] });
  await client.waitReady();
});

afterAll(async () => {
  expect(await client.stop()).toBe(0);
  cleanup();
});

describe('initialization', () => {
  it('reports the initial index run with workDoneProgress begin / report / end', async () => {
    const kinds = client.progress.map((p) => p.value.kind);
    expect(kinds[0]).toBe('begin');
    expect(kinds.at(-1)).toBe('end');
    expect(client.progress[0].value.title).toMatch(/index/i);
    const reports = client.progress.filter((p) => p.value.kind === 'report');
    expect(reports.length).toBeGreaterThan(0);
    expect(reports.every((r) => typeof r.value.percentage === 'number' && r.value.percentage! >= 0 && r.value.percentage! <= 100)).toBe(true);
    expect(reports.at(-1)!.value.percentage).toBe(100);
    expect(new Set(client.progress.map((p) => p.token)).size).toBe(1);
  });

  it('registers a file watcher for the languages the engine reads', () => {
    const reg = client.registrations.find((r) => r.method === 'workspace/didChangeWatchedFiles');
    expect(reg).toBeDefined();
    const globs = (reg!.registerOptions as { watchers: Array<{ globPattern: string }> }).watchers.map((w) => w.globPattern);
    expect(globs.some((g) => g.startsWith('**/*.') && g.includes('py'))).toBe(true);
  });

  it('indexes every file of the fixture', async () => {
    const s = await client.status();
    expect(s.state).toBe('ready');
    expect(s.files).toBe(7);
    expect(s.entities).toBeGreaterThan(20);
    expect(fs.existsSync(path.join(root, '.nsccn', 'index.db'))).toBe(true);
  });
});

describe('documentSymbol', () => {
  it('nests methods and inner classes under their class, in source order', async () => {
    const syms = await client.request<Sym[]>('textDocument/documentSymbol', { textDocument: { uri: uri('shop/models.py') } });
    expect(syms.map((s) => s.name)).toEqual(['User', 'Order', 'price_of']);
    const user = syms[0];
    expect(user.kind).toBe(5); // Class
    const methods = user.children!.filter((c) => c.kind === 6).map((c) => c.name);
    expect(methods).toEqual(['__init__', 'rename']);
    const meta = user.children!.find((c) => c.name === 'Meta')!;
    expect(meta.kind).toBe(5);
    expect(meta.children!.map((c) => c.name)).toContain('ordering');
    const priceOf = syms[2];
    expect(priceOf.kind).toBe(12); // Function
    const at = find('shop/models.py', 'price_of(sku: str)');
    expect(priceOf.selectionRange).toEqual({ start: at, end: { line: at.line, character: at.character + 'price_of'.length } });
  });

  it('keeps every child inside its parent and every selection inside its range', async () => {
    const inside = (o: LspRange, i: LspRange) =>
      (o.start.line < i.start.line || (o.start.line === i.start.line && o.start.character <= i.start.character)) &&
      (i.end.line < o.end.line || (i.end.line === o.end.line && i.end.character <= o.end.character));
    for (const rel of ['shop/models.py', 'shop/base.py', 'shop/services/payments.py', 'shop/broken.py']) {
      const walk = (s: Sym) => {
        expect(inside(s.range, s.selectionRange)).toBe(true);
        for (const c of s.children ?? []) {
          expect(inside(s.range, c.range)).toBe(true);
          walk(c);
        }
      };
      const syms = await client.request<Sym[]>('textDocument/documentSymbol', { textDocument: { uri: uri(rel) } });
      expect(syms.length).toBeGreaterThan(0);
      syms.forEach(walk);
    }
  });

  it('still outlines a file with a syntax error', async () => {
    const syms = await client.request<Sym[]>('textDocument/documentSymbol', { textDocument: { uri: uri('shop/broken.py') } });
    const names = syms.map((s) => s.name);
    expect(names).toContain('ok_before');
    expect(names).toContain('StillHere');
  });
});

describe('workspace/symbol', () => {
  it('finds a symbol by name, with the exact location of its name', async () => {
    const res = await client.request<Array<{ name: string; location: { uri: string; range: LspRange } }>>('workspace/symbol', { query: 'price_of' });
    expect(res[0].name).toBe('price_of');
    expect(res[0].location.uri).toBe(uri('shop/models.py'));
    expect(textAt(res[0].location.uri, res[0].location.range)).toBe('price_of');
  });

  it('ranks by meaning: plain words find the function whose docstring says them', async () => {
    const res = await client.request<Array<{ name: string }>>('workspace/symbol', { query: 'look up the unit price of a product' });
    expect(res.slice(0, 3).map((r) => r.name)).toContain('price_of');
  });

  it('answers an empty query with nothing rather than the whole workspace', async () => {
    expect(await client.request('workspace/symbol', { query: '' })).toEqual([]);
  });
});

describe('call hierarchy', () => {
  it('prepares the function whose name is under the cursor', async () => {
    const items = await prepare('shop/services/checkout.py', find('shop/services/checkout.py', 'checkout(user'));
    expect(items!.map((i) => i.data.id)).toEqual(['func:shop/services/checkout.py:checkout']);
    expect(textAt(items![0].uri, items![0].selectionRange)).toBe('checkout');
  });

  it('prepares the callee when the cursor is on a call, the enclosing function inside a body', async () => {
    const onCall = await prepare('shop/services/checkout.py', find('shop/services/checkout.py', 'charge('));
    expect(onCall![0].data.id).toBe('func:shop/services/payments.py:charge');
    const inBody = find('shop/services/checkout.py', 'for sku');
    const enclosing = await prepare('shop/services/checkout.py', inBody);
    expect(enclosing![0].data.id).toBe('func:shop/services/checkout.py:checkout');
  });

  it('lists outgoing calls grouped by callee, with call-site ranges in the caller', async () => {
    const [item] = (await prepare('shop/services/checkout.py', find('shop/services/checkout.py', 'checkout(user')))!;
    const out = await outgoing(item);
    expect(out.map((o) => o.to.data.id).sort()).toEqual(
      [
        'func:shop/base.py:_write',
        'func:shop/services/payments.py:charge',
        'method:shop/models.py:Order.__init__',
        'method:shop/models.py:Order.add_item',
        'method:shop/models.py:Order.total',
      ].sort(),
    );
    const charge = out.find((o) => o.to.data.id.endsWith(':charge'))!;
    expect(charge.fromRanges.map((r) => textAt(item.uri, r))).toEqual(['charge']);
    expect(charge.to.uri).toBe(uri('shop/services/payments.py'));
  });

  it('skips calls the graph cannot resolve', async () => {
    // Model.save also calls the builtin vars(), which is not in the workspace.
    const [item] = (await prepare('shop/base.py', find('shop/base.py', 'save(self)')))!;
    const ids = (await outgoing(item)).map((o) => o.to.data.id).sort();
    expect(ids).toEqual(['func:shop/base.py:_write', 'method:shop/base.py:Model.touch']);
  });

  it('lists incoming calls grouped by caller, with call-site ranges in the caller file', async () => {
    const [item] = (await prepare('shop/base.py', find('shop/base.py', 'touch(self)')))!;
    expect(item.data.id).toBe('method:shop/base.py:Model.touch');
    const inc = await incoming(item);
    expect(inc.map((i) => i.from.data.id).sort()).toEqual(['method:shop/base.py:Model.save', 'method:shop/models.py:Order.add_item']);
    for (const call of inc) {
      expect(call.fromRanges.length).toBe(1);
      expect(textAt(call.from.uri, call.fromRanges[0])).toBe('touch');
    }
  });

  it('works from an item without data (another client made it) through its selection range', async () => {
    const [item] = (await prepare('shop/base.py', find('shop/base.py', 'touch(self)')))!;
    const { data: _data, ...bare } = item;
    expect((await incoming(bare as Item)).length).toBe(2);
  });
});

describe('code lens', () => {
  it('shows callers and callees on every function, method and class, resolved lazily', async () => {
    for (const rel of ['shop/models.py', 'shop/base.py', 'shop/services/checkout.py', 'shop/services/payments.py']) {
      const lenses = await client.request<Lens[]>('textDocument/codeLens', { textDocument: { uri: uri(rel) } });
      expect(lenses.length).toBeGreaterThan(0);
      expect(lenses.every((l) => l.command === undefined)).toBe(true);
      for (const lens of lenses) {
        const resolved = await client.request<Lens>('codeLens/resolve', lens);
        const m = /^(\d+) callers? · (\d+) callees?$/.exec(resolved.command!.title);
        expect(m, resolved.command!.title).not.toBeNull();
        // The numbers are the call hierarchy's groups.
        const [item] = (await prepare(rel, lens.range.start))!;
        expect(item.data.id).toBe(lens.data.id);
        expect(Number(m![1])).toBe((await incoming(item)).length);
        expect(Number(m![2])).toBe((await outgoing(item)).length);
      }
    }
  });

  it('counts the fixture graph', async () => {
    const titles = async (rel: string) => {
      const out: Record<string, string> = {};
      for (const lens of await client.request<Lens[]>('textDocument/codeLens', { textDocument: { uri: uri(rel) } })) {
        out[lens.data.id] = (await client.request<Lens>('codeLens/resolve', lens)).command!.title;
      }
      return out;
    };
    const base = await titles('shop/base.py');
    expect(base['method:shop/base.py:Model.touch']).toBe('2 callers · 0 callees');
    expect(base['method:shop/base.py:Model.save']).toBe('1 caller · 2 callees');
    const models = await titles('shop/models.py');
    expect(models['func:shop/models.py:price_of']).toBe('1 caller · 0 callees');
  });
});

describe('hover, definition, references', () => {
  it('hovers a call with the callee signature, docstring and counts', async () => {
    const h = await client.request<{ contents: { kind: string; value: string } }>('textDocument/hover', {
      textDocument: { uri: uri('shop/services/checkout.py') },
      position: find('shop/services/checkout.py', 'charge('),
    });
    expect(h.contents.kind).toBe('markdown');
    expect(h.contents.value).toContain('def charge(user, amount)');
    expect(h.contents.value).toContain("Charge a user's card.");
    expect(h.contents.value).toContain('1 caller · 3 callees');
  });

  it('hovers a definition name with its own range, and nothing on blank space', async () => {
    const at = find('shop/models.py', 'price_of(sku: str)');
    const h = await client.request<{ range: LspRange; contents: { value: string } }>('textDocument/hover', {
      textDocument: { uri: uri('shop/models.py') },
      position: at,
    });
    expect(h.contents.value).toContain('Look up the unit price of a product.');
    expect(h.range.start).toEqual(at);
    const blank = await client.request('textDocument/hover', { textDocument: { uri: uri('shop/models.py') }, position: { line: 2, character: 0 } });
    expect(blank).toBeNull();
  });

  it('goes to the definition of a called name across files', async () => {
    const locs = await client.request<Array<{ uri: string; range: LspRange }>>('textDocument/definition', {
      textDocument: { uri: uri('shop/services/checkout.py') },
      position: find('shop/services/checkout.py', 'charge('),
    });
    expect(locs).toHaveLength(1);
    expect(locs[0].uri).toBe(uri('shop/services/payments.py'));
    expect(textAt(locs[0].uri, locs[0].range)).toBe('charge');
    const none = await client.request('textDocument/definition', {
      textDocument: { uri: uri('shop/services/checkout.py') },
      position: { line: 2, character: 0 },
    });
    expect(none).toBeNull();
  });

  it('finds references: call sites, and importers', async () => {
    const at = find('shop/base.py', '_write(table');
    const refs = await client.request<Array<{ uri: string; range: LspRange }>>('textDocument/references', {
      textDocument: { uri: uri('shop/base.py') },
      position: at,
      context: { includeDeclaration: false },
    });
    expect(refs.map((r) => [path.relative(root, new URL(r.uri).pathname), textAt(r.uri, r.range)]).sort()).toEqual([
      ['shop/base.py', '_write'],
      ['shop/services/checkout.py', '_write'],
    ]);
    const withDecl = await client.request<unknown[]>('textDocument/references', {
      textDocument: { uri: uri('shop/base.py') },
      position: at,
      context: { includeDeclaration: true },
    });
    expect(withDecl).toHaveLength(3);
    const importers = await client.request<Array<{ uri: string }>>('textDocument/references', {
      textDocument: { uri: uri('shop/models.py') },
      position: find('shop/models.py', 'User(Model)'),
      context: { includeDeclaration: false },
    });
    expect(importers.map((r) => path.relative(root, new URL(r.uri).pathname)).sort()).toEqual(['shop/__init__.py', 'shop/services/checkout.py']);
  });
});

describe('legacy rootUri', () => {
  it('serves a workspace given only by rootUri', async () => {
    const { dir, cleanup: clean } = tempDir('nsccn-lsp-root-');
    copyShop(dir);
    const c = await LspClient.start({ folders: [dir], legacyRoot: true, progress: false });
    try {
      await c.waitReady();
      const syms = await c.request<Sym[]>('textDocument/documentSymbol', { textDocument: { uri: fileUri(path.join(dir, 'shop/base.py')) } });
      expect(syms.map((s) => s.name)).toEqual(['REGISTRY', 'register', 'Model', '_write']);
      expect(c.progress).toEqual([]); // the client said it cannot show progress
    } finally {
      await c.stop();
      clean();
    }
  });
});
