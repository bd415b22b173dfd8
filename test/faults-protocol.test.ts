// The protocol under load (issue 13, "what must be proven" 6), over the real server: 1,000
// requests in flight all answered correctly; $/cancelRequest answered RequestCancelled for
// requests still queued; a client that stops reading makes the server stop reading too (its
// memory stays bounded) and every answer arrives once the client reads again.
import * as fs from 'node:fs';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CancellationTokenSource, StreamMessageReader, type Message } from 'vscode-jsonrpc/node';
import { Methods, type SearchResponse, type StatusResponse, type TraceResult } from '../protocol';
import { LspClient, REPO, copyShop, fileUri, serverCommand, sleep, tempDir } from './helpers/lsp-client';

let root: string;
let cleanup: () => void;
let client: LspClient;
const uri = (rel: string) => fileUri(path.join(root, rel));

beforeAll(async () => {
  ({ dir: root, cleanup } = tempDir('nsccn-protocol-'));
  copyShop(root);
  client = await LspClient.start({ folders: [root] });
  await client.waitReady();
  // Search answers change while the static stream's vectors fill in: start once they are stable.
  let last = '';
  let same = 0;
  await client.eventually(async () => {
    const now = JSON.stringify(await client.request(Methods.search, { query: 'charge card', limit: 5 }));
    same = now === last ? same + 1 : 0;
    last = now;
    return same >= 3;
  }, 30_000, 'stable search answers');
});

afterAll(async () => {
  if (client.running) await client.stop();
  cleanup();
});

/** The requests of the load tests, each with its answer when asked alone. */
async function references(): Promise<Array<{ method: string; params: unknown; answer: unknown }>> {
  const reqs = [
    { method: Methods.search, params: { query: 'charge card', limit: 5 } },
    { method: Methods.trace, params: { id: 'class:shop/base.py:Model', direction: 'up', depth: 10 } },
    { method: Methods.trace, params: { id: 'func:shop/services/checkout.py:checkout', direction: 'down', depth: 10 } },
    { method: Methods.skeleton, params: { uri: uri('shop/models.py') } },
    { method: Methods.window, params: { id: 'class:shop/models.py:Order' } },
    { method: 'textDocument/documentSymbol', params: { textDocument: { uri: uri('shop/base.py') } } },
  ];
  const out = [];
  for (const r of reqs) out.push({ ...r, answer: await client.request(r.method, r.params) });
  return out;
}

describe('requests in flight', () => {
  test('1,000 at once are all answered, each as when asked alone; the server answers after', async () => {
    const refs = await references();
    const sent = Array.from({ length: 1000 }, (_, i) => refs[i % refs.length]);
    const answers = await Promise.all(sent.map((r) => client.request(r.method, r.params)));
    answers.forEach((a, i) => expect(a, `request ${i} (${sent[i].method})`).toEqual(sent[i].answer));
    expect((await client.status()).state).toBe('ready');
  }, 60_000);

  test('$/cancelRequest: queued requests are answered RequestCancelled, the others normally', async () => {
    const trace = { id: 'class:shop/base.py:Model', direction: 'up', depth: 10 };
    const expected = await client.request<TraceResult>(Methods.trace, trace);
    const search = { query: 'order total', limit: 10 };
    const expectedSearch = await client.request<SearchResponse>(Methods.search, search);
    const outcomes = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        const source = new CancellationTokenSource();
        const isSearch = i % 4 === 0;
        const p = client.conn.sendRequest(isSearch ? Methods.search : Methods.trace, isSearch ? search : trace, source.token);
        if (i % 2 === 1) source.cancel();
        try {
          const r = await p;
          expect(r).toEqual(isSearch ? expectedSearch : expected);
          return i % 2 === 1 ? 'ran anyway' : 'answered';
        } catch (e) {
          expect(i % 2, `request ${i} failed without being cancelled: ${(e as Error).message}`).toBe(1);
          expect((e as { code: number }).code).toBe(-32800);
          return 'cancelled';
        }
      }),
    );
    expect(outcomes.filter((o) => o === 'answered')).toHaveLength(200);
    expect(outcomes.filter((o) => o === 'cancelled').length).toBeGreaterThan(100);
    expect(await client.request(Methods.trace, trace)).toEqual(expected);
  }, 60_000);
});

describe('a client that stops reading', () => {
  test('the server stops reading too (bounded memory), then answers everything once read', async () => {
    const proc = spawn(process.execPath, serverCommand(), { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const answered = new Map<number, unknown>();
      const reader = new StreamMessageReader(proc.stdout!);
      reader.listen((m: Message) => {
        const r = m as { id?: number; result?: unknown; error?: unknown };
        if (typeof r.id === 'number') answered.set(r.id, r.result ?? r.error);
      });
      const frame = (msg: object) => {
        const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }));
        return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]);
      };
      proc.stdin!.write(frame({ id: 0, method: 'initialize', params: { processId: process.pid, rootUri: fileUri(root), capabilities: {} } }));
      while (!answered.has(0)) await sleep(20);
      proc.stdin!.write(frame({ method: 'initialized', params: {} }));

      proc.stdout!.pause(); // from now on nothing the server writes is read
      const n = 6000;
      const wave = (from: number) => Buffer.concat(Array.from({ length: n / 2 }, (_, i) => frame({ id: from + i, method: Methods.status, params: {} })));
      proc.stdin!.write(wave(1));
      await sleep(2000);
      // The server blocks on its full output instead of buffering answers: it has stopped
      // reading, so the second wave waits in our own buffer.
      const second = wave(1 + n / 2);
      proc.stdin!.write(second);
      await sleep(1000);
      expect(proc.stdin!.writableLength).toBeGreaterThan(second.length / 2);
      const rss = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${proc.pid}/status`, 'utf8'))![1]) * 1024;
      expect(rss).toBeLessThan(400 * 1024 * 1024);

      proc.stdout!.resume();
      const deadline = Date.now() + 60_000;
      while (answered.size < n + 1 && Date.now() < deadline) await sleep(50);
      expect(answered.size).toBe(n + 1);
      expect((answered.get(n) as StatusResponse).files).toBe(7);
      proc.stdin!.write(frame({ id: n + 1, method: Methods.skeleton, params: { uri: uri('shop/models.py') } }));
      while (!answered.has(n + 1)) await sleep(20);
      expect((answered.get(n + 1) as { text: string }).text).toContain('class Order(Model):');
    } finally {
      proc.kill('SIGKILL');
    }
  }, 90_000);
});
