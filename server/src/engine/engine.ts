// The engine: one workspace, its index, its graph, its open buffers and its search. The faces
// (LSP, CLI, MCP) hold an Engine and call these methods; nothing here knows about them. The
// Engine opens and closes the index and holds the parts that do the work, each its own concern:
// the workspace's paths (workspace/workspace-paths.ts), keeping the index current
// (workspace/upkeep.ts), grammar loads (parse/grammar-loader.ts), the graph's read-only queries
// (graph-queries.ts), skeletons and windows (source-views.ts) and search
// (search/workspace-search.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  ChangesParams,
  ChangesResponse,
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
import { ErrorCodes } from '../../../protocol';
import { fitChanges } from './budget/changes';
import { keepIndexOutOfGit } from './config/index-folder';
import { loadProjectConfig, withProjectConfig, type ProjectConfig } from './config/project';
import { checkMaxTokens } from './budget/measure';
import type { EdgeRow, EngineOptions, EntityRow, GraphChange, IndexProgress, Position, TextChange } from './api';
import { EmbeddingService } from './embed/service';
import { EngineError } from './errors';
import { exposedGc } from './gc';
import { Graph } from './graph/graph';
import type { Cancellation } from './graph/cooperative';
import type { TraceRequest } from './graph/trace';
import { GraphQueries } from './graph-queries';
import { LANGUAGES, languageForPath } from './languages/registry';
import type { LanguageSupport } from './languages/types';
import { GrammarLoader } from './parse/grammar-loader';
import { Parsers } from './parse/parsers';
import type { DetailedSearch, SearchOptions } from './search/service';
import { WorkspaceSearch } from './search/workspace-search';
import { SourceViews, type SkeletonRequest } from './source-views';
import { checkIntegrity, isCorruption, markDamaged, openDatabase, type Db } from './store/db';
import { Store } from './store/store';
import { IndexHost } from './workspace/host';
import { Buffers, type BufferState } from './workspace/buffers';
import type { IndexProfile } from './workspace/profile';
import { projectFiles } from './workspace/project';
import { IndexUpkeep, type FileChange } from './workspace/upkeep';
import { WorkspacePaths } from './workspace/workspace-paths';

export type { FileChange } from './workspace/upkeep';
export { mayBeWatched, watchGlobs } from './workspace/workspace-paths';
export type { SkeletonRequest } from './source-views';

// Loaded on first use: a query that diffs nothing does not load git or the diff's parse step.
const loadImpact = () => import('./changes/impact.js');

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** How long the background read of the symbol model holds the thread at a time. */
const PRELOAD_SLICE_MS = 16;

export class Engine {
  readonly root: string;
  readonly store: Store;
  readonly graph: Graph;
  private embeddings_: EmbeddingService | null = null;
  private readonly docs: Buffers;
  /** The one way into the index: every write, and every change notification, goes through it. */
  private readonly host: IndexHost;
  private readonly paths: WorkspacePaths;
  private readonly grammars: GrammarLoader;
  private readonly upkeep: IndexUpkeep;
  private readonly queries: GraphQueries;
  private readonly views: SourceViews;
  private readonly searching: WorkspaceSearch;
  private readonly log: (m: string) => void;
  private readonly notes: string[] = [];
  private closed = false;
  /** Set by close(): a running index stops at the next batch instead of finishing. */
  private closing = false;
  private closePromise: Promise<void> | null = null;
  /** Set when the index can only be read: queries answer, nothing is written. */
  private readOnlyBecause: string | null = null;
  /** Milliseconds of each start-up step this engine took (opening, grammars, the up-to-date check). */
  private readonly steps: Record<string, number> = {};

  private constructor(
    private readonly opts: EngineOptions & { root: string; dbPath: string },
    private readonly db: Db,
    private readonly parsers: Parsers,
    /** `.nsccn.json` as read when the engine opened. */
    readonly config: ProjectConfig = {},
  ) {
    this.root = opts.root;
    this.log = opts.log ?? (() => {});
    this.store = new Store(db);
    this.graph = new Graph(this.store, projectFiles(this.root));
    this.host = new IndexHost(this.store, this.graph, { changed: (files) => this.embeddings.changed(files) }, this.log);
    const maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.docs = new Buffers(this.host, parsers, maxFileBytes);
    this.paths = new WorkspacePaths(this.root, opts.exclude ?? [], this.docs, this.graph);
    this.grammars = new GrammarLoader(parsers, this.steps);
    const assertOpen = () => this.assertOpen();
    this.upkeep = new IndexUpkeep(
      { host: this.host, docs: this.docs, parsers, grammars: this.grammars, paths: this.paths, log: this.log, steps: this.steps },
      { ...opts, maxFileBytes },
      {
        assertOpen,
        readOnlyBecause: () => this.readOnlyBecause,
        closing: () => this.closing,
        closed: () => this.closed,
        afterRun: () => this.checkInBackground(),
      },
    );
    this.queries = new GraphQueries(this.store, this.graph, this.paths, assertOpen);
    this.views = new SourceViews(this.store, parsers, this.grammars, this.docs, this.paths, this.queries, assertOpen);
    this.searching = new WorkspaceSearch(db, this.store, () => this.embeddings, !!opts.lazy, config.testGlobs, assertOpen);
  }

