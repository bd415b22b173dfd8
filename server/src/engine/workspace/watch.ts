// Watches a workspace on disk for clients that cannot (no dynamic `didChangeWatchedFiles`
// registration) and for the CLI: batches created/changed/deleted files into one debounced call
// with workspace-relative paths, so the engine re-reads each file once per burst (a `git
// checkout` touching 500 files becomes one sync, not 500).
import * as path from 'node:path';
import type { Stats } from 'node:fs';
import type { FSWatcher } from 'chokidar' with { 'resolution-mode': 'import' };

export interface WorkspaceWatcherOptions {
  /** Absolute workspace root. */
  root: string;
  /** Called with the relative paths (`/`-separated, sorted, unique) of a burst of changes. */
  onChange: (files: string[]) => void;
  /** True for paths discovery ignores (`Engine.isIgnored`). */
  ignore?: (relPath: string, isDir: boolean) => boolean;
  /** Files of interest (e.g. the extensions a language is registered for); default: all. */
  accept?: (relPath: string) => boolean;
  /**
   * Files that may ever be of interest, by name (decided once, when the watcher starts): the
   * others are not watched at all. Default: all.
   */
  watchable?: (relPath: string) => boolean;
  /** Quiet time that ends a burst (default 100 ms). */
  debounceMs?: number;
  /** A burst is flushed at the latest after this long, even if events keep coming (default 1 s). */
  maxWaitMs?: number;
  /** Poll instead of using native events (network drives, some containers). */
  usePolling?: boolean;
  log?: (message: string) => void;
}

/** Folders never worth watching whatever the ignore filter says: the index itself and VCS data. */
const ALWAYS_IGNORED = /(^|\/)(\.nsccn|\.git|\.hg|\.svn)(\/|$)/;

export class WorkspaceWatcher {
  private pending = new Set<string>();
  private quietTimer: NodeJS.Timeout | null = null;
  private maxTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly options: WorkspaceWatcherOptions,
    private readonly watcher: FSWatcher,
  ) {}

  /** Starts watching; resolves once the initial scan is done (events after that are reported). */
  static async start(options: WorkspaceWatcherOptions): Promise<WorkspaceWatcher> {
    // chokidar 5 is ESM-only: load it with a real dynamic import from this CommonJS module.
    const { watch } = await import('chokidar');
    const root = path.resolve(options.root);
    // Asked of every path under the root, twice: on site-packages (31K files in 5,400 folders)
    // starting the watcher took 5–8 s of CPU, this function ~0.7 s of it.
    const ignored = (absPath: string, stats?: Stats): boolean => {
      const rel = toRelative(root, absPath);
      if (rel === null) return false; // the root itself (or outside): never ignore
      if (ALWAYS_IGNORED.test(rel)) return true;
      // A file nobody will want to hear of is not watched at all (its events would be dropped):
      // in site-packages 14K of the 31K files.
      if (stats && !stats.isDirectory() && options.watchable && !options.watchable(rel)) return true;
      if (!options.ignore) return false;
      // chokidar asks once without stats: only ignore then if the path is ignored either way.
      if (!stats) return options.ignore(rel, false) && options.ignore(rel, true);
      return options.ignore(rel, stats.isDirectory());
    };
    const watcher = watch(root, {
      ignoreInitial: true,
      ignored,
      usePolling: options.usePolling ?? false,
      interval: 200,
      ignorePermissionErrors: true,
    });
    const self = new WorkspaceWatcher({ ...options, root }, watcher);
    const record = (absPath: string): void => self.record(absPath);
    watcher.on('add', record).on('change', record).on('unlink', record);
    watcher.on('error', (err: unknown) =>
      options.log?.(`watcher error: ${err instanceof Error ? err.message : String(err)}`),
    );
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    return self;
  }

  /** Delivers what is pending now (tests, shutdown). */
  flush(): void {
    this.clearTimers();
    if (this.pending.size === 0) return;
    const files = [...this.pending].sort();
    this.pending.clear();
    try {
      this.options.onChange(files);
    } catch (e) {
      this.options.log?.(`watcher listener failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.clearTimers();
    this.pending.clear();
    await this.watcher.close();
  }

  private record(absPath: string): void {
    if (this.closed) return;
    const rel = toRelative(this.options.root, absPath);
    if (rel === null) return;
    if (this.options.accept && !this.options.accept(rel)) return;
    this.pending.add(rel);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => this.flush(), this.options.debounceMs ?? 100);
    if (!this.maxTimer) this.maxTimer = setTimeout(() => this.flush(), this.options.maxWaitMs ?? 1000);
  }

  private clearTimers(): void {
    if (this.quietTimer) clearTimeout(this.quietTimer);
    if (this.maxTimer) clearTimeout(this.maxTimer);
    this.quietTimer = null;
    this.maxTimer = null;
  }
}

/** `/`-separated path relative to root, or null for the root itself and paths outside it. */
function toRelative(root: string, absPath: string): string | null {
  // What the watcher hands over: the root joined with a normalised relative path.
  if (path.sep === '/' && absPath.length > root.length + 1 && absPath.startsWith(root) && absPath[root.length] === '/') {
    const rel = absPath.slice(root.length + 1);
    if (!/(^|\/)\.\.?(\/|$)|\/\/|\/$/.test(rel)) return rel;
  }
  const rel = path.relative(root, path.resolve(root, absPath));
  if (rel === '' || rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}
