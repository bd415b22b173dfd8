// The real server under faults (issue 13, items 3, 4 and 7): the lifecycle errors of the spec,
// a stream it cannot read, SIGTERM, a buffer too large to index, edits out of order, and a
// watched file that became a link out of the workspace.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { MAX_HEADER_BYTES, MAX_MESSAGE_BYTES, Methods, type WindowResponse } from '../protocol';
import { LspClient, REPO, copyShop, fileUri, serverCommand, sleep, tempDir } from './helpers/lsp-client';

const CLI = path.join(REPO, 'dist', 'server', 'src', 'cli', 'main.js');
const cleanups: Array<() => void | Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function workspace(): string {
  const { dir, cleanup } = tempDir('nsccn-faults-lsp-');
  cleanups.push(cleanup);
  copyShop(dir);
  return dir;
}

async function started(root: string): Promise<LspClient> {
  const client = await LspClient.start({ folders: [root] });
  cleanups.push(() => (client.running ? client.stop() : undefined));
  await client.waitReady();
  return client;
}

async function errorOf(p: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await p;
  } catch (e) {
    return e as { code: number; message: string };
  }
  throw new Error('the request succeeded; an error was expected');
}

/** A server process with no client helper: the test speaks (or garbles) the protocol itself. */
function rawServer() {
  const proc = spawn(process.execPath, serverCommand(), { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  cleanups.push(() => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
  });
  return { proc, exited, stderr: () => stderr };
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what} not within ${ms} ms`)))]);
}

describe('the lifecycle', () => {
  test('requests before initialize get -32002, after shutdown -32600; exit then ends the server with 0', async () => {
    const root = workspace();
    const { proc, exited } = rawServer();
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.listen();
    cleanups.push(() => conn.dispose());
    expect(await errorOf(conn.sendRequest(Methods.status, {}))).toMatchObject({ code: -32002, message: expect.stringMatching(/not initialized/) });
    expect(await errorOf(conn.sendRequest('textDocument/hover', { textDocument: { uri: fileUri(path.join(root, 'shop/base.py')) }, position: { line: 0, character: 0 } }))).toMatchObject({ code: -32002 });
    await conn.sendRequest('initialize', { processId: process.pid, rootUri: fileUri(root), capabilities: {} });
    expect(await errorOf(conn.sendRequest('initialize', { processId: process.pid, rootUri: fileUri(root), capabilities: {} }))).toMatchObject({ code: -32600 });
    await conn.sendNotification('initialized', {});
    expect(await conn.sendRequest(Methods.status, {})).toMatchObject({ state: expect.any(String) });
    await conn.sendRequest('shutdown');
    expect(await errorOf(conn.sendRequest(Methods.status, {}))).toMatchObject({ code: -32600, message: expect.stringMatching(/shut down/) });
    expect(await errorOf(conn.sendRequest('shutdown'))).toMatchObject({ code: -32600 });
    await conn.sendNotification('exit');
    expect(await within(exited, 10_000, 'exit')).toBe(0);
  });

  test('a request sent before the initialize answer (as Neovim does) waits for the folders to open', async () => {
    const root = workspace();
    const { proc, exited } = rawServer();
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.listen();
    cleanups.push(() => conn.dispose());
    const init = conn.sendRequest('initialize', { processId: process.pid, rootUri: fileUri(root), capabilities: {} });
    const status = conn.sendRequest<{ notes: string[]; files: number }>(Methods.status, {});
    await init;
    const early = await status;
    expect(early.notes).not.toContain('no workspace folder is open');
    await conn.sendNotification('initialized', {});
    await conn.sendRequest('shutdown');
    await conn.sendNotification('exit');
    expect(await within(exited, 10_000, 'exit')).toBe(0);
  });

  test('a bad Content-Length ends the server with an error instead of a deaf process', async () => {
    const { proc, exited, stderr } = rawServer();
    proc.stdin!.write('Content-Length: twelve\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    expect(await within(exited, 10_000, 'exit after a bad header')).toBe(1);
    expect(stderr()).toMatch(/unreadable message stream: Content-Length value must be a number/);
  });

  test('a huge Content-Length (10^12) is refused at once: no waiting for the bytes, exit with an error', async () => {
    const { proc, exited, stderr } = rawServer();
    const t0 = performance.now();
    proc.stdin!.write('Content-Length: 1000000000000\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    expect(await within(exited, 5_000, 'exit after a huge Content-Length')).toBe(1);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(stderr()).toMatch(new RegExp(`Content-Length 1000000000000 is above the limit of ${MAX_MESSAGE_BYTES} bytes`));
  });

  test('a header that never ends is refused once it passes MAX_HEADER_BYTES', async () => {
    const { proc, exited, stderr } = rawServer();
    proc.stdin!.write('X-Padding: ' + 'a'.repeat(MAX_HEADER_BYTES + 10));
    expect(await within(exited, 5_000, 'exit after an endless header')).toBe(1);
    expect(stderr()).toMatch(/a message header longer than/);
  });

  test('messages split at every byte boundary, and a 3 MB body, still frame correctly', async () => {
    const root = workspace();
    const { proc, exited } = rawServer();
    const answers: unknown[] = [];
    const reader = new StreamMessageReader(proc.stdout!);
    reader.listen((m) => answers.push(m));
    const frame = (o: unknown) => {
      const body = Buffer.from(JSON.stringify(o));
      return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n`), body]);
    };
    const stream = Buffer.concat([
      frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: process.pid, rootUri: fileUri(root), capabilities: {} } }),
      frame({ jsonrpc: '2.0', method: 'initialized', params: {} }),
      // A 3 MB didOpen (multi-byte text) in one message.
      frame({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: fileUri(path.join(root, 'big.py')), languageId: 'python', version: 1, text: '# é€😀\n'.repeat(200_000) } } }),
      frame({ jsonrpc: '2.0', id: 2, method: Methods.status, params: {} }),
    ]);
    // The first 2 KB byte by byte (headers split anywhere), the rest in large pieces.
    for (let i = 0; i < 2048; i++) proc.stdin!.write(stream.subarray(i, i + 1));
    for (let i = 2048; i < stream.length; i += 65_536) proc.stdin!.write(stream.subarray(i, i + 65_536));
    const deadline = Date.now() + 20_000;
    while (!answers.some((a) => (a as { id?: number }).id === 2) && Date.now() < deadline) await sleep(50);
    expect(answers.find((a) => (a as { id?: number }).id === 2)).toMatchObject({ result: { state: expect.any(String) } });
    proc.kill('SIGTERM');
    await within(exited, 10_000, 'exit');
  }, 30_000);

  test('SIGTERM closes the index cleanly (no WAL left) and exits', async () => {
    const root = workspace();
    const client = await started(root);
    await client.open(fileUri(path.join(root, 'shop/base.py')), 'def edited():\n    pass\n');
    await client.request(Methods.status, {});
    expect(fs.existsSync(path.join(root, '.nsccn', 'index.db-wal'))).toBe(true);
    client.proc.kill('SIGTERM');
    expect(await within(client.exited, 10_000, 'exit on SIGTERM')).toBe(143);
    // SQLite removes the WAL when the last connection closes cleanly.
    expect(fs.existsSync(path.join(root, '.nsccn', 'index.db-wal'))).toBe(false);
  });
});

