// The engine: one workspace, its index, its graph, its open buffers and its search. The faces
// (LSP, CLI, MCP) hold an Engine and call these methods; nothing here knows about them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  ChangesParams,
  ChangesResponse,
  DocsLevel,
  IndexSummary,
  StreamProgress,
  Relation,
  SearchParams,
  SearchResponse,
  Skeleton,
  StatsResponse,
  StatusResponse,
  TraceResult,
  Window,
} from '../../../protocol';
import { DEFAULT_DOCS_LEVEL, DOCS_LEVELS, ErrorCodes, RELATIONS, WINDOW_MAX_CONTEXT } from '../../../protocol';
import { fitChanges } from './budget/changes';
import { keepIndexOutOfGit } from './config/index-folder';
import { loadProjectConfig, withProjectConfig, type ProjectConfig } from './config/project';
import { fitSearch, fitWindow } from './budget/lists';
import { checkMaxTokens } from './budget/measure';
import { fitSkeleton } from './budget/skeleton';
import { fitTrace } from './budget/trace';
import type { EdgeRow, EngineOptions, EntityRow, GraphChange, IndexProgress, Position, TextChange } from './api';
import { EmbeddingService } from './embed/service';
import { EngineError, fromStoreError } from './errors';
import { Graph } from './graph/graph';
import { implementations, subtypes, supertypes } from './graph/hierarchy';
import { pathTraversal } from './graph/paths';
import { runCooperatively, runNow, type Cancellation, type Traversal } from './graph/cooperative';
import { traceTraversal, type TraceRequest } from './graph/trace';
import { EXTENSIONS, LANGUAGES, languageForPath } from './languages/registry';
import type { LanguageSupport } from './languages/types';
import { GrammarsNotLoaded, Parsers } from './parse/parsers';
import { ExactNameStream } from './search/exact';
import { LexicalStream } from './search/lexical';
import { CommonTermScores } from './search/common-terms';
import { SearchService, type DetailedSearch, type SearchOptions } from './search/service';
import { SignalStream } from './search/signals';
import { skeletonOf } from './skeleton/service';
import { FtsIndex } from './store/fts';
import { testMatcher } from './testcode';
import { checkIntegrity, isCorruption, markDamaged, openDatabase, type Db } from './store/db';
import { toEdge, toEntity } from './store/read-rows';
import { Store } from './store/store';
import { suggestIds } from './suggest';
import { sourceWindow } from './window';
import { IndexHost, type FileWrite } from './workspace/host';
import { IgnoreRules } from './workspace/discover';
import { Buffers, type BufferState } from './workspace/buffers';
import type { IndexProfile } from './workspace/profile';
import { freshness } from './workspace/fresh';
import { escapes } from './workspace/confine';
import { readSource } from './workspace/read';
import { isProjectRead, projectFiles, recordProjectReads } from './workspace/project';

// Loaded on first use (all from async paths): a query that indexes, re-reads and diffs nothing —
// most of them, on an up-to-date index — does not load the worker pool, the parse step or git.
const onDemand = {
  indexer: () => import('./workspace/indexer.js'),
  process: () => import('./workspace/process.js'),
  impact: () => import('./changes/impact.js'),
};

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** Files of a sync (watched-file events) parsed and written together. */
const SYNC_BATCH = 32;
/** How long the background read of the symbol model holds the thread at a time. */
const PRELOAD_SLICE_MS = 16;
/** Files larger than this are not read to answer a request (they are not indexed either). */
const MAX_SHOWN_BYTES = 256 * 1024 * 1024;

export interface SkeletonOptions {
  docs?: DocsLevel;
  maxTokens?: number;
}

export interface FileChange {
  path: string;
  type: 'created' | 'changed' | 'deleted';
}

export class Engine {
  readonly root: string;
  private readonly realRoot: string;
  readonly store: Store;
  readonly graph: Graph;
  private embeddings_: EmbeddingService | null = null;
  private search_: SearchService | null = null;
  /** The lexical stream's scores of common words (./search/common-terms.ts), made with search. */
  private commonTerms: CommonTermScores | null = null;
  private readonly docs: Buffers;
  private readonly rules: IgnoreRules;
  /** The one way into the index: every write, and every change notification, goes through it. */
  private readonly host: IndexHost;
  private readonly log: (m: string) => void;
  private readonly notes: string[] = [];
  private indexing: Promise<IndexSummary> | null = null;
  private lastProfile: IndexProfile | null = null;
  private closed = false;
  /** Set by close(): a running index stops at the next batch instead of finishing. */
  private closing = false;
  private closePromise: Promise<void> | null = null;
  /** Set when the index can only be read: queries answer, nothing is written. */
  private readOnlyBecause: string | null = null;
  /** Loads of grammars, one after another; `grammarsFor` holds the languages asked for so far. */
  private grammarsLoading: Promise<void> = Promise.resolve();
  private readonly grammarsFor = new Set<string>();
  /** Every language's grammar is loaded. */
  private grammarsReady = false;
  /** Milliseconds of each start-up step this engine took (opening, grammars, the up-to-date check). */
  private readonly steps: Record<string, number> = {};

