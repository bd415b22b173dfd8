// Incremental against cold, the tools of test/incremental-vs-cold.test.ts and its TypeScript
// twin: a cold index of a copy of the workspace, an editor that applies what changed on disk as
// an editor and its file watcher do (not by an index run), and the random-edit loop both use.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'vitest';
import { Engine } from '../../server/src/engine/engine';
import { mulberry32 } from '../../server/eval/random';
import { copyFixture, edgeList } from './workspace';

export const openEngine = (root: string) => Engine.open({ root, workers: 0, embeddings: { model: 'none' } });

/** The edges a cold index of a copy of `root` holds (the copy is removed after). */
export async function coldGraph(root: string): Promise<string[]> {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-cold-'));
  try {
    fs.cpSync(root, copy, { recursive: true, filter: (s) => path.basename(s) !== '.nsccn' });
    const e = await openEngine(copy);
    await e.indexWorkspace();
    const g = edgeList(e);
    await e.close();
    return g;
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** Files an editor opens as code buffers. */
const CODE = /\.(py|pyi|tsx?|[mc]?js|jsx)$/;

export type Snapshot = Map<string, string>;

export function snapshot(root: string, files: string[]): Snapshot {
  return new Map(files.map((f) => [f, fs.readFileSync(path.join(root, f), 'utf8')]));
}

/**
 * Applies what changed on disk: a changed file is typed into an open buffer (opened first, at
 * random) or reported as a watched change; new and deleted files are watched events (an open
 * one is closed first, as an editor does when its file goes).
 */
export class LiveEditor {
  private readonly versions = new Map<string, number>();

  constructor(
    private readonly engine: Engine,
    private readonly r: () => number,
  ) {}

  async apply(before: Snapshot, after: Snapshot): Promise<void> {
    const watched: Array<{ path: string; type: 'created' | 'changed' | 'deleted' }> = [];
    for (const [f, text] of after) {
      const was = before.get(f);
      if (was === text) continue;
      if (was === undefined || !CODE.test(f)) {
        // New, or not code (a tsconfig.json): an editor's buffer of it would tell the index nothing.
        watched.push({ path: f, type: was === undefined ? 'created' : 'changed' });
      } else if (this.versions.has(f)) {
        const v = this.versions.get(f)! + 1;
        this.versions.set(f, v);
        this.engine.changeDocument(f, [{ text }], v);
      } else if (this.r() < 0.5) {
        this.versions.set(f, 1);
        this.engine.openDocument(f, text, 1);
      } else watched.push({ path: f, type: 'changed' });
    }
    for (const f of before.keys()) {
      if (after.has(f)) continue;
      if (this.versions.delete(f)) await this.engine.closeDocument(f);
      else watched.push({ path: f, type: 'deleted' });
    }
    if (watched.length) await this.engine.syncFiles(watched);
  }
}

/**
 * `steps` random edits of a copy of `fixture` (`mutate` makes one on disk and says what it did),
 * each applied incrementally — by an index run, or for `live` through the LiveEditor — and the
 * graph compared with a cold index every few steps. `files` lists the files `mutate` may touch.
 */
export async function randomEditsEqualCold(opts: {
  fixture: string;
  seed: number;
  live: boolean;
  /** Each step in a new engine (a process that reads the model back from the index), not the same one. */
  reopen?: boolean;
  files: (root: string) => string[];
  mutate: (root: string, original: Snapshot, r: () => number) => string;
  steps?: number;
  cleanup: string[];
}): Promise<void> {
  const root = copyFixture(opts.fixture);
  opts.cleanup.push(root);
  if (opts.reopen && opts.live) throw new Error('reopen: each step is an index run of a new engine, not live buffers');
  const original = snapshot(root, opts.files(root));
  const r = mulberry32(opts.seed);
  let e = await openEngine(root);
  await e.indexWorkspace();
  const editor = new LiveEditor(e, mulberry32(opts.seed + 1000));
  const done: string[] = [];
  try {
    for (let step = 0; step < (opts.steps ?? 40); step++) {
      const before = opts.live ? snapshot(root, opts.files(root)) : null;
      done.push(opts.mutate(root, original, r));
      if (opts.reopen) {
        await e.close();
        e = await openEngine(root);
      }
      if (before) await editor.apply(before, snapshot(root, opts.files(root)));
      else await e.indexWorkspace();
      if (step % 4 !== 3) continue; // compare every few steps: a difference persists once made
      const [inc, cold] = [edgeList(e), await coldGraph(root)];
      const missing = cold.filter((x) => !inc.includes(x));
      const extra = inc.filter((x) => !cold.includes(x));
      expect({ step, missing, extra }, `after:\n${done.join('\n')}`).toEqual({ step, missing: [], extra: [] });
    }
  } finally {
    await e.close();
  }
}
