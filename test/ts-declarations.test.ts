// `.d.ts` files: their entities are indexed (resolution, skeletons) but rank after the code they
// declare, whether the query is a name or a sentence.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';

let root: string;
let engine: Engine;
beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-dts-'));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src/cart.ts'), '/** Adds an item to the shopping cart. */\nexport function addItem(cart: string[], sku: string): void {\n  cart.push(sku);\n}\n');
  fs.writeFileSync(path.join(root, 'src/cart.d.ts'), '/** Adds an item to the shopping cart. */\nexport declare function addItem(cart: string[], sku: string): void;\n');
  engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
  await engine.indexWorkspace();
});
afterAll(async () => {
  await engine.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('declarations are indexed and have skeletons', () => {
  expect(engine.fileEntities('src/cart.d.ts').map((e) => e.id)).toContain('func:src/cart.d.ts:addItem');
  expect(engine.skeleton('src/cart.d.ts').text).toContain('addItem(cart: string[], sku: string): void');
});

test.each(['addItem', 'add an item to the cart'])('search %j ranks the implementation before its declaration', async (query) => {
  const ids = (await engine.search({ query, limit: 5 })).results.map((r) => r.id);
  expect(ids.indexOf('func:src/cart.ts:addItem')).toBe(0);
  expect(ids).toContain('func:src/cart.d.ts:addItem');
});
