import { test, expect } from 'vitest';
import { Worker } from 'node:worker_threads';
import * as os from 'node:os';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildTinyModel } from './helpers/tiny-model';

function body(): void {
  const { parentPort, workerData } = require('node:worker_threads');
  const t = require(workerData.path);
  (async () => {
    const fe = await t.pipeline('feature-extraction', workerData.model, { dtype: 'q8', local_files_only: true });
    const out = await fe(['verify user password', 'open socket'], { pooling: 'mean', normalize: true });
    parentPort.postMessage({ dims: out.dims, data: out.data });
  })().catch((e: Error) => parentPort.postMessage({ error: e.message }));
}

test('eval worker', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-'));
  const m = buildTinyModel(root, { name: 'tiny-a', quantized: true });
  const p = require.resolve('@huggingface/transformers');
  for (const model of [m.dir, path.join(root, 'nope')]) {
  const t0 = Date.now();
  const w = new Worker(`(${body.toString()})()`, { eval: true, workerData: { path: p, model } });
  const msg = await new Promise((res, rej) => { w.on('message', res); w.on('error', rej); });
  console.log(Date.now() - t0, msg);
  await w.terminate();
  }
});