  /** The vector streams' background service (made on first use: a trace never needs it). */
  get embeddings(): EmbeddingService {
    this.embeddings_ ??= new EmbeddingService(this.store, this.opts.embeddings, this.log);
    return this.embeddings_;
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
    const engine = new Engine({ ...options, root, dbPath }, db, new Parsers({ spare: 'background' }), config);
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
    if (!options.lazy) engine.searching.prepare();
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
    if (isCorruption(e)) markDamaged(this.opts.dbPath);
  }

  /**
   * Loads the tree-sitter grammars of these languages (default: all; idempotent). `open` loads
   * all unless the engine is lazy; a lazy engine loads those of the files it must parse, and
   * `skeleton` asks for them with GrammarsNotLoaded (see `skeletonLoading`).
   */
  loadGrammars(langs: readonly LanguageSupport[] = LANGUAGES): Promise<void> {
    return this.grammars.load(langs);
  }

  /** Null once every grammar is loaded (a buffer can be opened now); else their loading. */
  grammarsPending(): Promise<void> | null {
    return this.grammars.pending();
  }

  /** Where this engine's start-up time went, in milliseconds per step (plain data, for `--timing` and the bench). */
  startupSteps(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.steps).map(([k, v]) => [k, Math.round(v * 10) / 10]));
  }

  // --- keeping the index current -------------------------------------------------------------

  /** Where the last index run's time went, phase by phase (null before a run has finished). */
  get lastIndexProfile(): IndexProfile | null {
    return this.upkeep.lastIndexProfile;
  }

  /**
   * Brings the index up to date with the disk (only added, changed and deleted files are read).
   * When another process is indexing the same index, `wait` (the default) waits for it to
   * finish first; `skip` answers at once from the index as it is (the summary's notes say so).
   */
  indexWorkspace(onProgress?: (p: IndexProgress) => void, options: { ifBusy?: 'wait' | 'skip' } = {}): Promise<IndexSummary> {
    return this.upkeep.indexWorkspace(onProgress, options);
  }

  /** An index run of this engine is under way. */
  isIndexing(): boolean {
    return this.upkeep.isIndexing();
  }

  /**
   * Files changed on disk (watcher or `workspace/didChangeWatchedFiles`); paths relative. A file
   * that is gone or now links outside the root is a deletion; one bad path is logged and skipped,
   * never the end of the batch.
   */
  syncFiles(changes: FileChange[]): Promise<void> {
    return this.upkeep.syncFiles(changes);
  }

  /** A file the index would read: a language reads it, and no ignore rule skips it. */
  isIndexable(file: string): boolean {
    return this.paths.isIndexable(file);
  }

  /** The workspace's ignore rules (.gitignore files, excludes, built-in skips), read fresh after a .gitignore changes. */
  isIgnored(file: string, isDir: boolean): boolean {
    return this.paths.isIgnored(file, isDir);
  }

  /** Files whose changes the engine wants to hear of: indexable ones, the ignore files and the project files read. */
  isWatched(file: string): boolean {
    return this.paths.isWatched(file);
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
    return this.paths.relativePath(p, opts);
  }

  /** The absolute path of a workspace-relative one. */
  absolutePath(rel: string): string {
    return this.paths.absolutePath(rel);
  }

  /**
   * The current text of a workspace file: its open buffer, else the disk — read only if the
   * file is inside the root at this moment (an index path or a symlink may point elsewhere).
   */
  fileText(rel: string): string {
    return this.paths.fileText(rel);
  }

  // --- queries -------------------------------------------------------------------------------

  /** `cancel`: a caller that may give up (the language server's request token); checked between stages. */
  search(params: SearchParams, cancel?: Cancellation): Promise<SearchResponse> {
    return this.searching.search(params, cancel);
  }

  /**
   * Lets go of the symbol model, read again from the index if a change comes (`Graph.unload`),
   * and collects: for a command that indexed and will not change a file again. False when a
   * change is being resolved (then nothing is dropped).
   */
  releaseSymbolModel(): boolean {
    this.assertOpen();
    if (!this.graph.unload()) return false;
    exposedGc()?.();
    return true;
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
  warmSearch(): Promise<void> {
    return this.searching.warm();
  }

  /** Search with each stream's own ranking (for the eval). */
  searchDetailed(params: SearchParams, cancel?: Cancellation, options?: SearchOptions): Promise<DetailedSearch> {
    return this.searching.detailed(params, cancel, options);
  }

  /** A file's outline: signatures and docs, bodies left out (the Orient step). */
  skeleton(file: string, opts: SkeletonRequest = {}): Skeleton {
    return this.views.skeleton(file, opts);
  }

  /**
   * `skeleton` for a lazy engine: answered from the cached skeleton when the file is as indexed,
   * else the grammars are loaded first and the file is parsed.
   */
  skeletonLoading(file: string, opts: SkeletonRequest = {}): Promise<Skeleton> {
    return this.views.skeletonLoading(file, opts);
  }

  /** Entities reached from `req.id` along the relations asked for, or the shortest path to `req.to`. */
  trace(req: TraceRequest): TraceResult {
    return this.queries.trace(req);
  }

  /**
   * The same trace, giving the event loop a turn every few milliseconds: a `cancel` set meanwhile
   * (a client's `$/cancelRequest`) stops it with RequestCancelled. The language server uses this.
   */
  traceCooperatively(req: TraceRequest, cancel?: Cancellation): Promise<TraceResult> {
    return this.queries.traceCooperatively(req, cancel);
  }

  /** Entities a git diff touches and their blast radius (`nsccn changes`). */
  async changes(params: ChangesParams = {}): Promise<ChangesResponse> {
    this.assertOpen();
    const maxTokens = checkMaxTokens(params.maxTokens);
    const [{ changes }] = await Promise.all([loadImpact(), this.loadGrammars()]);
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
        currentText: (file) => this.paths.textOrNull(file),
      },
      params,
    );
    return maxTokens === undefined ? r : fitChanges(r, maxTokens);
  }

  /** An entity's source with `contextLines` around it (the Examine step). */
  window(id: string, contextLines?: number, maxTokens?: number): Window {
    return this.views.window(id, contextLines, maxTokens);
  }

  /** An entity by id, or by a qualified name only one entity has; else UnknownEntity with suggestions. */
  entity(id: string): EntityRow {
    return this.queries.entity(id);
  }

  /** The entities of a file, as stored. */
  fileEntities(file: string): EntityRow[] {
    return this.queries.fileEntities(file);
  }

  /** The innermost function, method, class or module whose span contains `pos`. */
  entityAt(file: string, pos: Position): EntityRow | null {
    return this.queries.entityAt(file, pos);
  }

  /** Edges into `id`, of these relations (default: all). */
  incoming(id: string, relations?: Relation[]): EdgeRow[] {
    return this.queries.incoming(id, relations);
  }

  /** Edges out of `id`, of these relations (default: all). */
  outgoing(id: string, relations?: Relation[]): EdgeRow[] {
    return this.queries.outgoing(id, relations);
  }

  /** Direct bases (`supertypes`) or subclasses (`subtypes`) of a class, from resolved INHERITS edges. */
  typeHierarchy(id: string, direction: 'supertypes' | 'subtypes'): EntityRow[] {
    return this.queries.typeHierarchy(id, direction);
  }

  /** Methods overriding a method in its class's subclasses; for a class, its subclasses. */
  implementations(id: string): EntityRow[] {
    return this.queries.implementations(id);
  }

  /** Graph resolution of the name under the cursor: a reference's targets, or the entity named there. */
  definitionAt(file: string, pos: Position): EntityRow[] {
    return this.queries.definitionAt(file, pos);
  }

  /** What the index holds and which search streams answer (`nsccn/status`). */
  status(): StatusResponse {
    const c = this.store.counts();
    return {
      state: this.upkeep.isIndexing() ? 'indexing' : 'ready',
      files: c.files,
      entities: c.entities,
      edges: c.edges,
      embeddings: this.embeddings.status(),
      streams: this.searching.streamNames(),
      streamProgress: this.embeddings.progress(),
      notes: [...this.notes, ...this.embeddings.notes()],
    };
  }

  /** What the index holds: entities by kind, edges by relation, its bytes on disk, the vectors (`nsccn stats`). */
  stats(): StatsResponse {
    this.embeddings.start(); // the same figures from a lazy engine as from a server's
    let dbBytes = 0;
    const dbPath = this.opts.dbPath;
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

  /** Hears of every change to the index, once per change; returns the unsubscribe. */
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
      await this.upkeep.runInProgress;
    } catch {
      /* reported to its caller */
    }
    this.closed = true;
    await this.embeddings_?.close();
    this.searching.dispose();
    this.docs.closeAll();
    this.host.clearListeners();
    this.db.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new EngineError(ErrorCodes.IndexUnavailable, 'the engine is closed');
  }
}
