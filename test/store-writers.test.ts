// Two writers on one index file (a language server and `nsccn index`, say): a write transaction
// takes the write lock when it begins, so one that reads before it writes is never refused
// because the other committed in between (WAL refuses that upgrade at once, without waiting).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openDatabase } from '../server/src/engine/store/db';
import { Store } from '../server/src/engine/store/store';
import { extraction } from './helpers/semantic-fixture';

let dir = '';
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const meta = (p: string) => ({ path: p, language: 'python', module: p.replace(/\.py$/, ''), hash: 'h', size: 1, mtimeMs: 1 });

test('a transaction that reads first still writes when another connection commits meanwhile', () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-writers-'));
  const file = path.join(dir, 'index.db');
  const a = new Store(openDatabase(file, () => {}).db);
  const b = new Store(openDatabase(file, () => {}).db);
  b.db.pragma('busy_timeout = 50');
  let other: unknown = null;
  a.transaction(() => {
    a.files(); // a read: a deferred transaction would now hold a snapshot and no lock
    try {
      b.transaction(() => b.replaceFile(meta('other.py'), extraction('other.py', [{ name: 'g', body: 'g' }])));
      other = 'committed';
    } catch (e) {
      other = (e as { code?: string }).code ?? String(e);
    }
    a.replaceFile(meta('mine.py'), extraction('mine.py', [{ name: 'f', body: 'f' }]));
  });
  // The other writer waited (and here, with a tiny timeout, gave up) instead of slipping in.
  expect(other).toBe('SQLITE_BUSY');
  expect(a.files().map((f) => f.path)).toEqual(['mine.py']);
  // Once the first is done, the second writes.
  b.transaction(() => b.replaceFile(meta('other.py'), extraction('other.py', [{ name: 'g', body: 'g' }])));
  expect(a.files().map((f) => f.path).sort()).toEqual(['mine.py', 'other.py']);
  a.db.close();
  b.db.close();
});

test('file stamps and counts are kept while nothing is written, and follow both connections writes', () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-writers-'));
  const file = path.join(dir, 'index.db');
  const a = new Store(openDatabase(file, () => {}).db);
  const b = new Store(openDatabase(file, () => {}).db);
  a.transaction(() => a.replaceFile(meta('one.py'), extraction('one.py', [{ name: 'f', body: 'f' }]), null));
  const stamps = a.fileStamps();
  expect([...stamps.keys()]).toEqual(['one.py']);
  expect(a.fileStamps()).toBe(stamps); // nothing written: the same map, not read again
  expect(a.counts()).toEqual({ files: 1, entities: 2, edges: 0 });
  // This connection writes.
  a.transaction(() => a.replaceFile(meta('two.py'), extraction('two.py', [{ name: 'g', body: 'g' }]), null));
  expect([...a.fileStamps().keys()].sort()).toEqual(['one.py', 'two.py']);
  expect(a.counts().files).toBe(2);
  // The other connection commits.
  b.transaction(() => b.replaceFile(meta('three.py'), extraction('three.py', [{ name: 'h', body: 'h' }]), null));
  expect([...a.fileStamps().keys()].sort()).toEqual(['one.py', 'three.py', 'two.py']);
  expect(a.counts().files).toBe(3);
  // A write rolled back leaves what was there.
  expect(() =>
    a.transaction(() => {
      a.replaceFile(meta('four.py'), extraction('four.py', [{ name: 'k', body: 'k' }]), null);
      expect(a.counts().files).toBe(4);
      throw new Error('rolled back');
    }),
  ).toThrow('rolled back');
  expect(a.counts().files).toBe(3);
  expect(a.fileStamps().has('four.py')).toBe(false);
  a.db.close();
  b.db.close();
});