  private constructor(
    private readonly opts: EngineOptions & { root: string },
    private readonly db: Db,
    private readonly parsers: Parsers,
    /** `.nsccn.json` as read when the engine opened. */
    readonly config: ProjectConfig = {},
  ) {
    this.root = opts.root;
    this.realRoot = fs.realpathSync(opts.root);
    this.log = opts.log ?? (() => {});
    this.store = new Store(db);
    this.graph = new Graph(this.store, projectFiles(this.root));
    this.rules = new IgnoreRules(this.root, opts.exclude ?? []);
    this.host = new IndexHost(this.store, this.graph, { changed: (files) => this.embeddings.changed(files) }, this.log);
    this.docs = new Buffers(this.host, parsers, opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
    // Project files first read by an edit (a new folder's pyproject.toml, missing) are kept too:
    // a later change to them must reach the index, even in another process.
    this.host.onDidChange(() => {
      const reads = this.graph.project?.reads?.size ?? 0;
      if (reads === this.projectReadsKept) return;
      this.projectReadsKept = reads;
      recordProjectReads(this.root, this.store, this.graph.project);
    });
  }

  /** How many project-file reads the index holds already (see the constructor). */
  private projectReadsKept = 0;

  /** The vector streams' background service (made on first use: a trace never needs it). */
  get embeddings(): EmbeddingService {
    this.embeddings_ ??= new EmbeddingService(this.store, this.opts.embeddings, this.log);
    return this.embeddings_;
  }

  /** Search over every stream (made on first use). */
  private get searchService(): SearchService {
    if (!this.search_) {
      const fts = new FtsIndex(this.db);
      // Kept scores pay from the second search on: a one-shot command (lazy) asks FTS5 alone,
      // which also spares it the vocabulary reads that decide which words are common.
      this.commonTerms = this.opts.lazy ? null : new CommonTermScores(fts, this.store, true);
      const lexical = new LexicalStream(fts, this.commonTerms);
      const exact = new ExactNameStream(this.store);
      const isTest = testMatcher(this.config.testGlobs);
      const signals = new SignalStream(this.store, fts, isTest);
      this.search_ = new SearchService(this.store, () => [lexical, exact, signals, ...this.embeddings.streams()], isTest, signals);
    }
    return this.search_;
  }

  static async open(options: EngineOptions): Promise<Engine> {
    const root = path.resolve(options.root);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(root);
    } catch {
      throw new EngineError(ErrorCodes.InvalidParams, `workspace root ${root} does not exist`);
    }
    if (!stat.isDirectory()) throw new EngineError(ErrorCodes.InvalidParams, `workspace root ${root} is not a directory`);
    const log = options.log ?? (() => {});
    // The project's config file shapes the index for every face; explicit options come first.
    const config = loadProjectConfig(root);
    options = withProjectConfig(options, config);
    const dbPath = options.dbPath ?? path.join(root, '.nsccn', 'index.db');
    let t = performance.now();
    const integrity = options.integrity ?? (options.lazy ? 'after-damage' : 'open');
    const { db, rebuiltBecause, readOnlyBecause } = openDatabase(dbPath, log, { integrity: integrity === 'open' ? 'open' : 'later' });
    if (!options.dbPath) keepIndexOutOfGit(path.dirname(dbPath));
    const openMs = performance.now() - t;
    t = performance.now();
    const engine = new Engine({ ...options, root }, db, new Parsers({ spare: 'background' }), config);
    engine.steps.database = openMs;
    engine.steps.engine = performance.now() - t;
    if (!options.lazy && options.grammars === 'background') engine.loadGrammars().catch(() => undefined); // tried again by whoever needs them
    else if (!options.lazy && options.grammars !== 'when-parsing') await engine.loadGrammars();
    if (rebuiltBecause) engine.notes.push(`index rebuilt: ${rebuiltBecause}`);
    if (readOnlyBecause) {
      engine.readOnlyBecause = readOnlyBecause;
      engine.notes.push(readOnlyBecause);
      log(readOnlyBecause);
    }
    if (!options.lazy) engine.embeddings.start('after-quiet');
    // A server's lexical stream reads its common words' scores once the index is quiet.
    if (!options.lazy) void engine.searchService;
    // After the first index run: it and the first answers have both cores meanwhile.
    if (integrity === 'background' && !rebuiltBecause) engine.integrityAfterRun = dbPath;
    return engine;
  }

  /** The index to check in the background once the first index run is over (a server's engine). */
  private integrityAfterRun: string | null = null;

