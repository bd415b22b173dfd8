// End to end: unsaved edits, closing back to disk, and files changing on disk (through the
// client's watcher registration and through the server's own watcher).
import { afterEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LspClient, copyShop, fileUri, sleep, tempDir, writeFiles } from './helpers/lsp-client';
import { applySplice, positionAt, toContentChange, type LspRange, type Splice } from './helpers/lsp-text';
import { Methods } from '../protocol';

interface Item {
  uri: string;
  data: { id: string };
}

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function startOnShop(opts: { dynamicWatch?: boolean } = {}) {
  const { dir, cleanup } = tempDir('nsccn-lsp-live-');
  cleanups.push(cleanup);
  copyShop(dir);
  const client = await LspClient.start({ folders: [dir], ...opts });
  cleanups.push(async () => expect(await client.stop()).toBe(0));
  await client.waitReady();
  const uri = (rel: string) => fileUri(path.join(dir, rel));
  /** Call hierarchy of an entity, found the way an editor finds it: outline, then prepare. */
  const callsOf = async (id: string, direction: 'outgoing' | 'incoming'): Promise<string[]> => {
    const [, rel, qname] = id.split(':');
    type Sym = { name: string; selectionRange: LspRange; children?: Sym[] };
    let level = await client.request<Sym[]>('textDocument/documentSymbol', { textDocument: { uri: uri(rel) } });
    let sym: Sym | undefined;
    for (const part of qname.split('.')) {
      sym = level.find((x) => x.name === part);
      if (!sym) throw new Error(`${id} not in the outline of ${rel}`);
      level = sym.children ?? [];
    }
    const items = await client.request<Item[] | null>('textDocument/prepareCallHierarchy', {
      textDocument: { uri: uri(rel) },
      position: sym!.selectionRange.start,
    });
    const item = items!.find((i) => i.data.id === id)!;
    if (direction === 'outgoing') {
      return (await client.request<Array<{ to: Item }>>('callHierarchy/outgoingCalls', { item })).map((c) => c.to.data.id).sort();
    }
    return (await client.request<Array<{ from: Item }>>('callHierarchy/incomingCalls', { item })).map((c) => c.from.data.id).sort();
  };
  return { dir, client, uri, callsOf };
}

/** An editor buffer: applies splices locally and sends them as incremental changes. */
class Buffer {
  version = 1;
  constructor(
    private readonly client: LspClient,
    readonly uri: string,
    public text: string,
  ) {}
  async open(): Promise<void> {
    await this.client.open(this.uri, this.text, this.version);
  }
  async edit(...splices: Splice[]): Promise<void> {
    const changes = [];
    for (const s of splices) {
      changes.push(toContentChange(this.text, s));
      this.text = applySplice(this.text, s);
    }
    await this.client.change(this.uri, ++this.version, changes);
  }
  insertAfter(needle: string, insert: string): Splice {
    const at = this.text.indexOf(needle);
    if (at < 0) throw new Error(`${needle} not in buffer`);
    return { start: at + needle.length, deleteCount: 0, insert };
  }
  remove(needle: string): Splice {
    const at = this.text.indexOf(needle);
    if (at < 0) throw new Error(`${needle} not in buffer`);
    return { start: at, deleteCount: needle.length, insert: '' };
  }
}

const CHARGE = 'func:shop/services/payments.py:charge';
const VALIDATE = 'func:shop/services/payments.py:validate_amount';
const GATEWAY = 'func:shop/services/payments.py:_gateway';
const SEND = 'method:shop/services/payments.py:_gateway.Gateway.send';

