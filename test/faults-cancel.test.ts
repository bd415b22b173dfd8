// A trace that is already running, over the real server: a layered call graph (10 layers of 40
// functions, each calling every function of the next layer: 14,400 CALLS edges) makes
// `trace main down 10` walk for most of a second. While it walks, the server answers other
// requests; a `$/cancelRequest` sent mid-walk stops it with RequestCancelled (-32800) promptly,
// and the same trace answers in full afterwards.
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { Methods, type SearchResponse, type TraceResult } from '../protocol';
import { Engine } from '../server/src/engine/engine';
import { LspClient, sleep, tempDir, writeFiles } from './helpers/lsp-client';

const WIDTH = 40;
const LAYERS = 10;

function layeredGraph(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let l = 0; l < LAYERS; l++) {
    let text = l + 1 < LAYERS ? `from l${l + 1} import *\n` : '';
    for (let w = 0; w < WIDTH; w++) {
      text += `def f${l}_${w}():\n`;
      if (l + 1 < LAYERS) for (let v = 0; v < WIDTH; v++) text += `    f${l + 1}_${v}()\n`;
      else text += '    pass\n';
    }
    files[`l${l}.py`] = text;
  }
  files['main.py'] = 'from l0 import *\n\ndef main():\n' + Array.from({ length: WIDTH }, (_, w) => `    f0_${w}()\n`).join('');
  return files;
}

let client: LspClient;
let cleanup: () => void;
const TRACE = { id: 'func:main.py:main', direction: 'down', depth: 10 };

beforeAll(async () => {
  const t = tempDir('nsccn-cancel-');
  cleanup = t.cleanup;
  writeFiles(t.dir, layeredGraph());
  client = await LspClient.start({ folders: [path.resolve(t.dir)] });
  await client.waitReady();
  // The server's start-up work in the background (its vectors, then a spare parser and the
  // integrity check) done first: the timings below are the trace's, not a loaded start's.
  for (let i = 0; i < 100 && !((await client.status()).streamProgress ?? []).every((p) => p.complete); i++) await sleep(100);
  await sleep(500);
}, 120_000);

afterAll(async () => {
  if (client?.running) await client.stop();
  cleanup?.();
});

/** Sends a request and cancels it at once: the error code it is answered with, 0 for a result. */
async function sentThenCancelled(method: string, params: unknown): Promise<number> {
  const source = new CancellationTokenSource();
  const p = client.conn.sendRequest(method, params, source.token);
  source.cancel();
  return p.then(
    () => 0,
    (e: { code: number }) => e.code,
  );
}

describe('a running trace', () => {
  test('leaves the server responsive, and stops at $/cancelRequest with -32800', async () => {
    const t0 = performance.now();
    const full = await client.request<TraceResult>(Methods.trace, TRACE);
    const fullMs = performance.now() - t0;
    expect(Object.keys(full.adjacency)).toHaveLength(1 + WIDTH * (LAYERS - 1)); // every function but the last layer's
    expect(Object.values(full.adjacency).flat()).toHaveLength(WIDTH + WIDTH * WIDTH * (LAYERS - 1));
    expect(fullMs).toBeGreaterThan(100); // long enough for the rest of the test to land mid-walk

    // Asked while the trace walks, a small request is answered before the trace is.
    let traceDone = 0;
    const running = client.request<TraceResult>(Methods.trace, TRACE).then((r) => ((traceDone = performance.now()), r));
    await sleep(30);
    const status = await client.status();
    const statusDone = performance.now();
    expect(status.state).toBe('ready');
    expect(traceDone === 0 || statusDone < traceDone, 'status answered during the trace').toBe(true);
    expect(await running).toEqual(full);

    // Cancelled mid-walk: answered RequestCancelled soon after the cancel, well before the walk would end.
    const source = new CancellationTokenSource();
    const sent = performance.now();
    const cancelled = client.conn.sendRequest(Methods.trace, TRACE, source.token);
    await sleep(Math.min(60, fullMs / 3));
    const cancelAt = performance.now();
    source.cancel();
    const outcome = await cancelled.then(
      () => ({ code: 0 }),
      (e: { code: number }) => ({ code: e.code }),
    );
    const answeredAfterCancelMs = performance.now() - cancelAt;
    expect(outcome.code).toBe(-32800);
    expect(performance.now() - sent).toBeLessThan(fullMs);
    expect(answeredAfterCancelMs).toBeLessThan(Math.max(100, fullMs / 2));

    // The server is fine after: the same trace answers in full.
    expect(await client.request(Methods.trace, TRACE)).toEqual(full);
  }, 60_000);

  test('paths (`to`) through the same graph are cancellable too', async () => {
    const req = { id: 'func:main.py:main', to: `func:l${LAYERS - 1}.py:f${LAYERS - 1}_0`, k: 20 };
    const full = await client.request<TraceResult>(Methods.trace, req);
    expect(full.paths).toHaveLength(20);
    const code = await sentThenCancelled(Methods.trace, req);
    // Cancelled while queued or while running: either way RequestCancelled, never a wrong answer.
    expect(code === -32800 || code === 0).toBe(true);
    expect(await client.request(Methods.trace, req)).toEqual(full);
  }, 60_000);
});

describe('a search', () => {
  test('cancelled over the protocol answers -32800, and the same search answers in full after', async () => {
    const req = { query: 'f3_7', limit: 5 };
    const full = await client.request<SearchResponse>(Methods.search, req);
    expect(full.results[0].id).toBe('func:l3.py:f3_7');
    expect(await sentThenCancelled(Methods.search, req)).toBe(-32800);
    expect(await client.request(Methods.search, req)).toEqual(full);
  }, 60_000);

  test('stops at the next stage once cancelled, instead of finishing and being thrown away', async () => {
    const t = tempDir('nsccn-cancel-search-');
    writeFiles(t.dir, { 'a.py': 'def parse_config(path):\n    return open(path).read()\n' });
    const engine = await Engine.open({ root: t.dir, dbPath: path.join(t.dir, 'index.db'), workers: 0, embeddings: { model: 'none' } });
    try {
      await engine.indexWorkspace();
      expect((await engine.search({ query: 'parse_config' })).results[0].id).toBe('func:a.py:parse_config');
      // Cancelled before it starts: no stream is asked.
      await expect(engine.search({ query: 'parse_config' }, { isCancellationRequested: true })).rejects.toMatchObject({ code: -32800 });
      // Cancelled while the streams run (the token turns after its first look): stopped after them.
      let looks = 0;
      const midway = {
        get isCancellationRequested() {
          return ++looks > 1;
        },
      };
      await expect(engine.search({ query: 'parse_config' }, midway)).rejects.toMatchObject({ code: -32800, message: 'search cancelled' });
      expect(looks).toBeLessThan(10); // every stream saw the cancel and did not search
    } finally {
      await engine.close();
      t.cleanup();
    }
  });
});