describe('nsccn index interrupted', () => {
  test('SIGINT stops the run, closes the index cleanly and exits 130', async () => {
    const { dir: root, cleanup } = tempDir('nsccn-faults-sigint-');
    cleanups.push(cleanup);
    const body = Array.from({ length: 40 }, (_, i) => `def f${i}(x):\n    """Doc ${i}."""\n    return g${i}(x) + helper(x)\n`).join('\n');
    for (let i = 0; i < 1500; i++) {
      fs.mkdirSync(path.join(root, `pkg${i % 30}`), { recursive: true });
      fs.writeFileSync(path.join(root, `pkg${i % 30}`, `m${i}.py`), `import os\n\n${body}`);
    }
    const proc = spawn(process.execPath, [CLI, 'index', '--root', root], { env: { ...process.env, NSCCN_MODEL: 'none' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    cleanups.push(() => {
      if (proc.exitCode === null) proc.kill('SIGKILL');
    });
    const db = path.join(root, '.nsccn', 'index.db');
    const deadline = Date.now() + 20_000;
    // Files are being written (the WAL grows) and the run is far from over.
    const walSize = () => (fs.existsSync(db + '-wal') ? fs.statSync(db + '-wal').size : 0);
    while (walSize() === 0 && Date.now() < deadline) await sleep(20);
    proc.kill('SIGINT');
    expect(await within(exited, 20_000, 'exit on SIGINT')).toBe(130);
    expect(fs.existsSync(db + '-wal')).toBe(false);
  });
});

describe('buffers', () => {
  test('a 7 MB buffer is not indexed, the user is told, and requests keep answering at once', async () => {
    const root = workspace();
    const client = await started(root);
    const big = 'def f():\n    return helper(1, 2, 3)\n\n'.repeat(200_000);
    await client.open(fileUri(path.join(root, 'shop/base.py')), big);
    const t0 = Date.now();
    const w = await client.request<WindowResponse>(Methods.window, { id: 'class:shop/models.py:User' });
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(w.code).toContain('class User');
    await client.eventually(async () => client.logs.some((m) => /larger than 1048576 bytes/.test(m)), 5000, 'a message about the large buffer');
    expect(await errorOf(client.request(Methods.window, { id: 'class:shop/base.py:Model' }))).toMatchObject({ message: expect.stringMatching(/unknown entity/) });
  });

  test('an edit out of order is not applied silently: the user is told and answers come from the saved file', async () => {
    const root = workspace();
    const client = await started(root);
    const uri = fileUri(path.join(root, 'shop/base.py'));
    await client.open(uri, 'def one():\n    pass\n', 5);
    await client.change(uri, 6, [{ text: 'def two():\n    pass\n' }]);
    expect((await client.request<WindowResponse>(Methods.window, { id: 'func:shop/base.py:two' })).code).toContain('def two');
    await client.change(uri, 4, [{ text: 'def stale():\n    pass\n' }]);
    const w = await client.request<WindowResponse>(Methods.window, { id: 'class:shop/base.py:Model' });
    expect(w.code).toContain('class Model');
    expect(client.logs.some((m) => /lost track of the unsaved changes of .*base\.py \(edit version 4 arrived after version 6\)/.test(m))).toBe(true);
  });
});

describe('watched files', () => {
  test('a file replaced by a link out of the root: window refuses it, a changed event removes it', async () => {
    const root = workspace();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-secret-'));
    cleanups.push(() => fs.rmSync(outside, { recursive: true, force: true }));
    fs.writeFileSync(path.join(outside, 'passwd'), 'root:x:0:0:SECRET\n');
    const client = await started(root);
    fs.rmSync(path.join(root, 'shop/base.py'));
    fs.symlinkSync(path.join(outside, 'passwd'), path.join(root, 'shop/base.py'));
    const err = await errorOf(client.request(Methods.window, { id: 'class:shop/base.py:Model' }));
    expect(err.message).toMatch(/links outside the workspace/);
    expect(err.message).not.toContain('SECRET');
    await client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: fileUri(path.join(root, 'shop/base.py')), type: 2 }] });
    await client.eventually(async () => /unknown entity/.test((await errorOf(client.request(Methods.window, { id: 'class:shop/base.py:Model' }))).message), 5000, 'the linked file forgotten');
  });
});

