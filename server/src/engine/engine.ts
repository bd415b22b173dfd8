// The engine: one workspace, its index, its graph, its open buffers and its search. The faces
// (LSP, CLI, MCP) hold an Engine and call these methods; nothing here knows about them.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  IndexSummary,
  Relation,
  SearchParams,
  SearchResponse,
  Skeleton,
  StatsResponse,
  StatusResponse,
  TraceResult,
  Window,
} from '../../../protocol';
import { ErrorCodes, RELATIONS } from '../../../protocol';
import type { EdgeRow, EngineOptions, EntityRow, GraphChange, IndexProgress, Position, TextChange } from './api';
import { EmbeddingService } from './embed/service';
import { EngineError } from './errors';
import { Graph } from './graph/graph';
import { trace, type TraceRequest } from './graph/trace';
import { LANGUAGES, languageForPath } from './languages/registry';
import { Parsers } from './parse/parsers';
import { ExactNameStream } from './search/exact';
import { LexicalStream } from './search/lexical';
import { SearchService, type DetailedSearch } from './search/service';
import { SignalStream } from './search/signals';
import { skeletonOf } from './skeleton/service';
import { openDatabase, type Db } from './store/db';
import { FtsIndex } from './store/fts';
import { toEdge, toEntity } from './store/rows';
import { Store } from './store/store';
import { suggestIds } from './suggest';
import { sourceWindow } from './window';
import { applyDeletion, applyExtraction } from './workspace/apply';
import { IgnoreRules } from './workspace/discover';
import { OpenDocuments } from './workspace/documents';
import { indexFromDisk } from './workspace/indexer';
import { processFile } from './workspace/process';
import { decodeSource } from './workspace/read';

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export interface FileChange {
  path: string;
  type: 'created' | 'changed' | 'deleted';
}

export class Engine {
  readonly root: string;
  private readonly realRoot: string;
  readonly store: Store;
  readonly graph: Graph;
  readonly embeddings: EmbeddingService;
  private readonly search_: SearchService;
  private readonly docs: OpenDocuments;
  private readonly rules: IgnoreRules;
  private readonly listeners = new Set<(c: GraphChange) => void>();
  private readonly log: (m: string) => void;
  private readonly notes: string[] = [];
  private indexing: Promise<IndexSummary> | null = null;
  private closed = false;
  /** Set by close(): a running index stops at the next batch instead of finishing. */
  private closing = false;
  private closePromise: Promise<void> | null = null;

  private constructor(
    private readonly opts: EngineOptions & { root: string },
    private readonly db: Db,
    private readonly parsers: Parsers,
  ) {
    this.root = opts.root;
    this.realRoot = fs.realpathSync(opts.root);
    this.log = opts.log ?? (() => {});
    this.store = new Store(db);
    this.graph = new Graph(this.store);
    this.rules = new IgnoreRules(this.root, opts.exclude ?? []);
    this.docs = new OpenDocuments(this.store, this.graph, parsers);
    const fts = new FtsIndex(db);
    const lexical = new LexicalStream(fts);
    this.embeddings = new EmbeddingService(this.store, opts.embeddings, this.log);
    const exact = new ExactNameStream(this.store);
    const signals = new SignalStream(this.store, fts);
    this.search_ = new SearchService(this.store, () => [lexical, exact, signals, ...this.embeddings.streams()]);
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
    const dbPath = options.dbPath ?? path.join(root, '.nsccn', 'index.db');
    const { db, rebuiltBecause } = openDatabase(dbPath, log);
    const parsers = new Parsers();
    await parsers.load(LANGUAGES);
    const engine = new Engine({ ...options, root }, db, parsers);
    if (rebuiltBecause) engine.notes.push(`index rebuilt: ${rebuiltBecause}`);
    engine.embeddings.start();
    return engine;
  }

  // --- keeping the index current -------------------------------------------------------------

  /** Brings the index up to date with the disk (only added, changed and deleted files are read). */
  indexWorkspace(onProgress?: (p: IndexProgress) => void): Promise<IndexSummary> {
    this.assertOpen();
    // One run at a time: a second caller shares the run in progress.
    if (this.indexing) return this.indexing;
    const run = indexFromDisk(
      {
        root: this.root,
        store: this.store,
        graph: this.graph,
        parsers: this.parsers,
        rules: this.rules,
        exclude: this.opts.exclude ?? [],
        maxFileBytes: this.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
        workers: this.opts.workers,
        openFiles: this.docs.paths(),
        log: this.log,
        shouldStop: () => this.closing,
      },
      onProgress,
    );
    this.indexing = run.finally(() => {
      this.indexing = null;
    });
    return this.indexing.then((summary) => {
      if ((summary.parsed || summary.deleted) && !this.closing) {
        this.embeddings.changed();
        this.emit([]);
      }
      return summary;
    });
  }

  isIndexing(): boolean {
    return this.indexing !== null;
  }