  private checkInBackground(): void {
    const dbPath = this.integrityAfterRun;
    this.integrityAfterRun = null;
    if (!dbPath || this.closed) return;
    void checkIntegrity(dbPath).then((why) => {
      if (!why || this.closed) return;
      markDamaged(dbPath);
      const note = `the index failed its integrity check (${why}); it is rebuilt the next time NSCCN opens it (or delete ${path.dirname(dbPath)})`;
      this.notes.push(note);
      this.log(note);
    });
  }

  /**
   * Tells the engine of an error a face met while using it: a damaged index is marked, so that
   * its next opening checks and rebuilds it (what the error's message promises).
   */
  noteError(e: unknown): void {
    if (isCorruption(e)) markDamaged(this.opts.dbPath ?? path.join(this.root, '.nsccn', 'index.db'));
  }

  /**
   * Loads the tree-sitter grammars of these languages (default: all; idempotent). `open` loads
   * all unless the engine is lazy; a lazy engine loads those of the files it must parse, and
   * `skeleton` asks for them with GrammarsNotLoaded (see `skeletonLoading`).
   */
  loadGrammars(langs: readonly LanguageSupport[] = LANGUAGES): Promise<void> {
    const missing = langs.filter((l) => !this.grammarsFor.has(l.id));
    if (!missing.length) return this.grammarsLoading;
    for (const l of missing) this.grammarsFor.add(l.id);
    const t = performance.now();
    const load = this.grammarsLoading
      .catch(() => undefined)
      .then(() => this.parsers.load(missing))
      .then(() => {
        this.steps.grammars = (this.steps.grammars ?? 0) + performance.now() - t;
        this.grammarsReady = LANGUAGES.every((l) => this.grammarsFor.has(l.id));
      });
    // A failed load is tried again by the next caller.
    load.catch(() => missing.forEach((l) => this.grammarsFor.delete(l.id)));
    this.grammarsLoading = load;
    return load;
  }

  /** Null once every grammar is loaded (a buffer can be opened now); else their loading. */
  grammarsPending(): Promise<void> | null {
    return this.grammarsReady ? null : this.loadGrammars();
  }

