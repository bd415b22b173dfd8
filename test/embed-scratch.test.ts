import { test, expect } from 'vitest';
import * as os from 'node:os';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildTinyModel } from './helpers/tiny-model';
test('scratch', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-'));
  const m = buildTinyModel(root, { name: 'tiny-a', quantized: true });
  const t = await import('@huggingface/transformers');
  t.env.allowRemoteModels = false; t.env.localModelPath = root + '/';
  const fe = await t.pipeline('feature-extraction', 'tiny-a', { dtype: 'q8' });
  const out = await fe(['verify user password', 'checkPassword credential', 'open socket url'], { pooling: 'mean', normalize: true });
  console.log(out.dims, out.tolist().map((r: number[]) => r.slice(0, 4)));
  const v = out.tolist() as number[][];
  const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
  console.log(dot(v[0], v[1]), dot(v[0], v[2]));
  console.log(fe.tokenizer.tokenize('checkPassword validate_token'));
  console.log(fe.model.config);
});