  /** Files changed on disk (watcher or `workspace/didChangeWatchedFiles`); paths relative. */
  async syncFiles(changes: FileChange[]): Promise<void> {
    this.assertOpen();
    const max = this.opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    const open = this.docs.paths();
    const touched: string[] = [];
    this.store.transaction(() => {
      for (const c of changes) {
        const rel = this.relativePath(c.path);
        if (open.has(rel) || !languageForPath(rel)) continue;
        const abs = path.join(this.root, rel);
        const exists = fs.existsSync(abs);
        if (c.type === 'deleted' || !exists || this.rules.ignored(rel, false)) {
          if (this.store.file(rel)) {
            applyDeletion(this.store, this.graph, rel);
            touched.push(rel);
          }
          continue;
        }
        const known = this.store.file(rel);
        const o = processFile(this.root, { path: rel, knownHash: known?.hash ?? null }, this.parsers, max);
        if (o.kind === 'parsed') {
          applyExtraction(this.store, this.graph, languageForPath(rel)!, { path: rel, language: o.language, module: o.module, hash: o.hash, size: o.size, mtimeMs: o.mtimeMs }, o.extraction);
          touched.push(rel);
        } else if (o.kind === 'unchanged' && known) this.store.touchFile(known.fid, o.mtimeMs, o.size);
        else if (o.kind === 'skipped') {
          this.log(`skipped ${rel}: ${o.reason}`);
          if (known) {
            applyDeletion(this.store, this.graph, rel);
            touched.push(rel);
          }
        }
      }
    });
    if (touched.length) {
      this.graph.flush(true);
      this.embeddings.changed();
      this.emit(touched);
    }
  }

  // --- editor buffers ------------------------------------------------------------------------

  openDocument(file: string, text: string, version: number): void {
    this.assertOpen();
    const rel = this.relativePath(file);
    if (this.docs.open(rel, text, version)) {
      this.embeddings.changed();
      this.emit([rel]);
    }
  }

  changeDocument(file: string, changes: TextChange[], version: number): void {
    this.assertOpen();
    const rel = this.relativePath(file);
    if (!Array.isArray(changes)) throw new EngineError(ErrorCodes.InvalidParams, 'changes must be an array');
    if (this.docs.change(rel, changes, version)) {
      this.embeddings.changed(); // debounced by the service: cheap per keystroke
      this.emit([rel]);
    }
  }

  async closeDocument(file: string): Promise<void> {
    this.assertOpen();
    const rel = this.relativePath(file);
    if (!this.docs.close(rel)) return;
    await this.syncFiles([{ path: rel, type: 'changed' }]);
    this.emit([rel]);
  }

  // --- paths ---------------------------------------------------------------------------------

  /** Workspace-relative `/` path of an absolute path, a `file://` URI or a relative path. */
  relativePath(p: string): string {
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
    const rel = path.relative(this.root, abs);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new EngineError(ErrorCodes.OutsideWorkspace, `${p} is outside the workspace ${this.root}`);
    }
    const out = rel.split(path.sep).join('/');
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
    if (r.startsWith('..') || path.isAbsolute(r)) throw new EngineError(ErrorCodes.OutsideWorkspace, `${p} links outside the workspace ${this.root}`);
    return out;
  }

  absolutePath(rel: string): string {
    return path.join(this.root, rel);
  }

  /** The current text of a workspace file: its open buffer, else the disk. */
  fileText(rel: string): string {
    const open = this.docs.text(rel);
    if (open !== undefined) return open;
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(path.join(this.root, rel));
    } catch (e) {
      throw new EngineError(ErrorCodes.NotIndexed, `cannot read ${rel}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const read = decodeSource(bytes, 0);
    if (!read.ok) throw new EngineError(ErrorCodes.NotIndexed, `cannot show ${rel}: ${read.reason}`);
    return read.text;
  }

  // --- queries -------------------------------------------------------------------------------

  async search(params: SearchParams): Promise<SearchResponse> {
    const { results, streams, files } = await this.searchDetailed(params);
    return { results, streams, ...(files ? { files } : {}) };
  }

  /** Search with each stream's own ranking (for the eval). */
  searchDetailed(params: SearchParams): Promise<DetailedSearch> {
    this.assertOpen();
    return this.search_.search(params);
  }

  skeleton(file: string): Skeleton {
    this.assertOpen();
    const rel = this.relativePath(file);
    const lang = languageForPath(rel);
    if (!lang) throw new EngineError(ErrorCodes.NotIndexed, `${rel} is not in a language NSCCN reads`);
    const text = this.fileText(rel);
    return skeletonOf(this.store, this.parsers, lang, rel, text, this.docs.get(rel)?.tree);
  }

  trace(req: TraceRequest): TraceResult {
    this.assertOpen();
    const root = this.entity(req.id);
    if (req.relations) {
      const bad = req.relations.filter((r) => !RELATIONS.includes(r));
      if (bad.length) throw new EngineError(ErrorCodes.InvalidParams, `unknown relation ${bad.join(', ')}; known: ${RELATIONS.join(', ')}`);
    }
    return trace(this.store, this.graph, req, root.kind);
  }

  window(id: string, contextLines?: number): Window {
    this.assertOpen();
    const e = this.entity(id);
    if (!e.file) throw new EngineError(ErrorCodes.InvalidParams, `${id} is a ${e.kind}, not code: it has no source window`);
    return sourceWindow(e, this.fileText(e.file), contextLines);
  }

  entity(id: string): EntityRow {
    this.assertOpen();
    if (typeof id !== 'string' || !id) throw new EngineError(ErrorCodes.InvalidParams, 'expected an entity id such as func:src/app.py:main');
    const row = this.store.entity(id);
    if (row) return toEntity(row);
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
      streams: this.search_.streamNames(),
      notes: [...this.notes, ...this.embeddings.notes()],
    };
  }

  stats(): StatsResponse {
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
      unresolvedEdges: this.store.unresolvedCount(),
      dbBytes,
      embeddings: this.embeddings.status(),
    };
  }

  onDidChange(listener: (c: GraphChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
    await this.embeddings.close();
    this.docs.closeAll();
    this.listeners.clear();
    this.db.close();
  }

  private emit(files: string[]): void {
    for (const l of this.listeners) {
      try {
        l({ files });
      } catch (e) {
        this.log(`change listener failed: ${(e as Error).message}`);
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new EngineError(ErrorCodes.IndexUnavailable, 'the engine is closed');
  }
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
