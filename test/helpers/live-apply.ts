// Applies what changed on disk to an engine the way an editor and its file watcher do, not by an
// index run: a changed file is typed into an open buffer (opened first, at random) or reported
// as a watched change; new and deleted files are watched events (an open one is closed first,
// as an editor does when its file goes). The random incremental-vs-cold tests use it to hold the
// live path to a cold index as well.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Engine } from '../../server/src/engine/engine';

export type Snapshot = Map<string, string>;

export function snapshot(root: string, files: string[]): Snapshot {
  return new Map(files.map((f) => [f, fs.readFileSync(path.join(root, f), 'utf8')]));
}

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
      if (was === undefined) {
        watched.push({ path: f, type: 'created' });
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
