// Files that are not open: the client's `workspace/didChangeWatchedFiles` when it can register
// it dynamically, else our own WorkspaceWatcher per folder. Either way a burst of changes
// becomes one engine.syncFiles per workspace, in order. (The engine itself leaves open files
// alone: their buffer is the truth until didClose re-reads the disk.)
import * as fs from 'node:fs';
import {
  DidChangeWatchedFilesNotification,
  FileChangeType,
  type Connection,
  type DidChangeWatchedFilesParams,
} from 'vscode-languageserver/node';
import { mayBeWatched, watchGlobs, WorkspaceWatcher } from '../engine';
import { describe, type Logger } from './errors';
import type { Workspace, Workspaces } from './workspaces';

type SyncChange = { path: string; type: 'created' | 'changed' | 'deleted' };

export class WatchedFiles {
  private readonly watchers = new Map<Workspace, WorkspaceWatcher>();
  /** Per workspace: the sync still running; the next one waits for it. */
  private readonly queues = new Map<Workspace, Promise<void>>();
  private useOwnWatcher = false;
  private disposed = false;

  constructor(
    private readonly connection: Connection,
    private readonly workspaces: Workspaces,
    private readonly log: Logger,
    private readonly usePolling = false,
  ) {}

  /** Registers with the client when it allows it; otherwise watches the folders ourselves. */
  async start(clientCanRegister: boolean, folders: Workspace[]): Promise<void> {
    if (clientCanRegister) {
      try {
        await this.connection.client.register(DidChangeWatchedFilesNotification.type, {
          watchers: watchGlobs().map((globPattern) => ({ globPattern })),
        });
        return;
      } catch (e) {
        this.log(`client refused workspace/didChangeWatchedFiles (${describe(e)}); watching files ourselves`);
      }
    }
    this.useOwnWatcher = true;
    await Promise.all(folders.map((ws) => this.watch(ws)));
  }

  /** A folder added later (workspace/didChangeWorkspaceFolders). */
  async added(ws: Workspace): Promise<void> {
    if (this.useOwnWatcher) await this.watch(ws);
  }

  async removed(ws: Workspace): Promise<void> {
    const w = this.watchers.get(ws);
    this.watchers.delete(ws);
    this.queues.delete(ws);
    await w?.close();
  }

  /** `workspace/didChangeWatchedFiles` from the client. */
  onClientChanges(params: DidChangeWatchedFilesParams): void {
    const byWs = new Map<Workspace, SyncChange[]>();
    for (const c of params.changes ?? []) {
      const routed = this.workspaces.tryRoute(c.uri, { followLinks: false });
      if (!routed || !routed.ws.engine.isWatched(routed.path)) continue;
      const type = c.type === FileChangeType.Created ? 'created' : c.type === FileChangeType.Deleted ? 'deleted' : 'changed';
      const list = byWs.get(routed.ws) ?? [];
      list.push({ path: routed.path, type });
      byWs.set(routed.ws, list);
    }
    for (const [ws, changes] of byWs) this.sync(ws, changes);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const all = [...this.watchers.values()];
    this.watchers.clear();
    await Promise.all(all.map((w) => w.close()));
    await Promise.all([...this.queues.values()]);
  }

  private async watch(ws: Workspace): Promise<void> {
    if (this.disposed || this.watchers.has(ws)) return;
    try {
      const watcher = await WorkspaceWatcher.start({
        root: ws.root,
        ignore: (rel, isDir) => ws.engine.isIgnored(rel, isDir),
        accept: (rel) => ws.engine.isWatched(rel),
        watchable: mayBeWatched,
        usePolling: this.usePolling,
        log: this.log,
        // The watcher only knows a path was touched; the disk says whether it is still there.
        onChange: (files) =>
          this.sync(
            ws,
            files.map((f) => ({ path: f, type: fs.existsSync(ws.engine.absolutePath(f)) ? 'changed' : 'deleted' })),
          ),
      });
      if (this.disposed || !this.workspaces.list().includes(ws)) await watcher.close();
      else this.watchers.set(ws, watcher);
    } catch (e) {
      this.log(`cannot watch ${ws.root}: ${describe(e)}`);
    }
  }

  private sync(ws: Workspace, changes: SyncChange[]): void {
    const prev = this.queues.get(ws) ?? Promise.resolve();
    const next = prev.then(async () => {
      if (this.disposed || !this.workspaces.list().includes(ws)) return;
      try {
        await ws.engine.syncFiles(changes);
      } catch (e) {
        this.log(`[${ws.name}] syncing ${changes.length} changed file(s) failed: ${describe(e)}`);
      }
    });
    this.queues.set(ws, next);
    void next.finally(() => {
      if (this.queues.get(ws) === next) this.queues.delete(ws);
    });
  }
}