describe('unsaved edits', () => {
  it('adds and removes calls: the call hierarchy follows before any save, and didClose goes back to disk', async () => {
    const { dir, client, uri, callsOf } = await startOnShop();
    const rel = 'shop/services/payments.py';
    const onDisk = fs.readFileSync(path.join(dir, rel), 'utf8');
    const buf = new Buffer(client, uri(rel), onDisk);
    await buf.open();
    expect(await callsOf(VALIDATE, 'outgoing')).toEqual([]);
    expect(await callsOf(GATEWAY, 'incoming')).toEqual([CHARGE]);

    // Add a call to _gateway inside validate_amount.
    await buf.edit(buf.insertAfter('def validate_amount(amount):\n', '    _gateway()\n'));
    expect(await callsOf(VALIDATE, 'outgoing')).toEqual([GATEWAY]);
    expect(await callsOf(GATEWAY, 'incoming')).toEqual([CHARGE, VALIDATE]);

    // Remove charge's call to validate_amount.
    await buf.edit(buf.remove('    validate_amount(amount)\n'));
    expect((await callsOf(CHARGE, 'outgoing')).sort()).toEqual([GATEWAY, SEND].sort());
    expect(await callsOf(VALIDATE, 'incoming')).toEqual([]);

    // Nothing was written; closing the buffer brings back the disk's graph.
    expect(fs.readFileSync(path.join(dir, rel), 'utf8')).toBe(onDisk);
    await client.close(uri(rel));
    expect((await callsOf(CHARGE, 'outgoing')).sort()).toEqual([GATEWAY, SEND, VALIDATE].sort());
    expect(await callsOf(VALIDATE, 'outgoing')).toEqual([]);
  });

  it('reflects a new function in documentSymbol and workspace/symbol at once', async () => {
    const { dir, client, uri } = await startOnShop();
    const rel = 'shop/services/checkout.py';
    const buf = new Buffer(client, uri(rel), fs.readFileSync(path.join(dir, rel), 'utf8'));
    await buf.open();
    await buf.edit({ start: buf.text.length, deleteCount: 0, insert: '\n\ndef refund_everything(order):\n    return cancel(order)\n' });
    const syms = await client.request<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri: uri(rel) } });
    expect(syms.map((s) => s.name)).toEqual(['checkout', 'cancel', 'refund_everything']);
    // Found before any save, and first: an identifier query ranks that exact name first.
    const found = await client.request<Array<{ name: string }>>('workspace/symbol', { query: 'refund_everything' });
    expect(found[0].name).toBe('refund_everything');
  });

  it('reads a buffer opened and edited the moment initialize is answered (the grammars still loading) in its first answers', async () => {
    const { dir, cleanup } = tempDir('nsccn-lsp-live-');
    cleanups.push(cleanup);
    copyShop(dir);
    const rel = 'shop/services/checkout.py';
    const disk = fs.readFileSync(path.join(dir, rel), 'utf8');
    // Before anything else: the server loads its grammars after answering initialize.
    const client = await LspClient.start({ folders: [dir] });
    cleanups.push(async () => expect(await client.stop()).toBe(0));
    const buf = new Buffer(client, fileUri(path.join(dir, rel)), disk);
    await buf.open();
    await buf.edit({ start: buf.text.length, deleteCount: 0, insert: '\n\ndef refund_everything(order):\n    return cancel(order)\n' });
    const skeleton = await client.request<{ text: string }>(Methods.skeleton, { uri: buf.uri });
    expect(skeleton.text).toContain('def refund_everything(order)');
    const syms = await client.request<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri: buf.uri } });
    expect(syms.map((s) => s.name)).toEqual(['checkout', 'cancel', 'refund_everything']);
  });

  it('counts columns in UTF-16 after multi-byte text, with CRLF line ends', async () => {
    const { client, uri } = await startOnShop();
    const rel = 'shop/services/payments.py';
    const text = 'def a():\r\n    return 1\r\n\r\ndef b():\r\n    s = "😀é"; a()  # ☕\r\n    return s\r\n';
    const buf = new Buffer(client, uri(rel), text);
    await buf.open();
    const lines = text.split('\r\n');
    const callLine = lines.findIndex((l) => l.includes('; a()'));
    const items = await client.request<Item[]>('textDocument/prepareCallHierarchy', {
      textDocument: { uri: uri(rel) },
      position: { line: 3, character: 4 },
    });
    const out = await client.request<Array<{ to: Item; fromRanges: LspRange[] }>>('callHierarchy/outgoingCalls', { item: items[0] });
    expect(out.map((o) => o.to.data.id)).toEqual(['func:shop/services/payments.py:a']);
    const col = lines[callLine].indexOf('; a()') + 2; // JS strings are UTF-16: 😀 counts 2
    expect(out[0].fromRanges[0]).toEqual({ start: { line: callLine, character: col }, end: { line: callLine, character: col + 1 } });

    // An edit after the emoji on the same line: positions stay UTF-16.
    const at = buf.text.indexOf('; a()') + 2;
    await buf.edit({ start: at, deleteCount: 1, insert: 'b' });
    expect(positionAt(buf.text, at)).toEqual({ line: callLine, character: col });
    const out2 = await client.request<Array<{ to: Item }>>('callHierarchy/outgoingCalls', { item: items[0] });
    expect(out2.map((o) => o.to.data.id)).toEqual(['func:shop/services/payments.py:b']);
  });

  it('asks the client to refresh code lenses after an edit (debounced)', async () => {
    const { dir, client, uri } = await startOnShop();
    await sleep(600); // let refreshes caused by the index run arrive
    const before = client.codeLensRefreshes;
    const rel = 'shop/base.py';
    const buf = new Buffer(client, uri(rel), fs.readFileSync(path.join(dir, rel), 'utf8'));
    await buf.open();
    for (let i = 0; i < 5; i++) await buf.edit(buf.insertAfter('def _write(table, row):\n', `    _write(${i}, None)\n`));
    await client.eventually(async () => client.codeLensRefreshes > before, 5000, 'codeLens refresh');
    await sleep(600);
    expect(client.codeLensRefreshes - before).toBe(1); // one refresh for the burst
  });
});

