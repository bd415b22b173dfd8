// The adapter's edges: paths and ids confined to the root by canonical path, a tool call while
// the index is still building, the child language server killed mid-session, and stdin closing
// (the adapter exits and leaves no child behind).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes, type SearchResult } from '../protocol';
import { LspClient, copyShop, sleep, tempDir, writeFiles } from './helpers/lsp-client';
import { alive, childPids, CLI, startMcp, text, waitReady, type McpSession } from './helpers/mcp';

describe('confinement to the root', () => {
  let s: McpSession;
  let root: string;
  let outside: string;
  const cleanups: Array<() => void> = [];

  beforeAll(async () => {
    const a = tempDir('nsccn-mcp-root-');
    const b = tempDir('nsccn-mcp-outside-');
    cleanups.push(a.cleanup, b.cleanup);
    root = a.dir;
    outside = b.dir;
    copyShop(root);
    writeFiles(outside, { 'secret.py': 'def leak():\n    return "secret"\n' });
    fs.symlinkSync(path.join(outside, 'secret.py'), path.join(root, 'shop', 'leak.py'));
    fs.symlinkSync(outside, path.join(root, 'linked'));
    s = await startMcp(root);
    await waitReady(s);
  });

  afterAll(async () => {
    await s?.close();
    cleanups.forEach((c) => c());
  });

  const refused = async (tool: string, args: Record<string, unknown>, why: RegExp) => {
    const r = await s.call(tool, args);
    expect(r.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
    expect((r.structuredContent as { error: { code: number } }).error.code).toBe(ErrorCodes.OutsideWorkspace);
    expect(text(r)).toMatch(why);
    expect(text(r)).not.toContain('secret"');
  };

  it('refuses .., absolute paths elsewhere and symlinks that leave the root', async () => {
    const rel = path.relative(root, path.join(outside, 'secret.py'));
    await refused('read_skeleton', { file_path: rel }, /refused: .* is outside the workspace root/);
    await refused('read_skeleton', { file_path: 'shop/../../x.py' }, /outside the workspace root/);
    await refused('read_skeleton', { file_path: path.join(outside, 'secret.py') }, /outside the workspace root/);
    await refused('read_skeleton', { file_path: 'file://' + path.join(outside, 'secret.py') }, /outside the workspace root/);
    await refused('read_skeleton', { file_path: 'shop/leak.py' }, /symlink that leads outside/);
    await refused('read_skeleton', { file_path: 'linked/secret.py' }, /symlink that leads outside/);
  });

  it('refuses ids and search paths that leave the root', async () => {
    await refused('trace_causal_path', { entity_id: `func:${path.relative(root, outside)}/secret.py:leak` }, /outside the workspace root/);
    await refused('open_surgical_window', { entity_id: `func:${outside}/secret.py:leak` }, /outside the workspace root/);
    await refused('open_surgical_window', { entity_id: 'func:shop/leak.py:leak' }, /symlink that leads outside/);
    await refused('open_surgical_window', { entity_id: 'func:linked/secret.py:leak' }, /symlink that leads outside/);
    await refused('search_and_rank', { query: 'leak', path: '../' }, /outside the workspace root/);
    await refused('search_and_rank', { query: 'leak', path: outside }, /outside the workspace root/);
    await expect(s.client.readResource({ uri: 'nsccn://skeleton/shop/leak.py' })).rejects.toThrow(/symlink that leads outside/);
  });

  it('takes an absolute path inside the root', async () => {
    const r = await s.call('read_skeleton', { file_path: path.join(root, 'shop', 'models.py') });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toMatch(/^shop\/models.py /);
  });
});

describe('start-up', () => {
  it('a root that is not a folder exits 1 with one line on stderr', () => {
    const r = spawnSync(process.execPath, [CLI, 'mcp', '--root', '/nonexistent/nsccn-root'], { encoding: 'utf8', input: '' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('nsccn: the root /nonexistent/nsccn-root is not a folder\n');
    expect(r.stdout).toBe('');
  });
});

describe('while the index is building', () => {
  it('answers from what is there and says so', async () => {
    const { dir: root, cleanup } = tempDir('nsccn-mcp-big-');
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`pkg${i % 20}/mod${i}.py`] = `def handler_${i}(x):\n    """Handle case ${i}."""\n    return helper_${i}(x)\n\n\ndef helper_${i}(x):\n    return x + ${i}\n`;
    writeFiles(root, files);
    const s = await startMcp(root);
    try {
      const early = await s.call('search_and_rank', { query: 'handler_299' });
      expect(early.isError).toBeFalsy();
      expect((early.structuredContent as { index?: { state: string } }).index?.state).toBe('indexing');
      expect(text(early)).toMatch(/^note: the index is still building \(\d+ files so far/);
      await waitReady(s, 120_000);
      const later = await s.call('search_and_rank', { query: 'handler_299', limit: 1 });
      expect((later.structuredContent as { results: SearchResult[]; index?: unknown }).results[0].id).toBe('func:pkg19/mod299.py:handler_299');
      expect((later.structuredContent as { index?: unknown }).index).toBeUndefined();
      expect(text(later)).not.toContain('still building');
    } finally {
      await s.close();
      cleanup();
    }
  }, 150_000);
});

describe('an index that is already complete', () => {
  it('answers the first call, made at once, without saying the index is still building', async () => {
    const { dir: root, cleanup } = tempDir('nsccn-mcp-indexed-');
    copyShop(root);
    expect(spawnSync(process.execPath, [CLI, 'index', '--root', root], { encoding: 'utf8', env: { ...process.env, NSCCN_MODEL: 'none' } }).status).toBe(0);
    const s = await startMcp(root);
    try {
      const first = await s.call('search_and_rank', { query: 'charge the card', limit: 1 });
      expect(first.isError).toBeFalsy();
      expect(text(first)).not.toContain('still building');
      expect((first.structuredContent as { index?: unknown }).index).toBeUndefined();
    } finally {
      await s.close();
      cleanup();
    }
  }, 60_000);
});

describe('an index that the disk has moved past', () => {
  it('answers the first call from the disk: the start-up check and its re-index are waited for', async () => {
    const { dir: root, cleanup } = tempDir('nsccn-mcp-stale-');
    copyShop(root);
    expect(spawnSync(process.execPath, [CLI, 'index', '--root', root], { encoding: 'utf8', env: { ...process.env, NSCCN_MODEL: 'none' } }).status).toBe(0);
    // Changed while no server ran (or left by an editor that quit with unsaved text): only the
    // next server's stat of every file finds it.
    const base = path.join(root, 'shop', 'base.py');
    fs.appendFileSync(base, '\n\ndef audit_trail(row):\n    return _write("audit", row)\n');
    const s = await startMcp(root);
    try {
      const first = await s.call('trace_causal_path', { entity_id: 'func:shop/base.py:audit_trail', direction: 'down', depth: 1 });
      expect(first.isError, text(first)).toBeFalsy();
      expect(text(first)).toContain('func:shop/base.py:_write');
    } finally {
      await s.close();
      cleanup();
    }
  }, 60_000);
});

describe('the child language server', () => {
  it('is started again after it dies: calls in flight fail with "call again", the next call works', async () => {
    const { dir: root, cleanup } = tempDir('nsccn-mcp-restart-');
    copyShop(root);
    const s = await startMcp(root);
    const callersOfCharge = () => s.call('trace_causal_path', { entity_id: 'func:shop/services/payments.py:charge', direction: 'up', depth: 1 });
    try {
      await waitReady(s);
      const adapter = s.transport.pid!;
      const [first] = childPids(adapter);
      expect(first).toBeGreaterThan(0);
      process.kill(first, 'SIGKILL');
      for (let i = 0; i < 100 && alive(first); i++) await sleep(50);
      expect(alive(first)).toBe(false);

      const r = await callersOfCharge();
      expect(r.isError).toBeFalsy();
      expect(text(r)).toContain('← CALLS func:shop/services/checkout.py:checkout');
      const [second] = childPids(adapter);
      expect(second).toBeGreaterThan(0);
      expect(second).not.toBe(first);

      // Killed with 100 calls in flight: each one answers (or fails saying to call again); none hangs.
      const calls = Array.from({ length: 100 }, () => callersOfCharge());
      process.kill(second, 'SIGKILL');
      for (const res of await Promise.all(calls)) {
        if (res.isError) expect(text(res)).toMatch(/stopped during nsccn\/(trace|status)[\s\S]*next: The language server is restarted automatically; call the tool again/);
        else expect(text(res)).toContain('← CALLS func:shop/services/checkout.py:checkout');
      }
      // All 100 may have been answered before the kill landed: the next call is one made after
      // the death (a call while it is dying fails with "call again", as above).
      for (let i = 0; i < 100 && alive(second); i++) await sleep(50);
      expect(alive(second)).toBe(false);
      expect((await callersOfCharge()).isError).toBeFalsy();
      const status = await s.call('index_status');
      expect((status.structuredContent as { restarts: number }).restarts).toBe(2);
    } finally {
      await s.close();
      cleanup();
    }
  });

  it('works beside an editor\'s language server on the same root (one shared index)', async () => {
    const { dir: root, cleanup } = tempDir('nsccn-mcp-shared-');
    copyShop(root);
    const editor = await LspClient.start({ folders: [root] });
    const s = await startMcp(root);
    try {
      await editor.waitReady();
      await waitReady(s);
      const r = await s.call('trace_causal_path', { entity_id: 'func:shop/services/payments.py:charge', direction: 'up', depth: 1 });
      expect(text(r)).toContain('← CALLS func:shop/services/checkout.py:checkout');
      expect((await editor.status()).files).toBe(7);
    } finally {
      await s.close();
      await editor.stop();
      cleanup();
    }
  });

  it('stops with the adapter when stdin closes: the adapter exits 0, no orphan', async () => {
    const { dir: root, cleanup } = tempDir('nsccn-mcp-stdin-');
    copyShop(root);
    const proc = spawn(process.execPath, [CLI, 'mcp', '--root', root, '--model', 'none'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } };
      proc.stdin!.write(JSON.stringify(initialize) + '\n');
      let lsp: number | undefined;
      for (let i = 0; i < 200 && !(out.includes('"id":1') && (lsp = childPids(proc.pid!)[0])); i++) await sleep(50);
      expect(out).toContain('"serverInfo"');
      expect(lsp).toBeGreaterThan(0);

      const closedAt = Date.now();
      proc.stdin!.end();
      expect(await exited).toBe(0);
      expect(Date.now() - closedAt).toBeLessThan(5000);
      for (let i = 0; i < 40 && alive(lsp!); i++) await sleep(50);
      expect(alive(lsp!)).toBe(false);
    } finally {
      if (proc.exitCode === null) proc.kill('SIGKILL');
      cleanup();
    }
  });
});
