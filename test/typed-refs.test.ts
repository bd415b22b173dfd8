// Which typed references an edit that moves a name looks at again (resolution-queries.ts typedRefsMentioning):
// those whose receiver type holds the name as a whole word, whether one name is asked or many.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

test('a name is found as a word of the receiver type, not inside a longer name', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-typed-'));
  dirs.push(root);
  fs.writeFileSync(
    path.join(root, 'repo.py'),
    [
      'class Repo:',
      '    def save(self): pass',
      'class RepoView:',
      '    def save(self): pass',
      'def make_view():',
      '    return RepoView()',
      'def use(view: RepoView, repo: Repo):',
      '    view.save()',
      '    repo.save()',
      '    v = make_view()',
      '    v.save()',
      '',
    ].join('\n'),
  );
  const e = await Engine.open({ root, embeddings: { model: 'none' } });
  await e.indexWorkspace();
  const types = (names: string[]) => e.store.typedRefsMentioning(names).map((r) => r.rtype).sort();
  expect(types(['Repo'])).toEqual(['Repo']);
  expect(types(['RepoView'])).toEqual(['RepoView']);
  expect(types(['make_view'])).toEqual(['make_view']);
  expect(types(['make', 'view', 'Rep'])).toEqual([]);
  expect(types(['Repo', 'make_view'])).toEqual(['Repo', 'make_view']);
  // An empty name (a moved name may be one) matches nothing and ends.
  expect(types(['', 'Repo'])).toEqual(['Repo']);
  expect(types(['', 'x'])).toEqual([]);
  // Many names at once: the same answers.
  const filler = Array.from({ length: 20 }, (_, i) => `Unrelated${i}`);
  expect(types([...filler, 'Repo'])).toEqual(['Repo']);
  expect(types([...filler, 'View', 'make'])).toEqual([]);
  await e.close();
});

test('the lookup sees types this process writes, and types another process commits', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-typed-'));
  dirs.push(root);
  fs.writeFileSync(path.join(root, 'repo.py'), 'class Repo:\n    def save(self): pass\ndef use(repo: Repo):\n    repo.save()\n');
  const e = await Engine.open({ root, embeddings: { model: 'none' } });
  await e.indexWorkspace();
  const types = (engine: Engine, names: string[]) => engine.store.typedRefsMentioning(names).map((r) => r.rtype).sort();
  expect(types(e, ['Repo'])).toEqual(['Repo']);
  expect(types(e, ['Ledger'])).toEqual([]);
  // Written by this engine after the lookup was first made.
  fs.writeFileSync(path.join(root, 'ledger.py'), 'class Ledger:\n    def add(self): pass\ndef book(l: Ledger):\n    l.add()\n');
  await e.indexWorkspace();
  expect(types(e, ['Ledger', 'Repo'])).toEqual(['Ledger', 'Repo']);
  // Written by another engine on the same index (a CLI run beside a server).
  fs.writeFileSync(path.join(root, 'cache.py'), 'class Cache:\n    def get(self): pass\ndef read(c: Cache):\n    c.get()\n');
  const other = await Engine.open({ root, embeddings: { model: 'none' } });
  await other.indexWorkspace();
  await other.close();
  expect(types(e, ['Cache'])).toEqual(['Cache']);
  await e.close();
});
