// Bringing the index up to date with the disk: discover, diff against what is stored, parse
// only what changed (in workers), write in batched transactions, then resolve.
import type { IndexSummary } from '../../../../protocol';
import type { IndexProgress } from '../api';
import { dirOf } from '../graph/model';
import { EXTENSIONS, LANGUAGES, languageById } from '../languages/registry';
import type { Parsers } from '../parse/parsers';
import type { Store } from '../store/store';
import type { FileWrite, IndexHost } from './host';
import { discover, type IgnoreRules } from './discover';
import type { DiskAndIndex } from './fresh';
import { processAll } from './pool';
import type { FileJob, FileOutcome } from './process';
import { ProfileClock, type IndexProfile } from './profile';
import { GrowthCollector } from '../gc';
import { readContentSkips, stillRefused, writeContentSkips, type ContentSkips } from './skips';
import { projectFiles, projectMoves, recordProjectReads } from './project';
import { beat, claimRun, claimRunWhenFree, describeRun, failRun, releaseRun, type RunRecord } from './runs';

const COMMIT_MS = 2000;
/**
 * Heap growth past the live size that makes a run collect (see gc.ts; a quarter of what is live
 * when that is more). At 192 MB a first index of the stdlib never collected, and its heap grew
 * to ~220 MB while ~130 MB was live at the end of resolution: its peak RSS.
 */
const GC_GROWTH_BYTES = 48 * 1024 * 1024;
/**
 * Resolution collects at 15 % of growth, not 25: what it holds is the run's peak (site-packages:
 * ~480 MB live, and V8 keeps the pages the slack took). Two runs each: peak RSS 706, 696 MB
 * against 732, 739, for ~0.7 s more of collections in a minute's run; the stdlib's growth stays
 * under the 48 MB floor either way.
 */
const RESOLVE_GC_SHARE = 0.15;
/** Cold runs at least this big load without secondary indexes and build them at the end. */
const BULK_MIN_FILES = 200;

export interface IndexContext {
  root: string;
  /** The one way into the index; its store is also where the run's transactions are opened. */
  host: IndexHost;
  parsers: Parsers;
  /** Makes `parsers` ready for the run's languages: called before a file is parsed on this thread. */
  loadGrammars?: () => Promise<void>;
  rules: IgnoreRules;
  exclude: string[];
  maxFileBytes: number;
  workers?: number;
  /** Files open in an editor: their buffer, not the disk, is the truth. */
  openFiles: ReadonlySet<string>;
  log: (m: string) => void;
  /** True once the engine is closing: stop parsing, keep what was written consistent (and announce nothing). */
  shouldStop?: () => boolean;
  /**
   * When another process is indexing this index: `wait` for it and then run (an index command,
   * a language server), or `skip` and answer from what is there (a query command).
   */
  ifBusy?: 'wait' | 'skip';
  /**
   * Open buffers to extract again (their import targets may have moved): these, or all (null)
   * after a run that found the project files changed.
   */
  reextractOpen?: (paths: string[] | null) => void;
  /** Told where a run's time went, once it has finished (see profile.ts). */
  onProfile?: (p: IndexProfile) => void;
  /**
   * The walk the freshness check has just made and the index's files it compared them with
   * (fresh.ts): the run uses them when it can start at once, and reads both again after waiting
   * for another process's run. A file changed since is seen by the next check, as one changed
   * during a walk always was.
   */
  discovered?: DiskAndIndex;
}

