// The index never costs the user a file, and never lies about being complete: NSCCN deletes or
// rewrites only files it created, follows no symlink to its index, serves a read-only index
// without touching it, and a run that was killed is finished by the next one, which then holds
// the same graph as an uninterrupted run. Two processes on one index: one indexes, the other
// waits (an index command) or answers from what is there (a query).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import type { IndexSummary } from '../protocol';
import { Engine } from '../server/src/engine/engine';
import { CLI, CLI_ENV, runCli } from './helpers/cli';
import { copyFixture, edgeList } from './helpers/workspace';

const ENV = CLI_ENV;
const cleanup: string[] = [];
afterEach(() => {
  for (const d of cleanup.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-safety-'));
  cleanup.push(d);
  return d;
}

function fixture(): string {
  const root = copyFixture('python');
  cleanup.push(root);
  return root;
}

const open = (root: string, dbPath?: string, log?: (m: string) => void) => Engine.open({ root, dbPath, workers: 0, embeddings: { model: 'none' }, log });

const nsccn = runCli;

describe('the index path', () => {
  test('a corrupt index NSCCN made is rebuilt, and says so', async () => {
    const root = fixture();
    await (await open(root)).close();
    fs.writeFileSync(path.join(root, '.nsccn/index.db'), 'this is not a database'.repeat(100));
    const logs: string[] = [];
    const engine = await open(root, undefined, (m) => logs.push(m));
    expect(engine.status().notes.join(' ')).toMatch(/rebuilt/);
    expect(logs.join(' ')).toMatch(/rebuilding/);
    expect((await engine.indexWorkspace()).files).toBe(7);
    await engine.close();
  });

  test('a file at dbPath that is not an index is refused and left as it was', async () => {
    const root = fixture();
    const notes = path.join(tmp(), 'notes.txt');
    fs.writeFileSync(notes, 'my notes, not an index\n');
    await expect(open(root, notes)).rejects.toThrow(/not create it, so it will not delete it/);
    expect(fs.readFileSync(notes, 'utf8')).toBe('my notes, not an index\n');
    const empty = path.join(tmp(), 'empty.db');
    fs.writeFileSync(empty, '');
    await expect(open(root, empty)).rejects.toThrow(/not an NSCCN index/);
  });

  test("another application's SQLite database is refused untouched (not even switched to WAL)", async () => {
    const root = fixture();
    const other = path.join(tmp(), 'app.sqlite');
    const db = new Database(other);
    db.exec("CREATE TABLE users(name TEXT); INSERT INTO users VALUES ('ada')");
    db.close();
    const before = fs.readFileSync(other);
    await expect(open(root, other)).rejects.toThrow(/is not an NSCCN index \(a database with tables users\)/);
    expect(fs.readFileSync(other).equals(before)).toBe(true);
    expect(fs.existsSync(other + '-wal')).toBe(false);
  });

  test('a repository that ships .nsccn or its index.db as a symlink is refused', async () => {
    const root = fixture();
    const outside = tmp();
    fs.symlinkSync(outside, path.join(root, '.nsccn'));
    await expect(open(root)).rejects.toThrow(/is a symbolic link/);
    expect(fs.readdirSync(outside)).toEqual([]);
    fs.rmSync(path.join(root, '.nsccn'));

    const target = path.join(outside, 'victim.db');
    const db = new Database(target);
    db.exec('CREATE TABLE t(x)');
    db.close();
    fs.mkdirSync(path.join(root, '.nsccn'));
    fs.symlinkSync(target, path.join(root, '.nsccn/index.db'));
    await expect(open(root)).rejects.toThrow(/index\.db is a symbolic link/);
    expect(fs.existsSync(target + '-wal')).toBe(false);
    // The CLI says it in one line and exits 1.
    const r = nsccn(root, 'index');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^nsccn: .*index\.db is a symbolic link/);
  });

  test('a read-only index is served as it is, or refused clearly, and never deleted', async (ctx) => {
    const root = fixture();
    const built = await open(root);
    await built.indexWorkspace();
    await built.close();
    const mnt = tmp();
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt]).status !== 0) ctx.skip(); // needs mount rights (root, as in CI)
    try {
      // A WAL-mode index without its shared-memory file cannot be read on a read-only disk.
      fs.copyFileSync(path.join(root, '.nsccn/index.db'), path.join(mnt, 'wal.db'));
      // One in rollback-journal mode can.
      fs.copyFileSync(path.join(root, '.nsccn/index.db'), path.join(mnt, 'plain.db'));
      const db = new Database(path.join(mnt, 'plain.db'));
      db.pragma('journal_mode = DELETE');
      db.close();
      expect(spawnSync('mount', ['-o', 'remount,ro', mnt]).status).toBe(0);
      const before = fs.readFileSync(path.join(mnt, 'wal.db'));
      await expect(open(root, path.join(mnt, 'wal.db'))).rejects.toThrow(/is read-only .*nothing was changed/);
      expect(fs.readFileSync(path.join(mnt, 'wal.db')).equals(before)).toBe(true);

      const engine = await open(root, path.join(mnt, 'plain.db'));
      const s = await engine.indexWorkspace();
      expect(s.notes?.join(' ')).toMatch(/read-only .*answering from what it holds/);
      expect(engine.status().notes.join(' ')).toMatch(/read-only/);
      expect(engine.outgoing('func:shop/services/checkout.py:checkout', ['CALLS']).length).toBeGreaterThan(0);
      await engine.close();
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  });
});