  /** Where this engine's start-up time went, in milliseconds per step (plain data, for `--timing` and the bench). */
  startupSteps(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.steps).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  }

  // --- keeping the index current -------------------------------------------------------------

  /** Where the last index run's time went, phase by phase (null before a run has finished). */
  get lastIndexProfile(): IndexProfile | null {
    return this.lastProfile;
  }

  /**
   * Brings the index up to date with the disk (only added, changed and deleted files are read).
   * When another process is indexing the same index, `wait` (the default) waits for it to
   * finish first; `skip` answers at once from the index as it is (the summary's notes say so).
   */
  indexWorkspace(onProgress?: (p: IndexProgress) => void, options: { ifBusy?: 'wait' | 'skip' } = {}): Promise<IndexSummary> {
    this.assertOpen();
    if (this.readOnlyBecause) {
      const c = this.store.counts();
      return Promise.resolve({ files: c.files, parsed: 0, unchanged: 0, deleted: 0, skipped: [], entities: c.entities, edges: c.edges, seconds: 0, notes: [this.readOnlyBecause] });
    }
    // One run at a time: a second caller shares the run in progress.
    if (this.indexing) return this.indexing;
    const started = performance.now();
    const maxFileBytes = this.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    // By stat first: an index that matches the disk needs no run (no grammars, no writes).
    let fresh: ReturnType<typeof freshness>;
    try {
      fresh = freshness({ root: this.root, rules: this.rules, exclude: this.opts.exclude ?? [], maxFileBytes, openFiles: this.docs.paths() }, this.store);
    } catch (e) {
      return Promise.reject(fromStoreError(e));
    } finally {
      this.steps.freshness = performance.now() - started;
    }
    if (fresh.current) {
      this.checkInBackground();
      onProgress?.({ phase: 'reading', done: 0, total: 0, fraction: 1 });
      for (const s of fresh.skipped) this.log(`skipped ${s.file}: ${s.reason}`);
      const c = this.store.counts();
      return Promise.resolve({ files: c.files, parsed: 0, unchanged: fresh.unchanged, deleted: 0, skipped: fresh.skipped, entities: c.entities, edges: c.edges, seconds: Math.round(performance.now() - started) / 1000 });
    }
    this.log(`index run: ${fresh.why}`);
    // The grammars of the files to parse (all after an interrupted run: any file may be).
    const langs = fresh.parse ? [...new Set(fresh.parse.map((p) => languageForPath(p)).filter((l): l is LanguageSupport => !!l))] : LANGUAGES;
    // Loaded here unless they wait for a run that parses on this thread (`grammars: when-parsing`,
    // and a lazy engine: a file whose stat moved may hold the same bytes, and then needs none).
    const onThisThread = () => this.loadGrammars(langs);
    const grammars = this.opts.grammars === 'when-parsing' || this.opts.lazy ? undefined : onThisThread();
    const run = Promise.all([onDemand.indexer(), grammars]).then(([{ indexFromDisk }]) => indexFromDisk(
      {
        root: this.root,
        host: this.host,
        parsers: this.parsers,
        loadGrammars: onThisThread,
        rules: this.rules,
        exclude: this.opts.exclude ?? [],
        maxFileBytes,
        workers: this.opts.workers,
        openFiles: this.docs.paths(),
        log: this.log,
        shouldStop: () => this.closing,
        ifBusy: options.ifBusy ?? 'wait',
        onProfile: (p) => (this.lastProfile = p),
        reextractOpen: (paths) => this.docs.reindexAgain(paths),
        discovered: fresh.seen,
      },
      onProgress,
    ));
    this.indexing = run
      .catch((e) => {
        throw fromStoreError(e); // a full disk, a damaged file: one clear message
      })
      .finally(() => {
        this.indexing = null;
        this.checkInBackground();
      });
    return this.indexing;
  }

  isIndexing(): boolean {
    return this.indexing !== null;
  }

  /**
   * Files changed on disk (watcher or `workspace/didChangeWatchedFiles`); paths relative. A file
   * that is gone or now links outside the root is a deletion; one bad path is logged and skipped,
   * never the end of the batch.
   */
  async syncFiles(changes: FileChange[]): Promise<void> {
    this.assertOpen();
    if (!this.grammarsReady) await this.loadGrammars();
    const { processFile } = await onDemand.process();
    const max = this.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const open = this.docs.paths();
    /** `again`: unchanged, extracted again all the same (its imports name other files now). */
    const todo: Array<{ rel: string; lang: LanguageSupport; deleted: boolean; again?: boolean }> = [];
    let rulesChanged = false;
    let projectChanged = false;
    for (const c of changes) {
      let rel: string;
      try {
        rel = this.relativePath(c.path, { followLinks: false });
      } catch (e) {
        this.log(`ignored a change to ${String(c?.path)}: ${(e as Error).message}`);
        continue;
      }
      if (isIgnoreFile(rel)) {
        rulesChanged = true;
        continue;
      }
      if (isProjectRead(this.graph.project, rel)) projectChanged = true;
      const lang = languageForPath(rel);
      if (open.has(rel) || !lang) continue;
      todo.push({ rel, lang, deleted: c.type === 'deleted' || this.rules.ignored(rel, false) });
    }
    // In batches, each its own change: a branch switch of hundreds of files holds a batch's
    // extractions at a time, not all of them, and requests are answered between batches.
    /** Files that came or went: importers whose answer depended on them are extracted again. */
    const cameOrWent: string[] = [];
    for (let at = 0, end = 0; at < todo.length; at = end) {
      end = Math.min(at + SYNC_BATCH, todo.length);
      if (at > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.closed) return;
      }
      const writes: FileWrite[] = [];
      for (const { rel, lang, deleted, again } of todo.slice(at, end)) {
        if (deleted) {
          if (this.store.file(rel)) cameOrWent.push(rel);
          writes.push({ kind: 'deleted', path: rel });
          continue;
        }
        // Parsed before the transaction: it holds the write lock only for the writes.
        const known = this.store.file(rel);
        if (!known) cameOrWent.push(rel);
        const o = processFile(this.root, { path: rel, knownHash: again ? null : (known?.hash ?? null) }, this.parsers, max);
        if (o.kind === 'parsed') writes.push({ kind: 'extracted', lang, meta: { path: rel, language: o.language, module: o.module, hash: o.hash, size: o.size, mtimeMs: o.mtimeMs }, extraction: o.extraction });
        else if (o.kind === 'unchanged' && known) writes.push({ kind: 'touched', fid: known.fid, mtimeMs: o.mtimeMs, size: o.size });
        else if (o.kind === 'skipped') {
          if (!o.gone) this.log(`skipped ${rel}: ${o.reason}`);
          if (known) cameOrWent.push(rel);
          writes.push({ kind: 'deleted', path: rel });
        }
      }
      this.host.apply({ writes });
      // Importers whose bare imports found a file by whether it exists (a path alias): once.
      if (end === todo.length && cameOrWent.length) {
        const decided = this.host.importersDecidedBy(cameOrWent.splice(0));
        this.docs.reindexAgain(decided.filter((p) => open.has(p)));
        for (const rel of decided) {
          const lang = languageForPath(rel);
          if (lang && !open.has(rel) && !todo.some((t) => t.rel === rel)) todo.push({ rel, lang, deleted: false, again: true });
        }
      }
    }
    // A .gitignore changed: files it now skips leave the index, files it lets in come in.
    if (rulesChanged) this.rules.reset();
    // A tsconfig.json or pyproject.toml the index was built from: the run sees it moved.
    if (rulesChanged || projectChanged) await this.indexWorkspace(undefined, { ifBusy: 'skip' });
  }

  /** A file the index would read: a language reads it, and no ignore rule skips it. */
  isIndexable(file: string): boolean {
    return languageForPath(file) !== undefined && !this.rules.ignored(file, false);
  }

  /** The workspace's ignore rules (.gitignore files, excludes, built-in skips), read fresh after a .gitignore changes. */
  isIgnored(file: string, isDir: boolean): boolean {
    return this.rules.ignored(file, isDir);
  }

  /** Files whose changes the engine wants to hear of: indexable ones, the ignore files and the project files read. */
  isWatched(file: string): boolean {
    return isIgnoreFile(file) || this.isIndexable(file) || isProjectRead(this.graph.project, file);
  }

  // --- editor buffers ------------------------------------------------------------------------

  /**
   * A buffer opened in the editor; it is the file's truth until closed. Returns null for files
   * no language reads, else whether the buffer is indexed (a buffer over `maxFileBytes` is not,
   * as on disk: `reason` says so, for the face to tell the user).
   */
  openDocument(file: string, text: string, version: number): BufferState | null {
    this.assertOpen();
    const rel = this.relativePath(file);
    if (typeof text !== 'string') throw new EngineError(ErrorCodes.InvalidParams, 'text must be a string');
    const state = this.docs.open(rel, text, version);
    // A user who opens a file is about to edit: the symbol model every change needs is read in
    // the background meanwhile (a server; a one-shot command changes nothing it opens).
    if (!this.opts.lazy && !this.readOnlyBecause) void this.graph.preload(PRELOAD_SLICE_MS, () => this.closing).catch((e: Error) => this.log(`model preload stopped: ${e.message}`));
    return state;
  }

  /**
   * Applies edits to an open buffer. Throws InvalidParams, changing nothing, for a version that
   * is not newer than the buffer's (edits out of order). Null when the file is not open.
   */
  changeDocument(file: string, changes: TextChange[], version: number): BufferState | null {
    this.assertOpen();
    const rel = this.relativePath(file);
    if (!Array.isArray(changes)) throw new EngineError(ErrorCodes.InvalidParams, 'changes must be an array');
    return this.docs.change(rel, changes, version);
  }

  async closeDocument(file: string): Promise<void> {
    this.assertOpen();
    const rel = this.relativePath(file);
    if (!this.docs.close(rel)) return;
    // Back to the disk's text: one change, heard once (and not at all when the disk says the same).
    await this.syncFiles([{ path: rel, type: 'changed' }]);
  }

  // --- paths ---------------------------------------------------------------------------------

  /**
   * Workspace-relative `/` path of an absolute path, a `file://` URI or a relative path. Unless
   * `followLinks` is false, a path that links out of the root (itself or through a parent) is
   * outside too; watch events pass false, since a file that now links out is a deletion.
   */
  relativePath(p: string, opts: { followLinks?: boolean } = {}): string {
    if (typeof p !== 'string' || !p) throw new EngineError(ErrorCodes.InvalidParams, 'expected a file path or URI');
    let abs: string;
    if (p.startsWith('file:')) {
      try {
        abs = fileURLToPath(p);
      } catch {
        throw new EngineError(ErrorCodes.InvalidParams, `not a valid file URI: ${p}`);
      }
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(p) && !/^[a-z]:[\\/]/i.test(p)) {
      throw new EngineError(ErrorCodes.OutsideWorkspace, `only file URIs are served, got ${p}`);
    } else abs = path.resolve(this.root, p);
    if (abs.includes('\0')) throw new EngineError(ErrorCodes.InvalidParams, 'a path cannot contain a NUL byte');
    const rel = path.relative(this.root, abs);
    // Segments, not a string prefix: `..foo.py` is a file in the root.
    if (!rel || escapes(rel)) {
      throw new EngineError(ErrorCodes.OutsideWorkspace, `${p} is outside the workspace ${this.root}`);
    }
    const out = rel.split(path.sep).join('/');
    if (opts.followLinks === false) return out;
    // A symlink inside the root that points out of it is outside too.
    // (The file itself may not exist yet: judge its nearest existing ancestor.)
    let probe = abs;
    while (!fs.existsSync(probe) && probe !== this.root) probe = path.dirname(probe);
    let real = probe;
    try {
      real = fs.realpathSync(probe);
    } catch {
      /* unreadable: judged by its path alone */
    }
    const r = path.relative(this.realRoot, real);
    if (escapes(r)) throw new EngineError(ErrorCodes.OutsideWorkspace, `${p} links outside the workspace ${this.root}`);
    return out;
  }

  absolutePath(rel: string): string {
    return path.join(this.root, rel);
  }

  /**
   * The current text of a workspace file: its open buffer, else the disk — read only if the
   * file is inside the root at this moment (an index path or a symlink may point elsewhere).
   */
  fileText(rel: string): string {
    const open = this.docs.text(rel);
    if (open !== undefined) return open;
    const read = readSource(this.root, this.realRoot, rel, MAX_SHOWN_BYTES, languageForPath(rel)?.encodingCookie);
    if (!read.ok) throw new EngineError(ErrorCodes.NotIndexed, `cannot show ${rel}: ${read.reason}`);
    return read.text;
  }

  // --- queries -------------------------------------------------------------------------------

  /** `cancel`: a caller that may give up (the language server's request token); checked between stages. */
  async search(params: SearchParams, cancel?: Cancellation): Promise<SearchResponse> {
    this.embeddings.start(); // a lazy engine's vector streams start with its first search
    const maxTokens = checkMaxTokens(params.maxTokens);
    const { results, streams, files, queryCut } = await this.searchDetailed(params, cancel);
    const r: SearchResponse = { results, streams, ...(files ? { files } : {}), ...(queryCut ? { queryCut } : {}) };
    const incomplete = this.embeddings.incompleteStreams();
    if (incomplete.length) r.incomplete = incomplete;
    return maxTokens === undefined ? r : fitSearch(r, maxTokens);
  }

  /**
   * Waits until every configured vector stream is complete (the model loaded or given up, every
   * entity embedded), reporting progress now and then: what `nsccn index` does before it exits,
   * and what a CLI query does before it answers, so the same query gives the same answer.
   */
  async finishEmbeddings(onProgress?: (p: StreamProgress[]) => void, everyMs = 200): Promise<StreamProgress[]> {
    this.assertOpen();
    this.embeddings.start();
    const timer = onProgress ? setInterval(() => onProgress(this.embeddings.progress()), everyMs) : undefined;
    try {
      await this.embeddings.idle();
    } finally {
      clearInterval(timer);
    }
    const done = this.embeddings.progress();
    onProgress?.(done);
    return done;
  }

  /**
   * Reads the lexical stream's common words now (what a server does after a quiet spell,
   * search/common-terms.ts): for benchmarks that measure a server past its first seconds.
   */
  async warmSearch(): Promise<void> {
    this.assertOpen();
    void this.searchService;
    await this.commonTerms?.warm();
  }

  /** Search with each stream's own ranking (for the eval). */
  searchDetailed(params: SearchParams, cancel?: Cancellation, options?: SearchOptions): Promise<DetailedSearch> {
    this.assertOpen();
    return this.searchService.search(params, cancel, options);
  }

  skeleton(file: string, opts: SkeletonOptions = {}): Skeleton {
    this.assertOpen();
    const docs = opts.docs ?? DEFAULT_DOCS_LEVEL;
    if (!DOCS_LEVELS.includes(docs)) throw new EngineError(ErrorCodes.InvalidParams, `docs must be one of ${DOCS_LEVELS.join(', ')}, got ${JSON.stringify(opts.docs)}`);
    const maxTokens = checkMaxTokens(opts.maxTokens);
    const rel = this.relativePath(file);
    const lang = languageForPath(rel);
    if (!lang) throw new EngineError(ErrorCodes.NotIndexed, `${rel} is not in a language NSCCN reads`);
    const text = this.fileText(rel);
    const make = (level: DocsLevel) => skeletonOf(this.store, this.parsers, lang, rel, text, this.docs.get(rel)?.tree, level);
    return maxTokens === undefined ? make(docs) : fitSkeleton(make, docs, maxTokens);
  }

  /**
   * `skeleton` for a lazy engine: answered from the cached skeleton when the file is as indexed,
   * else the grammars are loaded first and the file is parsed.
   */
  async skeletonLoading(file: string, opts: SkeletonOptions = {}): Promise<Skeleton> {
    try {
      return this.skeleton(file, opts);
    } catch (e) {
      if (!(e instanceof GrammarsNotLoaded)) throw e;
    }
    const lang = languageForPath(this.relativePath(file));
    await this.loadGrammars(lang ? [lang] : LANGUAGES);
    return this.skeleton(file, opts);
  }

  trace(req: TraceRequest): TraceResult {
    return runNow(this.traceTraversal(req));
  }

  /**
   * The same trace, giving the event loop a turn every few milliseconds: a `cancel` set meanwhile
   * (a client's `$/cancelRequest`) stops it with RequestCancelled. The language server uses this.
   */
  traceCooperatively(req: TraceRequest, cancel?: Cancellation): Promise<TraceResult> {
    return runCooperatively(this.traceTraversal(req), cancel, 'trace');
  }

  private *traceTraversal(req: TraceRequest): Traversal<TraceResult> {
    this.assertOpen();
    const root = this.entity(req.id);
    if (req.relations) {
      const bad = req.relations.filter((r) => !RELATIONS.includes(r));
      if (bad.length) throw new EngineError(ErrorCodes.InvalidParams, `unknown relation ${bad.join(', ')}; known: ${RELATIONS.join(', ')}`);
    }
    const maxTokens = checkMaxTokens(req.maxTokens);
    const t =
      req.to !== undefined
        ? yield* pathTraversal(this.store, { ...req, id: root.id, to: this.entity(req.to).id }, (f) => this.textOrNull(f))
        : yield* traceTraversal(this.store, this.graph, { ...req, id: root.id }, root.kind);
    return maxTokens === undefined ? t : fitTrace(t, maxTokens);
  }

  /** Entities a git diff touches and their blast radius (`nsccn changes`). */
  async changes(params: ChangesParams = {}): Promise<ChangesResponse> {
    this.assertOpen();
    const maxTokens = checkMaxTokens(params.maxTokens);
    const [{ changes }] = await Promise.all([onDemand.impact(), this.loadGrammars()]);
    const r = await changes(
      {
        root: this.root,
        store: this.store,
        testGlobs: this.config.testGlobs,
        extract: (file, text) => {
          const lang = languageForPath(file);
          if (!lang) return null;
          const tree = this.parsers.parse(lang, text);
          try {
            return lang.extract(tree, text, file, this.parsers.get(lang).grammar).entities;
          } finally {
            tree.delete();
          }
        },
        currentText: (file) => this.textOrNull(file),
      },
      params,
    );
    return maxTokens === undefined ? r : fitChanges(r, maxTokens);
  }

  /** The current text of a workspace file, or null when it cannot be read. */
  private textOrNull(file: string): string | null {
    try {
      return this.fileText(file);
    } catch {
      return null;
    }
  }

  window(id: string, contextLines?: number, maxTokens?: number): Window {
    this.assertOpen();
    const budget = checkMaxTokens(maxTokens);
    if (contextLines !== undefined && (!Number.isInteger(contextLines) || contextLines < 0 || contextLines > WINDOW_MAX_CONTEXT)) {
      throw new EngineError(ErrorCodes.InvalidParams, `contextLines must be an integer from 0 to ${WINDOW_MAX_CONTEXT}, got ${JSON.stringify(contextLines)}`);
    }
    const e = this.entity(id);
    if (!e.file) throw new EngineError(ErrorCodes.InvalidParams, `${id} is a ${e.kind}, not code: it has no source window`);
    const w = sourceWindow(e, this.fileText(e.file), contextLines);
    return budget === undefined ? w : fitWindow(w, budget);
  }

  entity(id: string): EntityRow {
    this.assertOpen();
    if (typeof id !== 'string' || !id) throw new EngineError(ErrorCodes.InvalidParams, 'expected an entity id such as func:src/app.py:main');
    const row = this.store.entity(id);
    if (row) return toEntity(row);
    // A qualified name alone (`Flask.wsgi_app`, `main`) names the one entity that has it.
    const named = id.includes(':') ? [] : this.store.entitiesWithQname(id);
    if (named.length === 1) return toEntity(named[0]);
    if (named.length > 1) {
      const suggestions = named.map((e) => e.id);
      throw new EngineError(ErrorCodes.UnknownEntity, `${id} names ${named.length === 20 ? '20 or more' : named.length} entities; give one id: ${suggestions.slice(0, 5).join(', ')}`, { suggestions });
    }
    const suggestions = suggestIds(this.store, id);
    const hint = suggestions.length ? `; did you mean ${suggestions.slice(0, 3).join(', ')}?` : '';
    throw new EngineError(ErrorCodes.UnknownEntity, `unknown entity ${id}${hint}`, { suggestions });
  }

  fileEntities(file: string): EntityRow[] {
    this.assertOpen();
    return this.store.entitiesOfFile(this.relativePath(file)).map(toEntity);
  }

  /** The innermost function, method, class or module whose span contains `pos`. */
  entityAt(file: string, pos: Position): EntityRow | null {
    const rel = this.relativePath(file);
    checkPosition(pos);
    let best: EntityRow | null = null;
    for (const e of this.store.entitiesOfFile(rel).map(toEntity)) {
      if (!e.span || e.kind === 'attr' || e.kind === 'global') continue;
      if (!contains(e.span, pos)) continue;
      if (!best || best.kind === 'module' || (e.span.start.row > best.span!.start.row || (e.span.start.row === best.span!.start.row && e.span.start.column >= best.span!.start.column))) best = e;
    }
    return best;
  }

  incoming(id: string, relations?: Relation[]): EdgeRow[] {
    this.assertOpen();
    return this.store.incoming(id).map(toEdge).filter((e) => !relations || relations.includes(e.relation));
  }

  outgoing(id: string, relations?: Relation[]): EdgeRow[] {
    this.assertOpen();
    return this.store.outgoing(id).map(toEdge).filter((e) => !relations || relations.includes(e.relation));
  }

  /** Direct bases (`up`) or subclasses (`down`) of a class, from resolved INHERITS edges. */
  typeHierarchy(id: string, direction: 'supertypes' | 'subtypes'): EntityRow[] {
    this.assertOpen();
    const ids = direction === 'supertypes' ? supertypes(this.store, id) : subtypes(this.store, id);
    return this.rows(ids);
  }

  /** Methods overriding a method in its class's subclasses; for a class, its subclasses. */
  implementations(id: string): EntityRow[] {
    this.assertOpen();
    return this.rows(implementations(this.store, id));
  }

  private rows(ids: string[]): EntityRow[] {
    return ids.map((id) => this.store.entity(id)).filter((r): r is NonNullable<typeof r> => !!r).map(toEntity);
  }

  /** Graph resolution of the name under the cursor: a reference's targets, or the entity named there. */
  definitionAt(file: string, pos: Position): EntityRow[] {
    const rel = this.relativePath(file);
    checkPosition(pos);
    const ids = new Set<string>();
    for (const e of this.store.entitiesOfFile(rel).map(toEntity)) {
      if (e.nameSpan && contains(e.nameSpan, pos)) ids.add(e.id);
    }
    if (!ids.size) {
      for (const r of this.store.refsOfFile(rel)) {
        const span = { start: { row: r.sr, column: r.sc }, end: { row: r.er, column: r.ec } };
        if (!contains(span, pos)) continue;
        for (const e of this.store.outgoing(r.source)) if (e.rid === r.rid && e.edge_target) ids.add(e.edge_target);
      }
    }
    return [...ids].map((id) => this.store.entity(id)).filter((r): r is NonNullable<typeof r> => !!r).map(toEntity);
  }

  status(): StatusResponse {
    const c = this.store.counts();
    return {
      state: this.indexing ? 'indexing' : 'ready',
      files: c.files,
      entities: c.entities,
      edges: c.edges,
      embeddings: this.embeddings.status(),
      streams: this.searchService.streamNames(),
      streamProgress: this.embeddings.progress(),
      notes: [...this.notes, ...this.embeddings.notes()],
    };
  }

  stats(): StatsResponse {
    this.embeddings.start(); // the same figures from a lazy engine as from a server's
    let dbBytes = 0;
    const dbPath = this.opts.dbPath ?? path.join(this.root, '.nsccn', 'index.db');
    for (const s of ['', '-wal']) {
      try {
        dbBytes += fs.statSync(dbPath + s).size;
      } catch {
        /* in memory, or no WAL */
      }
    }
    return {
      root: this.root,
      files: this.store.counts().files,
      entities: this.store.kindCounts(),
      edges: this.store.relationCounts(),
      dispatchEdges: this.store.dispatchCount(),
      unresolvedEdges: this.store.unresolvedCount(),
      dbBytes,
      embeddings: this.embeddings.status(),
      streamProgress: this.embeddings.progress(),
    };
  }

  onDidChange(listener: (c: GraphChange) => void): () => void {
    return this.host.onDidChange(listener);
  }

  /** Stops a running index at its next batch, waits for background work, closes the index. */
  close(): Promise<void> {
    this.closePromise ??= this.shutdown();
    return this.closePromise;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    try {
      await this.indexing;
    } catch {
      /* reported to its caller */
    }
    this.closed = true;
    await this.embeddings_?.close();
    this.commonTerms?.dispose();
    this.docs.closeAll();
    this.host.clearListeners();
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new EngineError(ErrorCodes.IndexUnavailable, 'the engine is closed');
  }
}