export async function indexFromDisk(ctx: IndexContext, onProgress?: (p: IndexProgress) => void): Promise<IndexSummary> {
  const started = performance.now();
  const { store } = ctx.host;
  const notes: string[] = [];
  let waited = false;
  const claim =
    ctx.ifBusy === 'skip'
      ? claimRun(store)
      : await claimRunWhenFree(store, () => ctx.shouldStop?.() ?? false, (holder) => {
          waited = true;
          const m = `waiting for ${describeRun(holder)}, which is indexing this workspace`;
          ctx.log(m);
          notes.push(m);
        });
  if (!claim || !claim.ok) {
    if (claim) notes.push(`${describeRun(claim.holder)} is indexing this workspace: answering from the index as it is`);
    return summarize(store, started, { parsed: 0, unchanged: 0, deleted: 0, skipped: [] }, notes);
  }
  if (claim.interrupted) {
    const m = `the last index run (${describeRun(claim.interrupted)}) did not finish: every reference is resolved again`;
    ctx.log(m);
    notes.push(m);
  }
  // A project file that steers module names reads differently. One that only names modules
  // (a pyproject.toml's source roots): the files under its folder are named anew and resolved
  // again. Any other (a tsconfig's aliases, bound as each file loads): every import target and
  // the model built from them are made again, from the files as they are now.
  const moves = projectMoves(ctx.root, store);
  const renamedDirs = moves.length && moves.every(namesOnly) ? [...new Set(moves.map(folderOf))] : [];
  const moved = moves.length && !renamedDirs.length ? moves[0] : null;
  if (moved) {
    const m = `${moved} changed: every file is indexed and resolved again`;
    ctx.log(m);
    notes.push(m);
    ctx.host.graph.resetProject(projectFiles(ctx.root));
  } else if (renamedDirs.length) {
    const m = `${moves[0]}${moves.length > 1 ? ` and ${moves.length - 1} more` : ''} changed: the modules below ${renamedDirs.length > 1 ? `${renamedDirs.length} folders` : `${renamedDirs[0] || 'the root'}`} are named anew and resolved again`;
    ctx.log(m);
    notes.push(m);
  }
  try {
    const s = await run(ctx, claim.mine, claim.interrupted !== null || moved !== null, moved !== null, waited ? undefined : ctx.discovered, renamedDirs, onProgress);
    if (!ctx.shouldStop?.()) recordProjectReads(ctx.root, store, ctx.host.graph.project, moves.length > 0);
    if (moved) ctx.reextractOpen?.(null);
    releaseRun(store, claim.mine);
    return summarize(store, started, s, notes);
  } catch (e) {
    failRun(store, claim.mine);
    throw e;
  }
}

type RunCounts = Pick<IndexSummary, 'parsed' | 'unchanged' | 'deleted' | 'skipped'>;

function summarize(store: Store, started: number, r: RunCounts, notes: string[]): IndexSummary {
  const counts = store.counts();
  return {
    files: counts.files,
    ...r,
    entities: counts.entities,
    edges: counts.edges,
    seconds: Math.round(performance.now() - started) / 1000,
    ...(notes.length ? { notes } : {}),
  };
}