describe('the disk', () => {
  test.each(['64k', '300k'])('a full disk (%s: while opening, while indexing) is a clear error that loses nothing; with room again the index completes', async (size, ctx) => {
    const root = fixture();
    const mnt = tmp();
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mnt]).status !== 0) ctx.skip(); // needs mount rights (root, as in CI)
    try {
      const dbPath = path.join(mnt, 'idx', 'index.db');
      let engine: Engine | null = null;
      let failure: Error | null = null;
      try {
        engine = await open(root, dbPath);
        await engine.indexWorkspace();
      } catch (e) {
        failure = e as Error;
      }
      expect(failure?.message).toMatch(/^the disk holding the index .*is full: free some space and run again/);
      await engine?.close().catch(() => undefined);
      expect(spawnSync('mount', ['-o', 'remount,size=32m', mnt]).status).toBe(0);
      const again = await open(root, dbPath);
      const s = await again.indexWorkspace();
      expect(s.files).toBe(7);
      const reference = await open(fixture());
      await reference.indexWorkspace();
      expect(edgeList(again)).toEqual(edgeList(reference));
      await Promise.all([again.close(), reference.close()]);
    } finally {
      spawnSync('umount', ['-l', mnt]);
    }
  });
});

/** A workspace big enough that its first index commits several times before it ends. */
function generated(files: number): string {
  const root = tmp();
  fs.mkdirSync(path.join(root, 'pkg'));
  fs.writeFileSync(path.join(root, 'pkg/__init__.py'), '');
  for (let i = 0; i < files; i++) {
    const j = (i + 1) % files;
    const out = [`from .m${j} import f${j}_0, Base${j}\n`, `class Base${i}:\n    def run(self):\n        return f${j}_0()\n`, `class Child${i}(Base${j}):\n    def go(self):\n        return self.run()\n`];
    for (let k = 0; k < 30; k++) out.push(`def f${i}_${k}(x=1):\n    y = f${i}_${(k + 1) % 30}(x) if x else f${j}_0()\n    return helper${k}(y) + Base${j}().run()\n`);
    fs.writeFileSync(path.join(root, `pkg/m${i}.py`), out.join('\n'));
  }
  return root;
}

/**
 * Committed files (0 while a run is in progress with nothing committed, or none is recorded and
 * `midRun` asks for one); `readonly` false after a kill, to roll a hot journal back as any
 * client would.
 */
function countFiles(dbPath: string, readonly = true, midRun = false): number {
  try {
    const db = new Database(dbPath, { readonly, fileMustExist: true, timeout: 200 });
    try {
      if (midRun && !db.prepare("SELECT 1 FROM meta WHERE key = 'index_run'").get()) return 0;
      return (db.prepare('SELECT count(*) AS n FROM files').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}

async function startIndex(root: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, 'index', '--root', root], { env: ENV, stdio: 'ignore' });
  const db = path.join(root, '.nsccn/index.db');
  const deadline = Date.now() + 60_000;
  while (countFiles(db, true, true) === 0) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the index ended before it was caught between two commits: make the workspace larger');
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}

async function graphOf(root: string): Promise<string[]> {
  const e = await open(root);
  try {
    return edgeList(e);
  } finally {
    await e.close();
  }
}

describe('interrupted runs', () => {
  for (const signal of ['SIGKILL', 'SIGINT'] as const) {
    test(`${signal} during a first index: the next run finishes it to the graph of an uninterrupted run`, async () => {
      const root = generated(200);
      const reference = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-safety-ref-'));
      cleanup.push(reference);
      fs.cpSync(root, reference, { recursive: true });
      const child = await startIndex(root);
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
      const partial = countFiles(path.join(root, '.nsccn/index.db'), false);
      expect(partial).toBeGreaterThan(0);

      const again = nsccn(root, 'index', '--json');
      expect(again.code, again.stderr).toBe(0);
      const s = JSON.parse(again.stdout) as IndexSummary;
      expect(s.parsed).toBe(201 - partial);
      // A killed run leaves its record: the next one says it recovers. (Ctrl-C may close cleanly instead.)
      if (signal === 'SIGKILL') expect(s.notes?.join(' ')).toMatch(/did not finish: every reference is resolved again/);
      expect(nsccn(reference, 'index').code).toBe(0);
      const [got, want] = [await graphOf(root), await graphOf(reference)];
      expect(got.length).toBe(want.length);
      expect(got).toEqual(want);
      // And the run after that is an ordinary one.
      const third = JSON.parse(nsccn(root, 'index', '--json').stdout) as IndexSummary;
      expect(third).toMatchObject({ parsed: 0 });
      expect(third.notes).toBeUndefined();
    }, 120_000);
  }
});

describe('two processes on one index', () => {
  test('while another live process indexes, a query answers at once and says so; an index waits for it', async () => {
    const root = fixture();
    expect(nsccn(root, 'index').code).toBe(0);
    // A live process holding a run record: what a language server indexing this root looks like.
    const holder = spawn('sleep', ['60']);
    cleanup.push(root);
    try {
      const db = new Database(path.join(root, '.nsccn/index.db'));
      db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('index_run', ?)").run(
        JSON.stringify({ pid: holder.pid, host: os.hostname(), token: 'other', started: Date.now(), beat: Date.now() }),
      );
      db.close();
      fs.writeFileSync(path.join(root, 'shop/extra.py'), 'def extra():\n    return 1\n');
      const started = performance.now();
      const q = nsccn(root, 'search', 'extra', '--json');
      expect(q.code).toBe(0);
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(q.stderr).toMatch(new RegExp(`process ${holder.pid}, started \\d+ s ago is indexing this workspace: answering from the index as it is`));

      const index = spawn(process.execPath, [CLI, 'index', '--json', '--root', root], { env: ENV });
      let stdout = '';
      let stderr = '';
      index.stdout.on('data', (d) => (stdout += d));
      index.stderr.on('data', (d) => (stderr += d));
      const done = new Promise<number | null>((r) => index.once('exit', r));
      await new Promise((r) => setTimeout(r, 1500));
      expect(index.exitCode).toBeNull(); // still waiting
      holder.kill('SIGKILL'); // the other run dies without finishing
      expect(await done).toBe(0);
      const s = JSON.parse(stdout) as IndexSummary;
      expect(s).toMatchObject({ files: 8, parsed: 1 });
      expect(s.notes?.join(' ')).toMatch(/waiting for process \d+/);
      expect(s.notes?.join(' ')).toMatch(/did not finish/);
      expect(stderr).toBe('');
    } finally {
      holder.kill('SIGKILL');
    }
  }, 60_000);
});

