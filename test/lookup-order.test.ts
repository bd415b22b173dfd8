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

/** An engine on `root` with its index inside it, parsing in-process, without vectors. */
const openEngine = (root: string) => Engine.open({ root, dbPath: path.join(root, 'index.db'), workers: 0, embeddings: { model: 'none' } });

test('an MRO first computed in a lookup cut by the nesting limit is not kept for later lookups', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-order-'));
  fs.writeFileSync(path.join(dir, 'base.py'), 'class Base:\n    def hello(self):\n        return 1\n');
  fs.writeFileSync(path.join(dir, 'alias.py'), 'from base import Base\n\nAliasBase = Base\n');
  fs.writeFileSync(path.join(dir, 'child.py'), 'from alias import AliasBase\n\n\nclass Child(AliasBase):\n    def go(self):\n        return self.hello()\n');
  const engine = await openEngine(dir);
  try {
    await engine.indexWorkspace();
    const resolver = engine.graph.resolver;
    const child = engine.graph.model.byId.get('class:child.py:Child')!;
    expect(resolver.mro(child).mro.map((c) => c.id)).toEqual(['class:child.py:Child', 'class:base.py:Base']);
    // The same question asked from deep inside another lookup: the alias base is cut short there.
    resolver.state.drop();
    resolver.state.nesting = 100;
    expect(resolver.mro(child).mro.map((c) => c.id)).toEqual(['class:child.py:Child']);
    resolver.state.nesting = 0;
    expect(resolver.mro(child).mro.map((c) => c.id)).toEqual(['class:child.py:Child', 'class:base.py:Base']);
  } finally {
    await engine.close();
  }
});

test('a module with a stub beside its source resolves to the same file whatever order the files were indexed in', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-order-'));
  const write = (root: string, rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  const importsOf = async (root: string, steps: string[][]) => {
    fs.mkdirSync(root);
    const engine = await openEngine(root);
    try {
      for (const files of steps) {
        for (const f of files) write(root, f, f.endsWith('.pyi') ? 'def make() -> int: ...\n' : f === 'main.py' ? 'import pkg\n\npkg.make()\n' : 'def make():\n    return 1\n');
        await engine.indexWorkspace();
      }
      return engine.store.outgoing('module:main.py:main').map((e) => `${e.relation} ${e.edge_target}`).sort();
    } finally {
      await engine.close();
    }
  };
  const files = ['main.py', 'pkg/__init__.py', 'pkg/__init__.pyi'];
  const cold = await importsOf(path.join(dir, 'cold'), [files]);
  // The stub indexed first, its source later: the model learns the two files the other way round.
  const stepwise = await importsOf(path.join(dir, 'steps'), [['main.py', 'pkg/__init__.pyi'], ['pkg/__init__.py']]);
  expect(cold).toContain('IMPORTS module:pkg/__init__.py:pkg');
  expect(stepwise).toEqual(cold);
});

test('a method rebound under its own name later in the class is still what calls of it reach', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-order-'));
  // The constructor below the method: its `this.parse = ...` declares an attribute of the same name.
  fs.writeFileSync(
    path.join(dir, 'schema.ts'),
    'export class Schema {\n  parse(x: string): string {\n    return x;\n  }\n  constructor() {\n    this.parse = this.parse.bind(this);\n  }\n}\n\nexport function run(s: Schema) {\n  return s.parse("a");\n}\n',
  );
  // Python's old idiom: the class body binds the name again after the def.
  fs.writeFileSync(path.join(dir, 'schema.py'), 'class Schema:\n    def parse(x):\n        return x\n    parse = staticmethod(parse)\n\n\ndef run():\n    return Schema.parse("a")\n');
  const engine = await openEngine(dir);
  try {
    await engine.indexWorkspace();
    const calls = (id: string) => engine.store.outgoing(id).filter((e) => e.relation === 'CALLS').map((e) => e.edge_target);
    expect(calls('func:schema.ts:run')).toEqual(['method:schema.ts:Schema.parse']);
    expect(calls('func:schema.py:run')).toEqual(['method:schema.py:Schema.parse']);
  } finally {
    await engine.close();
  }
});

test('a call made twice from one function is two edges, and both follow the callee when another file changes', async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-order-'));
  fs.writeFileSync(path.join(dir, 'a.py'), 'from b import g\n\n\ndef f():\n    g()\n    g()\n');
  fs.writeFileSync(path.join(dir, 'b.py'), 'def g():\n    return 1\n');
  fs.writeFileSync(path.join(dir, 'c.py'), 'def h():\n    return 2\n');
  const engine = await openEngine(dir);
  const calls = () =>
    engine.store
      .outgoing('func:a.py:f')
      .filter((e) => e.relation === 'CALLS')
      .map((e) => `${e.edge_target}@${e.sr}`)
      .sort();
  const input = { file: 'a.py', source: 'func:a.py:f', relation: 'CALLS' as const, target: 'g', receiver: null, rtype: null, configKind: null, catches: null };
  try {
    await engine.indexWorkspace();
    expect(calls()).toEqual(['func:b.py:g@4', 'func:b.py:g@5']);
    expect(engine.graph.resolver.resolve(input).targets).toEqual(['func:b.py:g']);
    // `g` now comes from c.py: the answer given for a.py before the change is not served again.
    fs.writeFileSync(path.join(dir, 'b.py'), 'from c import h as g\n');
    await engine.indexWorkspace();
    expect(calls()).toEqual(['func:c.py:h@4', 'func:c.py:h@5']);
    expect(engine.graph.resolver.resolve(input).targets).toEqual(['func:c.py:h']);
  } finally {
    await engine.close();
  }
});

test("a parameter typed by its callers follows a subclass's constructor calls as the subclass comes and goes in another file", async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-order-'));
  const write = (rel: string, text: string) => fs.writeFileSync(path.join(dir, rel), text);
  write('service.py', 'class Service:\n    def __init__(self, repo):\n        self.repo = repo\n\n    def run(self):\n        return self.repo.save()\n');
  write('repo.py', 'class Repo:\n    def save(self):\n        return 1\n\n\nclass Cache:\n    def save(self):\n        return 2\n');
  write('main.py', 'from repo import Repo\nfrom service import Service\n\n\ndef main():\n    return Service(Repo())\n');
  const engine = await openEngine(dir);
  const saves = () =>
    engine.store
      .outgoing('method:service.py:Service.run')
      .filter((e) => e.relation === 'CALLS')
      .map((e) => e.edge_target ?? `?${e.target}`);
  try {
    await engine.indexWorkspace();
    expect(saves()).toEqual(['method:repo.py:Repo.save']);
    // A subclass two files away, through another subclass, builds one with a Cache: callers disagree.
    write('sub.py', 'from service import Service\n\n\nclass Sub(Service):\n    pass\n');
    write('deeper.py', 'from repo import Cache\nfrom sub import Sub\n\n\nclass Deeper(Sub):\n    pass\n\n\ndef make():\n    return Deeper(Cache())\n');
    await engine.indexWorkspace();
    expect(saves()).toEqual(['?repo.save']);
    // The middle class gone, `Deeper` no longer inherits Service's constructor.
    fs.rmSync(path.join(dir, 'sub.py'));
    await engine.indexWorkspace();
    expect(saves()).toEqual(['method:repo.py:Repo.save']);
  } finally {
    await engine.close();
  }
});
