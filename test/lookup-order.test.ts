// Resolution must not depend on the order lookups happen in. Lookups nested past the nesting
// limit are cut short (an alias is left unresolved); a class's MRO first computed inside such a
// lookup used to be cached cut short for everyone, so which reference resolved first decided
// whether `self.hello()` in a subclass found its base's method.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';

let dir = '';
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('an MRO first computed in a lookup cut by the nesting limit is not kept for later lookups', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-order-'));
  fs.writeFileSync(path.join(dir, 'base.py'), 'class Base:\n    def hello(self):\n        return 1\n');
  fs.writeFileSync(path.join(dir, 'alias.py'), 'from base import Base\n\nAliasBase = Base\n');
  fs.writeFileSync(path.join(dir, 'child.py'), 'from alias import AliasBase\n\n\nclass Child(AliasBase):\n    def go(self):\n        return self.hello()\n');
  const engine = await Engine.open({ root: dir, dbPath: path.join(dir, 'index.db'), workers: 0, embeddings: { model: 'none' } });
  try {
    await engine.indexWorkspace();
    const resolver = engine.graph.resolver;
    const child = engine.graph.model.byId.get('class:child.py:Child')!;
    expect(resolver.mro(child).mro.map((c) => c.id)).toEqual(['class:child.py:Child', 'class:base.py:Base']);
    // The same question asked from deep inside another lookup: the alias base is cut short there.
    resolver.dropCaches();
    const inner = resolver as unknown as { nesting: number };
    inner.nesting = 100;
    expect(resolver.mro(child).mro.map((c) => c.id)).toEqual(['class:child.py:Child']);
    inner.nesting = 0;
    expect(resolver.mro(child).mro.map((c) => c.id)).toEqual(['class:child.py:Child', 'class:base.py:Base']);
  } finally {
    await engine.close();
  }
});
