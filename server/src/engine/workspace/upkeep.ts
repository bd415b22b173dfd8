// Keeping the index current with the disk: whether a run is needed at all (by stat, fresh.ts),
// the one run at a time that every caller shares (indexer.ts does the run), and files changed on
// disk (a watcher's events) applied in batches. One per engine.
import type { IndexSummary } from '../../../../protocol';
import type { EngineOptions, IndexProgress } from '../api';
import { fromStoreError } from '../errors';
import { LANGUAGES, languageForPath } from '../languages/registry';
import type { LanguageSupport } from '../languages/types';
import type { GrammarLoader } from '../parse/grammar-loader';
import type { Parsers } from '../parse/parsers';
import type { Buffers } from './buffers';
import { freshness } from './fresh';
import type { FileWrite, IndexHost } from './host';
import type { IndexProfile } from './profile';
import { isProjectRead, recordProjectReads } from './project';
import { isIgnoreFile, type WorkspacePaths } from './workspace-paths';

// Loaded on first use (from async paths): on an up-to-date index nothing is run or re-read, and
// neither the worker pool nor the parse step is loaded.
const onDemand = {
  indexer: () => import('./indexer.js'),
  process: () => import('./process.js'),
};

/** Files of a sync (watched-file events) parsed and written together. */
const SYNC_BATCH = 32;

export interface FileChange {
  path: string;
  type: 'created' | 'changed' | 'deleted';
}

/** The engine's parts the upkeep works with (the store and the graph through `host`). */
export interface UpkeepParts {
  host: IndexHost;
  docs: Buffers;
  parsers: Parsers;
  grammars: GrammarLoader;
  paths: WorkspacePaths;
  log: (m: string) => void;
  /** The engine's start-up steps, in milliseconds: the up-to-date check's is `freshness`. */
  steps: Record<string, number>;
}

/** What the upkeep asks of the engine that holds it. */
export interface UpkeepHooks {
  /** Throws when the engine is closed. */
  assertOpen(): void;
  /** Why the index can only be read (then nothing is written), or null. */
  readOnlyBecause(): string | null;
  /** True once the engine is closing: a run stops at its next batch. */
  closing(): boolean;
  /** True once the engine is closed: a sync stops between batches. */
  closed(): boolean;
  /** Called once the index is as current as it gets: a run is over (or failed), or none was needed. */
  afterRun(): void;
}

export class IndexUpkeep {
  private running: Promise<IndexSummary> | null = null;
  private lastProfile: IndexProfile | null = null;
  /** How many project-file reads the index holds already (see the constructor). */
  private projectReadsKept = 0;

  constructor(
    private readonly parts: UpkeepParts,
    private readonly opts: Readonly<EngineOptions> & { maxFileBytes: number },
    private readonly hooks: UpkeepHooks,
  ) {
    const { host } = parts;
    // Project files first read by an edit (a new folder's pyproject.toml, missing) are kept too:
    // a later change to them must reach the index, even in another process.
    host.onDidChange(() => {
      const reads = host.graph.project?.reads?.size ?? 0;
      if (reads === this.projectReadsKept) return;
      this.projectReadsKept = reads;
      recordProjectReads(this.opts.root, host.store, host.graph.project);
    });
  }

  /** Where the last index run's time went, phase by phase (null before a run has finished). */
  get lastIndexProfile(): IndexProfile | null {
    return this.lastProfile;
  }

  /** The run in progress, if any. */
  get runInProgress(): Promise<IndexSummary> | null {
    return this.running;
  }

  isIndexing(): boolean {
    return this.running !== null;
  }

  /**
   * Brings the index up to date with the disk (only added, changed and deleted files are read).
   * When another process is indexing the same index, `wait` (the default) waits for it to
   * finish first; `skip` answers at once from the index as it is (the summary's notes say so).
   */
  indexWorkspace(onProgress?: (p: IndexProgress) => void, options: { ifBusy?: 'wait' | 'skip' } = {}): Promise<IndexSummary> {
    this.hooks.assertOpen();
    const { host, docs, parsers, grammars, paths, log, steps } = this.parts;
    const { store } = host;
    const readOnlyBecause = this.hooks.readOnlyBecause();
    if (readOnlyBecause) {
      const c = store.counts();
      return Promise.resolve({ files: c.files, parsed: 0, unchanged: 0, deleted: 0, skipped: [], entities: c.entities, edges: c.edges, seconds: 0, notes: [readOnlyBecause] });
    }
    // One run at a time: a second caller shares the run in progress.
    if (this.running) return this.running;
    const started = performance.now();
    const { root, maxFileBytes } = this.opts;
    // By stat first: an index that matches the disk needs no run (no grammars, no writes).
    let fresh: ReturnType<typeof freshness>;
    try {
      fresh = freshness({ root, rules: paths.rules, exclude: this.opts.exclude ?? [], maxFileBytes, openFiles: docs.paths() }, store);
    } catch (e) {
      return Promise.reject(fromStoreError(e));
    } finally {
      steps.freshness = performance.now() - started;
    }
    if (fresh.current) {
      this.hooks.afterRun();
      onProgress?.({ phase: 'reading', done: 0, total: 0, fraction: 1 });
      for (const s of fresh.skipped) log(`skipped ${s.file}: ${s.reason}`);
      const c = store.counts();
      return Promise.resolve({ files: c.files, parsed: 0, unchanged: fresh.unchanged, deleted: 0, skipped: fresh.skipped, entities: c.entities, edges: c.edges, seconds: Math.round(performance.now() - started) / 1000 });
    }
    log(`index run: ${fresh.why}`);
    // The grammars of the files to parse (all after an interrupted run: any file may be).
    const langs = fresh.parse ? [...new Set(fresh.parse.map((p) => languageForPath(p)).filter((l): l is LanguageSupport => !!l))] : LANGUAGES;
    // Loaded here unless they wait for a run that parses on this thread (`grammars: when-parsing`,
    // and a lazy engine: a file whose stat moved may hold the same bytes, and then needs none).
    const onThisThread = () => grammars.load(langs);
    const loading = this.opts.grammars === 'when-parsing' || this.opts.lazy ? undefined : onThisThread();
    const run = Promise.all([onDemand.indexer(), loading]).then(([{ indexFromDisk }]) => indexFromDisk(
      {
        root,
        host,
        parsers,
        loadGrammars: onThisThread,
        rules: paths.rules,
        exclude: this.opts.exclude ?? [],
        maxFileBytes,
        workers: this.opts.workers,
        openFiles: docs.paths(),
        log,
        shouldStop: () => this.hooks.closing(),
        ifBusy: options.ifBusy ?? 'wait',
        onProfile: (p) => (this.lastProfile = p),
        reextractOpen: (files) => docs.reindexAgain(files),
        discovered: fresh.seen,
      },
      onProgress,
    ));
    this.running = run
      .catch((e) => {
        throw fromStoreError(e); // a full disk, a damaged file: one clear message
      })
      .finally(() => {
        this.running = null;
        this.hooks.afterRun();
      });
    return this.running;
  }