/** `recover`: every reference is resolved again; `reparse`: every file is parsed again, changed or not. */
/** `renamedDirs`: folders whose files' import names may have moved (a project file there changed). */
async function run(ctx: IndexContext, mine: RunRecord, recover: boolean, reparse: boolean, discovered: DiskAndIndex | undefined, renamedDirs: readonly string[], onProgress?: (p: IndexProgress) => void): Promise<RunCounts> {
  const { store, graph } = ctx.host;
  const found = discovered?.found ?? discover(ctx.root, { extensions: EXTENSIONS, exclude: ctx.exclude, maxFileBytes: ctx.maxFileBytes }, ctx.rules);
  const known = discovered?.known ?? store.fileStamps();
  const cold = known.size === 0;
  const jobs: FileJob[] = [];
  /** Files new to the index: importers whose answer depended on their absence move. */
  const added: string[] = [];
  let unchanged = 0;
  const seen = new Set<string>();
  const skipped = [...found.skipped];
  // Refused for their content before and not changed since: not tried again. The record is
  // rewritten from this run's findings (files gone, changed or now indexed drop out of it).
  const refusals = recover ? new Map() : readContentSkips(store);
  const refusedNow: ContentSkips = new Map();
  const byPath = new Map(found.files.map((f) => [f.path, f]));
  for (const f of found.files) {
    seen.add(f.path);
    if (ctx.openFiles.has(f.path)) continue;
    const k = known.get(f.path);
    const refused = k ? null : stillRefused(refusals, f);
    if (k && k.size === f.size && k.mtimeMs === f.mtimeMs && !reparse) unchanged++;
    else if (refused) {
      skipped.push(refused);
      refusedNow.set(f.path, refusals.get(f.path)!);
    } else {
      jobs.push({ path: f.path, knownHash: reparse ? null : (k?.hash ?? null), size: f.size });
      if (!k) added.push(f.path);
    }
  }
  const deletedPaths = [...known.keys()].filter((p) => !seen.has(p) && !ctx.openFiles.has(p));
  for (const s of skipped) ctx.log(`skipped ${s.file}: ${s.reason}`);
  const clock = new ProfileClock();
  const writer = ctx.host.beginRun(clock, cold);
  if (renamedDirs.length && !cold) writer.renamed(renamedDirs);
  if (deletedPaths.length) writer.write(deletedPaths.map((path) => ({ kind: 'deleted', path })));

  let done = 0;
  let parsed = 0;
  let total = jobs.length;
  // Bytes to read, by file (a job's size; a file that shrank or grew since counts as it was found).
  const jobBytes = new Map(jobs.map((j) => [j.path, j.size ?? 0]));
  let totalBytes = 0;
  for (const b of jobBytes.values()) totalBytes += b;
  let doneBytes = 0;
  const fraction = () => (totalBytes > 0 ? Math.min(1, doneBytes / totalBytes) : total > 0 ? done / total : 1);
  onProgress?.({ phase: 'reading', done, total, fraction: fraction() });
  const bulk = cold && jobs.length >= BULK_MIN_FILES;
  // A large run's batches and resolution chunks leave garbage V8 would let pile up to twice the
  // live heap (and a first index of site-packages holds ~600 MB live).
  const collector = bulk ? new GrowthCollector(GC_GROWTH_BYTES) : null;
  const collect = () => {
    if (!collector) return;
    const t = performance.now();
    const before = collector.collections;
    collector.check();
    if (collector.collections > before) clock.ms.gc += performance.now() - t;
  };
  if (bulk) store.beginBulkLoad();
  // One long transaction, committed every few seconds (commits are expensive: each one writes
  // and checkpoints the WAL). Each batch is a savepoint inside it, written as soon as it
  // arrives so that requests run between batches, and read what is there.
  store.beginLong();
  let lastCommit = performance.now();
  const commit = () => {
    const t = performance.now();
    const lexical = store.commitLong();
    clock.ms.lexical += lexical;
    clock.ms.commit += performance.now() - t - lexical;
  };
  const endBulk = () => {
    const t = performance.now();
    const lexical = store.endBulkLoad();
    clock.ms.lexical += lexical;
    clock.ms.indexes += performance.now() - t - lexical;
  };
  const apply = (batch: FileOutcome[]) => {
    const writes: FileWrite[] = [];
    for (const o of batch) {
      if (o.kind === 'parsed') {
        const lang = languageById(o.language)!;
        writes.push({ kind: 'extracted', lang, meta: { path: o.path, language: o.language, module: o.module, hash: o.hash, size: o.size, mtimeMs: o.mtimeMs }, extraction: o.extraction });
        parsed++;
      } else if (o.kind === 'unchanged') {
        const k = known.get(o.path);
        if (k) writes.push({ kind: 'touched', fid: k.fid, mtimeMs: o.mtimeMs, size: o.size });
        unchanged++;
      } else {
        skipped.push({ file: o.path, reason: o.reason });
        ctx.log(`skipped ${o.path}: ${o.reason}`);
        const f = byPath.get(o.path);
        if (o.byContent && f) refusedNow.set(o.path, { size: f.size, mtimeMs: f.mtimeMs, reason: o.reason });
        if (known.has(o.path)) writes.push({ kind: 'deleted', path: o.path });
      }
    }
    writer.write(writes);
  };
  const parseOpts = { root: ctx.root, maxBytes: ctx.maxFileBytes, workers: ctx.workers, shouldStop: ctx.shouldStop, clock, loadGrammars: ctx.loadGrammars };
  const onBatch = (batch: FileOutcome[]) => {
    apply(batch);
    collect();
    if (performance.now() - lastCommit > COMMIT_MS) {
      beat(store, mine);
      commit();
      store.beginLong();
      lastCommit = performance.now();
    }
    done += batch.length;
    for (const o of batch) doneBytes += jobBytes.get(o.path) ?? 0;
    onProgress?.({ phase: 'reading', done, total, fraction: fraction(), file: batch[batch.length - 1]?.path });
  };
  try {
    try {
      await processAll(jobs, parseOpts, ctx.parsers, onBatch);
      // Importers whose bare imports found a file by whether it exists (a path alias): the
      // files that came or went name other modules for them now. Not on a first index (nothing
      // was asked yet) nor after a reparse of everything.
      if (!cold && !reparse && !ctx.shouldStop?.()) {
        const parsedNow = new Set(jobs.map((j) => j.path));
        const decided = ctx.host.importersDecidedBy([...added, ...deletedPaths]).filter((p) => !parsedNow.has(p) && byPath.has(p));
        const open = decided.filter((p) => ctx.openFiles.has(p));
        const again = decided.filter((p) => !ctx.openFiles.has(p)).map((p) => ({ path: p, knownHash: null, size: byPath.get(p)!.size }));
        if (again.length) {
          total += again.length;
          for (const j of again) {
            // Importers parsed again: the run's work grows by their bytes.
            jobBytes.set(j.path, j.size ?? 0);
            totalBytes += j.size ?? 0;
          }
          unchanged -= again.length;
          await processAll(again, parseOpts, ctx.parsers, onBatch);
        }
        if (open.length) ctx.reextractOpen?.(open);
      }
    } finally {
      commit();
    }
    // Edges go in before the bulk load's indexes are built, unless resolution must look
    // references up by name (edits were resolved during the run), which wants the indexes.
    if (bulk && graph.runInterleaved) endBulk();
    const gcBefore = clock.ms.gc;
    const resolving = (resolved: number, of: number) => {
      collect();
      onProgress?.({ phase: 'resolving', done: resolved, total: of, fraction: of > 0 ? Math.min(1, resolved / of) : 1 });
    };
    if (collector) collector.growthShare = RESOLVE_GC_SHARE;
    await writer.finish(!cold, recover, () => ctx.shouldStop?.() ?? false, resolving);
    clock.ms.resolve -= clock.ms.gc - gcBefore;
    if (!ctx.shouldStop?.()) writeContentSkips(store, refusedNow);
  } finally {
    // What resolution kept (its caches, dropped at its end: ~170 MB on site-packages) goes
    // before the indexes are built and the lexical index filled, not on top of them.
    if (bulk && collector && store.inBulkLoad) {
      const t = performance.now();
      collector.collect();
      clock.ms.gc += performance.now() - t;
    }
    if (bulk) endBulk(); // a no-op when already ended
  }
  ctx.onProfile?.(clock.result());
  return { parsed, unchanged, deleted: deletedPaths.length, skipped };
}

/** Does some language read `rel` only to name modules (`namesOnlyProjectFile`)? */
function namesOnly(rel: string): boolean {
  return LANGUAGES.some((l) => l.namesOnlyProjectFile?.(rel));
}

/** The folder a project file names modules under: its own, or the whole workspace for one above the root. */
function folderOf(rel: string): string {
  return rel.startsWith('../') ? '' : dirOf(rel);
}