function isIgnoreFile(rel: string): boolean {
  return rel === '.gitignore' || rel.endsWith('/.gitignore');
}

/** Glob patterns of the files an engine wants watched (for an editor's file watcher). */
export function watchGlobs(): string[] {
  const exts = [...EXTENSIONS].map((e) => e.replace(/^\./, '')).sort();
  // The project files a language reads (project.ts records which; an extended tsconfig may have
  // any name, and is heard of through the workspace's own watcher).
  return [exts.length === 1 ? `**/*.${exts[0]}` : `**/*.{${exts.join(',')}}`, '**/.gitignore', '**/{pyproject.toml,setup.cfg,package.json,tsconfig.json,jsconfig.json}'];
}

function checkPosition(pos: Position): void {
  if (!pos || !Number.isInteger(pos.line) || !Number.isInteger(pos.character) || pos.line < 0 || pos.character < 0) {
    throw new EngineError(ErrorCodes.BadPosition, `bad position ${JSON.stringify(pos)}: expected {line, character}, 0-based integers`);
  }
}

function contains(span: { start: { row: number; column: number }; end: { row: number; column: number } }, pos: Position): boolean {
  const after = pos.line > span.start.row || (pos.line === span.start.row && pos.character >= span.start.column);
  const before = pos.line < span.end.row || (pos.line === span.end.row && pos.character <= span.end.column);
  return after && before;
}
