// Start-up off the critical path, as a user notices it: a server answers workspace/symbol from
// the index it finds, and once its background up-to-date check is over the answers are current;
// a damaged index found by the background integrity check is reported and rebuilt at the next
// opening; a lazy engine (the CLI's) loads grammars only when a file must be parsed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { fileUri, LspClient, sleep, tempDir, writeFiles } from './helpers/lsp-client';
import { copyFixture } from './helpers/workspace';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

const options = { workers: 0, embeddings: { model: 'none' } } as const;

describe('a language server on an indexed folder', () => {
  test('answers workspace/symbol at once from the index, and from the disk once its check is over', async () => {
    const ws = tempDir('nsccn-startup-lsp-');
    cleanup.push(ws.cleanup);
    writeFiles(ws.dir, { 'app/core.py': 'def settle_invoice(x):\n    """Settle one invoice."""\n    return x\n' });
    const first = await LspClient.start({ folders: [ws.dir] });
    await first.waitReady();
    expect(await first.stop()).toBe(0);
    // Changed while no server ran: the index still holds the old function only.
    writeFiles(ws.dir, { 'app/extra.py': 'def reconcile_ledger(x):\n    """Reconcile the ledger."""\n    return x\n' });

    const c = await LspClient.start({ folders: [ws.dir] });
    try {
      // Asked before the up-to-date check is known to be over: the index as it was is an answer.
      const early = await c.request<Array<{ name: string }>>('workspace/symbol', { query: 'settle_invoice' });
      expect(early.map((s) => s.name)).toContain('settle_invoice');
      const outline = await c.request<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri: fileUri(path.join(ws.dir, 'app/core.py')) } });
      expect(outline.map((s) => s.name)).toEqual(['settle_invoice']);
      await c.waitReady();
      const late = await c.request<Array<{ name: string; location: { uri: string } }>>('workspace/symbol', { query: 'reconcile_ledger' });
      expect(late[0]?.name).toBe('reconcile_ledger');
      expect(late[0]?.location.uri).toBe(fileUri(path.join(ws.dir, 'app/extra.py')));
    } finally {
      expect(await c.stop()).toBe(0);
    }
  }, 60_000);
});

describe('the integrity check', () => {
  test("a server's engine checks after its first run: a damaged index is reported, and rebuilt when next opened", async () => {
    const root = copyFixture('python');
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const built = await Engine.open({ root, ...options });
    await built.indexWorkspace();
    await built.close();
    // Damage the first page of the edges table: opening and the up-to-date check never read it.
    const file = path.join(root, '.nsccn/index.db');
    const db = new Database(file, { readonly: true });
    const { rootpage } = db.prepare("SELECT rootpage FROM sqlite_master WHERE name = 'edges'").get() as { rootpage: number };
    db.close();
    const bytes = fs.readFileSync(file);
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16);
    bytes.fill(0xa5, (rootpage - 1) * pageSize, (rootpage - 1) * pageSize + 64);
    fs.writeFileSync(file, bytes);

    const server = await Engine.open({ root, ...options, integrity: 'background' });
    await server.indexWorkspace().catch(() => undefined); // may meet a damaged page itself
    const deadline = Date.now() + 30_000;
    while (!server.status().notes.some((n) => /failed its integrity check/.test(n))) {
      if (Date.now() > deadline) throw new Error(`no integrity note: ${server.status().notes.join('; ')}`);
      await sleep(50);
    }
    expect(fs.existsSync(`${file}-damaged`)).toBe(true);
    await server.close();

    const next = await Engine.open({ root, ...options, lazy: true });
    expect(next.status().notes.join(' ')).toMatch(/index rebuilt: the index failed its integrity check/);
    expect(fs.existsSync(`${file}-damaged`)).toBe(false);
    expect((await next.indexWorkspace()).files).toBe(7);
    await next.close();
  }, 60_000);
});

describe('a lazy engine', () => {
  test('answers from the index without grammars, and loads them when a file changed', async () => {
    const root = copyFixture('python');
    cleanup.push(() => fs.rmSync(root, { recursive: true, force: true }));
    const built = await Engine.open({ root, ...options });
    await built.indexWorkspace();
    await built.close();

    const lazy = await Engine.open({ root, ...options, lazy: true });
    try {
      const s = await lazy.indexWorkspace();
      expect(s).toMatchObject({ files: 7, parsed: 0, unchanged: 7, deleted: 0 });
      expect(lazy.startupSteps()).not.toHaveProperty('grammars');
      const someFile = lazy.store.files()[0].path;
      const abs = path.join(root, someFile);
      fs.appendFileSync(abs, '\n\ndef added_later():\n    return 1\n');
      const t = new Date(Date.now() + 5000);
      fs.utimesSync(abs, t, t);
      expect(await lazy.indexWorkspace()).toMatchObject({ parsed: 1 });
      expect(lazy.startupSteps()).toHaveProperty('grammars');
      expect(lazy.fileEntities(someFile).map((e) => e.name)).toContain('added_later');
    } finally {
      await lazy.close();
    }
  });
});
