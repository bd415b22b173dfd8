// The one way into the index (ARCHITECTURE.md, "apply_change" in rust-analyzer's words). Every
// write — files parsed from disk, editor buffers re-extracted, files deleted, the batches of an
// index run — reaches the store and the graph through an IndexHost, which keeps the rules in one
// place: the symbol model is loaded before rows change, the rows of one change are written in
// one transaction, the references whose resolution may have moved are resolved, the vectors are
// told to catch up, and listeners hear of the change exactly once.
import type { GraphChange } from '../api';
import type { Between, Graph } from '../graph/graph';
import { importRefs } from '../graph/imports';
import type { FileExtraction, LanguageSupport } from '../languages/types';
import { LANGUAGES } from '../languages/registry';
import type { FileMeta, Store } from '../store/store';
import type { ProfileClock } from './profile';

/** Rows after `afterRow` (in the text before an edit) move by `delta` lines. */
export interface LineShift {
  afterRow: number;
  delta: number;
}

export type FileWrite =
  /** A file's new extraction; `shifts` first move the rows below a buffer edit (so they compare unchanged). */
  | { kind: 'extracted'; lang: LanguageSupport; meta: FileMeta; extraction: FileExtraction; shifts?: LineShift[] }
  | { kind: 'deleted'; path: string }
  /** Same content, new stat: nothing to resolve, nobody to tell. */
  | { kind: 'touched'; fid: number; mtimeMs: number; size: number };

export interface Change {
  writes: FileWrite[];
}

export class IndexHost {
  private readonly listeners = new Set<(c: GraphChange) => void>();

  constructor(
    readonly store: Store,
    readonly graph: Graph,
    /** Told after every change that rows changed (the embedding service debounces it). */
    /** `files`: the files whose entities changed; none: anything may have (a whole run). */
    private readonly vectors: { changed(files?: readonly string[]): void },
    private readonly log: (m: string) => void,
  ) {}

  /**
   * Applies a change: its rows in one transaction, then resolution of what it moved, then one
   * notification. Returns the files whose rows changed.
   */
  apply(change: Change): string[] {
    // The first load reads the whole model (seconds on a large index): before the write lock.
    if (change.writes.some((w) => w.kind !== 'touched')) this.graph.load();
    const changed = this.store.transaction(() => this.write(change.writes, false));
    if (changed.length) {
      this.graph.flush(true);
      this.vectors.changed(changed);
      this.emit(changed);
    }
    return changed;
  }

  /**
   * Starts an index run: its batches are written as they come (inside the caller's long
   * transaction), resolved together by `finish`, and announced once.
   */
  /** `intoEmpty`: the index holds no file yet (a first index). */
  beginRun(clock?: ProfileClock, intoEmpty = false): IndexRun {
    this.graph.beginRun(intoEmpty);
    return new IndexRun(this, clock);
  }

  /**
   * The files whose imports were answered by whether one of `paths` exists (a path alias that
   * finds a file now, or no longer): they are extracted again when one appears or goes.
   */
  importersDecidedBy(paths: readonly string[]): string[] {
    if (!paths.length) return [];
    this.graph.load(); // the model's bindings are what asked
    const out = new Set<string>();
    for (const lang of LANGUAGES) for (const f of lang.importersDecidedBy?.(paths, this.graph.project) ?? []) out.add(f);
    for (const p of paths) out.delete(p);
    return [...out].sort();
  }

  onDidChange(listener: (c: GraphChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clearListeners(): void {
    this.listeners.clear();
  }

  /** @internal Rows of the writes (the caller holds the transaction); the files they changed. */
  write(writes: FileWrite[], fromRun: boolean, clock?: ProfileClock): string[] {
    const changed: string[] = [];
    for (const w of writes) {
      if (w.kind === 'touched') {
        this.store.touchFile(w.fid, w.mtimeMs, w.size);
        continue;
      }
      this.graph.load(); // the model must hold the file's previous state before its rows change
      this.graph.beforeWrite(w.kind === 'deleted' ? w.path : w.meta.path, w.kind === 'deleted' ? undefined : w.extraction);
      if (w.kind === 'deleted') {
        if (!this.store.file(w.path)) continue;
        this.graph.fileDeleted(w.path, this.store.deleteFile(w.path), fromRun);
        changed.push(w.path);
        continue;
      }
      const { meta, lang } = w;
      for (const s of w.shifts ?? []) this.store.shiftRows(meta.path, s.afterRow, s.delta);
      const t0 = clock ? performance.now() : 0;
      const full: FileExtraction = { ...w.extraction, refs: w.extraction.refs.concat(importRefs(w.extraction, lang, this.graph.project)) };
      const result = (fromRun ? this.store.insertFile(meta, full) : null) ?? this.store.replaceFile(meta, full);
      const t1 = clock ? performance.now() : 0;
      this.graph.fileChanged(meta.path, lang, meta.module, full, result, fromRun);
      if (clock) {
        clock.ms.write += t1 - t0;
        clock.ms.model += performance.now() - t1;
      }
      changed.push(meta.path);
    }
    return changed;
  }

  /** @internal */
  emit(files: string[]): void {
    for (const l of this.listeners) {
      try {
        l({ files });
      } catch (e) {
        this.log(`change listener failed: ${(e as Error).message}`);
      }
    }
  }

  /** @internal */
  vectorsChanged(files?: readonly string[]): void {
    this.vectors.changed(files);
  }
}

/** Past this many files, the vectors look for work everywhere rather than file by file. */
const MANY_FILES = 500;

/** An index run in progress: batches in, one resolution and one notification out. */
export class IndexRun {
  private changed = false;
  /** The files the run rewrote, while few (null: many, or unknown). */
  private files: Set<string> | null = new Set();

  constructor(
    private readonly host: IndexHost,
    private readonly clock?: ProfileClock,
  ) {}

  /** Writes a batch (in a savepoint of the caller's transaction); resolution waits for `finish`. */
  write(writes: FileWrite[]): void {
    const changed = this.host.store.transaction(() => this.host.write(writes, true, this.clock));
    if (changed.length) this.changed = true;
    for (const f of changed) if (this.files && this.files.add(f).size > MANY_FILES) this.files = null;
  }

  /** Project files that steer only import names moved: the files under `dirs` are named anew and resolved again at `finish`. */
  renamed(dirs: readonly string[]): void {
    this.host.graph.layoutsMoved(dirs);
    this.changed = true;
  }

  /**
   * Resolves what the run wrote (`everything`: every reference in the index, after an
   * interrupted run) and, unless `quiet` (the engine is closing), tells the listeners once.
   * `between`: called between chunks of resolution with how many references are resolved, of
   * how many (the run's garbage collection, its progress).
   */
  async finish(selective: boolean, everything: boolean, quiet: () => boolean, between?: Between): Promise<void> {
    if (this.clock) await this.clock.timeAsync('resolve', () => this.host.graph.finishRun(selective, everything, between));
    else await this.host.graph.finishRun(selective, everything, between);
    if ((this.changed || everything) && !quiet()) {
      this.host.vectorsChanged(everything ? undefined : (this.files ?? undefined) && [...this.files!]);
      this.host.emit([]);
    }
  }
}