  /**
   * Files changed on disk (watcher or `workspace/didChangeWatchedFiles`); paths relative. A file
   * that is gone or now links outside the root is a deletion; one bad path is logged and skipped,
   * never the end of the batch.
   */
  async syncFiles(changes: FileChange[]): Promise<void> {
    this.hooks.assertOpen();
    // A run in progress listed its files before these changes: applied now, a change could be
    // undone by the run's own write of a file as it read it (a file deleted while the run
    // holds its text would come back). The changes wait for the run, then are applied over what it wrote.
    while (this.running) await this.running.catch(() => undefined);
    if (this.hooks.closed()) return;
    const { host, docs, parsers, grammars, paths, log } = this.parts;
    const { store } = host;
    if (!grammars.ready) await grammars.load();
    const { processFile } = await onDemand.process();
    const { root, maxFileBytes: max } = this.opts;
    const open = docs.paths();
    /** `again`: unchanged, extracted again all the same (its imports name other files now). */
    const todo: Array<{ rel: string; lang: LanguageSupport; deleted: boolean; again?: boolean }> = [];
    let rulesChanged = false;
    let projectChanged = false;
    for (const c of changes) {
      let rel: string;
      try {
        rel = paths.relativePath(c.path, { followLinks: false });
      } catch (e) {
        log(`ignored a change to ${String(c?.path)}: ${(e as Error).message}`);
        continue;
      }
      if (isIgnoreFile(rel)) {
        rulesChanged = true;
        continue;
      }
      if (isProjectRead(host.graph.project, rel)) projectChanged = true;
      const lang = languageForPath(rel);
      if (open.has(rel) || !lang) continue;
      todo.push({ rel, lang, deleted: c.type === 'deleted' || paths.rules.ignored(rel, false) });
    }
    // In batches, each its own change: a branch switch of hundreds of files holds a batch's
    // extractions at a time, not all of them, and requests are answered between batches.
    /** Files that came or went: importers whose answer depended on them are extracted again. */
    const cameOrWent: string[] = [];
    for (let at = 0, end = 0; at < todo.length; at = end) {
      end = Math.min(at + SYNC_BATCH, todo.length);
      if (at > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.hooks.closed()) return;
      }
      const writes: FileWrite[] = [];
      for (const { rel, lang, deleted, again } of todo.slice(at, end)) {
        if (deleted) {
          if (store.file(rel)) cameOrWent.push(rel);
          writes.push({ kind: 'deleted', path: rel });
          continue;
        }
        // Parsed before the transaction: it holds the write lock only for the writes.
        const known = store.file(rel);
        if (!known) cameOrWent.push(rel);
        const o = processFile(root, { path: rel, knownHash: again ? null : (known?.hash ?? null) }, parsers, max);
        if (o.kind === 'parsed') writes.push({ kind: 'extracted', lang, meta: { path: rel, language: o.language, module: o.module, hash: o.hash, size: o.size, mtimeMs: o.mtimeMs }, extraction: o.extraction });
        else if (o.kind === 'unchanged' && known) writes.push({ kind: 'touched', fid: known.fid, mtimeMs: o.mtimeMs, size: o.size });
        else if (o.kind === 'skipped') {
          if (!o.gone) log(`skipped ${rel}: ${o.reason}`);
          if (known) cameOrWent.push(rel);
          writes.push({ kind: 'deleted', path: rel });
        }
      }
      host.apply({ writes });
      // Importers whose bare imports found a file by whether it exists (a path alias): once.
      if (end === todo.length && cameOrWent.length) {
        const decided = host.importersDecidedBy(cameOrWent.splice(0));
        docs.reindexAgain(decided.filter((p) => open.has(p)));
        for (const rel of decided) {
          const lang = languageForPath(rel);
          if (lang && !open.has(rel) && !todo.some((t) => t.rel === rel)) todo.push({ rel, lang, deleted: false, again: true });
        }
      }
    }
    // A .gitignore changed: files it now skips leave the index, files it lets in come in.
    if (rulesChanged) paths.rules.reset();
    // A tsconfig.json or pyproject.toml the index was built from: the run sees it moved.
    if (rulesChanged || projectChanged) await this.indexWorkspace(undefined, { ifBusy: 'skip' });
  }
}