describe('files changed on disk', () => {
  const extra = 'from .models import price_of\n\n\ndef brand_new_pricing(sku):\n    return price_of(sku)\n';

  it('follows created, changed and deleted files the client reports', async () => {
    const { dir, client, uri } = await startOnShop({ dynamicWatch: true });
    const PRICE = 'func:shop/models.py:price_of';
    const has = async (q: string) => (await client.request<Array<{ name: string }>>('workspace/symbol', { query: q })).some((x) => x.name === q);
    writeFiles(dir, { 'shop/extra.py': extra });
    await client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('shop/extra.py'), type: 1 }] });
    await client.eventually(async () => await has('brand_new_pricing'), 5000, 'created file indexed');
    const trace = await client.request<{ adjacency: Record<string, Array<{ target: string }>> }>('nsccn/trace', { id: PRICE, direction: 'up', depth: 1 });
    expect(trace.adjacency[PRICE].map((e) => e.target)).toContain('func:shop/extra.py:brand_new_pricing');

    writeFiles(dir, { 'shop/extra.py': extra.replace(/brand_new_pricing/g, 'renamed_pricing') });
    await client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('shop/extra.py'), type: 2 }] });
    await client.eventually(async () => await has('renamed_pricing'), 5000, 'changed file re-read');

    fs.rmSync(path.join(dir, 'shop/extra.py'));
    await client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('shop/extra.py'), type: 3 }] });
    await client.eventually(async () => !(await has('renamed_pricing')), 5000, 'deleted file dropped');
    // Files outside the workspace or in other languages are ignored without fuss.
    await client.notify('workspace/didChangeWatchedFiles', {
      changes: [
        { uri: 'file:///nowhere/else.py', type: 2 },
        { uri: uri('shop/notes.txt'), type: 1 },
      ],
    });
    expect((await client.status()).files).toBe(7);
  });

  it('keeps an open buffer as the truth when its file changes on disk', async () => {
    const { dir, client, uri } = await startOnShop({ dynamicWatch: true });
    const rel = 'shop/services/checkout.py';
    const buf = new Buffer(client, uri(rel), fs.readFileSync(path.join(dir, rel), 'utf8'));
    await buf.open();
    await buf.edit(buf.insertAfter('def cancel(order):\n', '    checkout(None, [])\n'));
    fs.writeFileSync(path.join(dir, rel), 'def only_on_disk():\n    pass\n');
    await client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri(rel), type: 2 }] });
    await sleep(300);
    const names = async () =>
      (await client.request<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri: uri(rel) } })).map((s) => s.name);
    expect(await names()).toEqual(['checkout', 'cancel']);
    await client.close(uri(rel));
    await client.eventually(async () => (await names()).join() === 'only_on_disk', 5000, 'disk content after close');
  });

  it("watches the folder itself when the client cannot register a watcher", async () => {
    const { dir, client } = await startOnShop({ dynamicWatch: false });
    expect(client.registrations.filter((r) => r.method === 'workspace/didChangeWatchedFiles')).toEqual([]);
    const has = async (q: string) => (await client.request<Array<{ name: string }>>('workspace/symbol', { query: q })).some((x) => x.name === q);
    writeFiles(dir, { 'shop/extra.py': extra });
    await client.eventually(async () => await has('brand_new_pricing'), 10_000, 'watcher saw the new file');
    fs.rmSync(path.join(dir, 'shop/extra.py'));
    await client.eventually(async () => !(await has('brand_new_pricing')), 10_000, 'watcher saw the deletion');
    expect((await client.status()).files).toBe(7);
  });
});
