// The fallback workspace watcher: real files in a temp dir, real chokidar events.
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkspaceWatcher } from '../server/src/engine/workspace/watch';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

function tempRoot(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-watch-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'pkg'));
  fs.mkdirSync(path.join(dir, 'build'));
  fs.writeFileSync(path.join(dir, 'pkg', 'a.py'), 'def a(): pass\n');
  fs.writeFileSync(path.join(dir, 'pkg', 'b.py'), 'def b(): pass\n');
  return dir;
}

/** Starts a watcher that records each batch; `next()` waits for the next batch. */
async function startRecorder(root: string, debounceMs = 100) {
  const batches: string[][] = [];
  let wake: (() => void) | null = null;
  const watcher = await WorkspaceWatcher.start({
    root,
    debounceMs,
    onChange: (files) => {
      batches.push(files);
      wake?.();
    },
    ignore: (rel, isDir) => (isDir && rel === 'build') || rel.endsWith('.log'),
    accept: (rel) => rel.endsWith('.py'),
  });
  cleanups.push(() => watcher.close());
  const next = (timeoutMs = 5000): Promise<string[]> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no batch within ${timeoutMs} ms; got ${JSON.stringify(batches)}`)), timeoutMs);
      const check = () => {
        if (batches.length) {
          clearTimeout(timer);
          wake = null;
          resolve(batches.shift()!);
        } else wake = check;
      };
      check();
    });
  return { watcher, batches, next };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WorkspaceWatcher', () => {
  it('batches creates, changes and deletes into one sorted list of relative paths', async () => {
    const root = tempRoot();
    const { next } = await startRecorder(root);
    fs.writeFileSync(path.join(root, 'pkg', 'c.py'), 'def c(): pass\n');
    fs.appendFileSync(path.join(root, 'pkg', 'a.py'), 'def a2(): pass\n');
    fs.rmSync(path.join(root, 'pkg', 'b.py'));
    fs.writeFileSync(path.join(root, 'notes.txt'), 'not python\n');
    const seen = new Set<string>();
    // Native events can straddle two bursts on a loaded machine: collect until all three arrive.
    while (seen.size < 3) for (const f of await next()) seen.add(f);
    expect([...seen].sort()).toEqual(['pkg/a.py', 'pkg/b.py', 'pkg/c.py']);
  });

  it('skips ignored folders and files, and its own index folder', async () => {
    const root = tempRoot();
    const { next, batches } = await startRecorder(root);
    fs.writeFileSync(path.join(root, 'build', 'gen.py'), 'x = 1\n');
    fs.mkdirSync(path.join(root, '.nsccn'));
    fs.writeFileSync(path.join(root, '.nsccn', 'index.py'), 'x = 1\n');
    fs.writeFileSync(path.join(root, 'pkg', 'debug.log'), 'x\n');
    await sleep(400);
    expect(batches).toEqual([]);
    fs.writeFileSync(path.join(root, 'pkg', 'd.py'), 'x = 1\n');
    expect(await next()).toEqual(['pkg/d.py']);
  });

  it('reports both sides of a rename and the files of a removed folder', async () => {
    const root = tempRoot();
    const { next } = await startRecorder(root);
    fs.renameSync(path.join(root, 'pkg', 'a.py'), path.join(root, 'pkg', 'renamed.py'));
    const seen = new Set<string>();
    while (seen.size < 2) for (const f of await next()) seen.add(f);
    expect([...seen].sort()).toEqual(['pkg/a.py', 'pkg/renamed.py']);
    fs.rmSync(path.join(root, 'pkg'), { recursive: true });
    seen.clear();
    while (seen.size < 2) for (const f of await next()) seen.add(f);
    expect([...seen].sort()).toEqual(['pkg/b.py', 'pkg/renamed.py']);
  });

  it('hears of a file it may want by name once it wants it (a project file read later), and never watches the others', async () => {
    const root = tempRoot();
    fs.writeFileSync(path.join(root, 'pkg', 'tsconfig.base.json'), '{}');
    fs.writeFileSync(path.join(root, 'pkg', 'notes.txt'), 'x');
    const wanted = new Set<string>();
    const watchable = vi.fn((rel: string) => !rel.endsWith('.txt'));
    const batches: string[][] = [];
    const watcher = await WorkspaceWatcher.start({
      root,
      debounceMs: 50,
      onChange: (files) => batches.push(files),
      accept: (rel) => rel.endsWith('.py') || wanted.has(rel),
      watchable,
    });
    cleanups.push(() => watcher.close());
    expect(watchable).toHaveBeenCalledWith('pkg/notes.txt');
    // Only after the start does a tsconfig's `extends` make the engine read it.
    wanted.add('pkg/tsconfig.base.json');
    fs.writeFileSync(path.join(root, 'pkg', 'tsconfig.base.json'), '{"compilerOptions": {}}');
    const deadline = Date.now() + 5000;
    while (!batches.flat().includes('pkg/tsconfig.base.json') && Date.now() < deadline) await sleep(50);
    expect(batches.flat()).toContain('pkg/tsconfig.base.json');
  });

  it('stops reporting after close and flushes nothing late', async () => {
    const root = tempRoot();
    const { watcher, batches } = await startRecorder(root);
    fs.writeFileSync(path.join(root, 'pkg', 'e.py'), 'x = 1\n');
    await watcher.close();
    await sleep(300);
    expect(batches).toEqual([]);
  });
});
