// Several workspace folders, one Engine (one index) each. Every request carries a URI or an
// entity id; this module finds the engine that owns it: the folder whose root contains the
// path (the deepest one when folders nest), or the engine that knows the id.
import * as path from 'node:path';
import { ErrorCodes } from '../../../protocol';
import { Engine } from '../engine';
import type { EntityRow, GraphChange } from '../engine';
import { EngineError, isEngineError } from '../engine';
import { describe, type Logger } from './errors';
import { uriToPath } from './convert';
import { engineOptions, type LspSettings } from './settings';

export interface WorkspaceFolderRef {
  uri: string;
  name: string;
}

export interface Workspace {
  readonly name: string;
  readonly uri: string;
  /** Absolute path of the folder as the client named it. */
  readonly root: string;
  readonly engine: Engine;
  /** True for workspace-relative paths that discovery skips (.gitignore, excludes, venvs). */
  /** True until the first index run of this root has finished. */
  pendingIndex: boolean;
}

export interface Routed {
  ws: Workspace;
  /** Workspace-relative path, `/`-separated. */
  path: string;
}

type GraphListener = (ws: Workspace, change: GraphChange) => void;

export class Workspaces {
  private readonly byRoot = new Map<string, Workspace>();
  /** Roots whose engine could not be opened, with the reason (answered as IndexUnavailable). */
  private readonly failed = new Map<string, string>();
  private readonly unsubscribe = new Map<string, () => void>();
  private readonly graphListeners = new Set<GraphListener>();

  private settings: LspSettings = {};

  constructor(private readonly log: Logger) {}

  /** Settings for the engines opened from now on (initialize comes before any folder). */
  configure(settings: LspSettings): void {
    this.settings = settings;
  }

  /** Opens an engine per folder; a folder whose index cannot be opened is reported, not fatal. */
  async add(folders: WorkspaceFolderRef[]): Promise<Workspace[]> {
    const singleRoot = this.byRoot.size === 0 && folders.length === 1;
    if (this.settings.dbPath && !singleRoot) {
      this.log(`initializationOptions.dbPath is ignored with several workspace folders; each uses <root>/.nsccn`);
    }
    const added: Workspace[] = [];
    for (const folder of folders) {
      let root: string;
      try {
        root = uriToPath(folder.uri);
      } catch (e) {
        this.log(`workspace folder ${folder.uri} skipped: ${describe(e)}`);
        continue;
      }
      if (this.byRoot.has(root)) continue;
      const name = folder.name || path.basename(root);
      try {
        const log = (m: string) => this.log(`[${name}] ${m}`);
        const engine = await Engine.open(engineOptions(root, this.settings, singleRoot, log));
        const ws: Workspace = {
          name,
          uri: folder.uri,
          root,
          engine,
          pendingIndex: true,
        };
        this.byRoot.set(root, ws);
        this.failed.delete(root);
        this.unsubscribe.set(root, engine.onDidChange((c) => this.emitGraphChange(ws, c)));
        added.push(ws);
      } catch (e) {
        this.failed.set(root, describe(e));
        this.log(`could not open the index of ${root}: ${describe(e)}`);
      }
    }
    return added;
  }

  async remove(uris: string[]): Promise<Workspace[]> {
    const removed: Workspace[] = [];
    for (const uri of uris) {
      let root: string;
      try {
        root = uriToPath(uri);
      } catch {
        continue;
      }
      this.failed.delete(root);
      const ws = this.byRoot.get(root);
      if (!ws) continue;
      this.byRoot.delete(root);
      this.unsubscribe.get(root)?.();
      this.unsubscribe.delete(root);
      removed.push(ws);
      await this.closeEngine(ws);
    }
    return removed;
  }

  /** Folders whose index could not be opened, with why. */
  failures(): Array<{ root: string; reason: string }> {
    return [...this.failed].map(([root, reason]) => ({ root, reason }));
  }

  list(): Workspace[] {
    return [...this.byRoot.values()];
  }

  /**
   * The workspace owning a URI; throws OutsideWorkspace (or IndexUnavailable) otherwise.
   * `followLinks: false` judges the path alone (watch events: a file that now links out is a deletion).
   */
  route(uri: string, opts: { followLinks?: boolean } = {}): Routed {
    const abs = uriToPath(uri);
    const ws = this.deepest(abs, this.byRoot.keys());
    const brokenRoot = this.deepest(abs, this.failed.keys());
    if (brokenRoot && (!ws || brokenRoot.length > ws.length)) {
      throw new EngineError(ErrorCodes.IndexUnavailable, `the index of ${brokenRoot} is unavailable: ${this.failed.get(brokenRoot)}`);
    }
    if (!ws) {
      const roots = this.list().map((w) => w.root);
      throw new EngineError(
        ErrorCodes.OutsideWorkspace,
        `${uri} is outside every workspace folder (${roots.length ? roots.join(', ') : 'none open'})`,
      );
    }
    const workspace = this.byRoot.get(ws)!;
    return { ws: workspace, path: workspace.engine.relativePath(abs, opts) };
  }

  /** Like route, but null for URIs no workspace owns (notifications ignore those quietly). */
  tryRoute(uri: string, opts: { followLinks?: boolean } = {}): Routed | null {
    try {
      return this.route(uri, opts);
    } catch {
      return null;
    }
  }

  /** True when a routed file is one the engine indexes (known language, not ignored). */
  isIndexable(r: Routed): boolean {
    return r.ws.engine.isIndexable(r.path);
  }

  /** The workspace whose engine knows `id`; UnknownEntity (with everyone's suggestions) otherwise. */
  owner(id: string): { ws: Workspace; entity: EntityRow } {
    const suggestions: string[] = [];
    let last: EngineError | null = null;
    for (const ws of this.byRoot.values()) {
      try {
        return { ws, entity: ws.engine.entity(id) };
      } catch (e) {
        if (!isEngineError(e) || e.code !== ErrorCodes.UnknownEntity) throw e;
        last = e;
        suggestions.push(...(e.data?.suggestions ?? []));
      }
    }
    if (last && this.byRoot.size === 1) throw last;
    throw new EngineError(ErrorCodes.UnknownEntity, `unknown entity id: ${id}`, suggestions.length ? { suggestions } : undefined);
  }

  onDidChangeGraph(listener: GraphListener): () => void {
    this.graphListeners.add(listener);
    return () => this.graphListeners.delete(listener);
  }

  async closeAll(): Promise<void> {
    const all = this.list();
    this.byRoot.clear();
    for (const off of this.unsubscribe.values()) off();
    this.unsubscribe.clear();
    await Promise.all(all.map((ws) => this.closeEngine(ws)));
  }

  private async closeEngine(ws: Workspace): Promise<void> {
    try {
      await ws.engine.close();
    } catch (e) {
      this.log(`closing the index of ${ws.root} failed: ${describe(e)}`);
    }
  }

  private emitGraphChange(ws: Workspace, change: GraphChange): void {
    for (const listener of this.graphListeners) {
      try {
        listener(ws, change);
      } catch (e) {
        this.log(`graph change listener failed: ${describe(e)}`);
      }
    }
  }

  /** The longest of `roots` that contains `abs`, or null. */
  private deepest(abs: string, roots: Iterable<string>): string | null {
    let best: string | null = null;
    for (const root of roots) {
      const inside = abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
      if (inside && (!best || root.length > best.length)) best = root;
    }
    return best;
  }
}