describe('a run killed after its last file was written', () => {
  test('the next run, with nothing to parse, still resolves every reference', async () => {
    const root = fixture();
    const e = await open(root);
    await e.indexWorkspace();
    const want = edgeList(e);
    await e.close();
    // What a kill during resolution leaves: files committed, the run record of a dead process,
    // and no edges.
    const db = new Database(path.join(root, '.nsccn/index.db'));
    db.exec('DELETE FROM edges');
    db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('index_run', ?)").run(JSON.stringify({ pid: 2 ** 22 + 7, host: os.hostname(), token: 'dead', started: Date.now(), beat: Date.now() }));
    db.close();
    const again = await open(root);
    const s = await again.indexWorkspace();
    expect(s.parsed).toBe(0);
    expect(s.notes?.join(' ')).toMatch(/did not finish/);
    expect(edgeList(again)).toEqual(want);
    await again.close();
  });
});

describe('the index deleted under a running engine', () => {
  test('it keeps answering from what it holds, closes cleanly, and the next open rebuilds', async () => {
    const root = fixture();
    const e = await open(root);
    await e.indexWorkspace();
    fs.rmSync(path.join(root, '.nsccn'), { recursive: true, force: true });
    expect(e.outgoing('func:shop/services/checkout.py:checkout', ['CALLS']).length).toBeGreaterThan(0);
    expect((await e.search({ query: 'checkout' })).results.length).toBeGreaterThan(0);
    fs.appendFileSync(path.join(root, 'shop/base.py'), '\n\ndef late():\n    return _write(1, 2)\n');
    await e.syncFiles([{ path: 'shop/base.py', type: 'changed' }]);
    expect(e.entity('func:shop/base.py:late').name).toBe('late');
    await e.close();
    const again = await open(root);
    const s = await again.indexWorkspace();
    expect(s).toMatchObject({ files: 7, parsed: 7 });
    expect(again.entity('func:shop/base.py:late').name).toBe('late');
    await again.close();
  });
});

describe('files NSCCN writes beside its index', () => {
  test('a .gitignore planted in .nsccn as a dangling link is never written through', async () => {
    const root = fixture();
    const outside = path.join(tmp(), 'victim.txt');
    fs.mkdirSync(path.join(root, '.nsccn'));
    fs.symlinkSync(outside, path.join(root, '.nsccn/.gitignore'));
    const e = await open(root);
    await e.indexWorkspace();
    await e.close();
    expect(fs.existsSync(outside)).toBe(false);
  });
});

test('the kept index options replace a planted link instead of writing through it', () => {
  const root = fixture();
  const outside = path.join(tmp(), 'victim.json');
  fs.writeFileSync(outside, 'precious\n');
  fs.mkdirSync(path.join(root, '.nsccn'));
  fs.symlinkSync(outside, path.join(root, '.nsccn/cli-options.json'));
  expect(nsccn(root, 'index').code).toBe(0);
  expect(fs.readFileSync(outside, 'utf8')).toBe('precious\n');
  expect(fs.lstatSync(path.join(root, '.nsccn/cli-options.json')).isSymbolicLink()).toBe(false);
});
