// Is the index current with the disk? Answered by stat alone — the same walk and the same
// comparison an index run starts with (indexer.ts), but nothing parsed, loaded or written. An
// up-to-date index is the common case of every query, and a run that finds nothing to do still
// costs grammars, a run record and two write transactions.
import { EXTENSIONS } from '../languages/registry';
import type { FileStamp } from '../store/read-rows';
import type { Store } from '../store/store';
import { discover, type Discovery, type IgnoreRules, type SkippedFile } from './discover';
import { projectMoved } from './project';
import { runRecorded } from './runs';
import { readContentSkips, stillRefused } from './skips';

export interface FreshnessContext {
  root: string;
  rules: IgnoreRules;
  exclude: string[];
  maxFileBytes: number;
  /** Files open in an editor: their buffer, not the disk, is the truth (an index run skips them too). */
  openFiles: ReadonlySet<string>;
}

export type Freshness =
  /** Every indexable file is in the index with the size and mtime it had when indexed, and no other file is. */
  | { current: true; unchanged: number; skipped: SkippedFile[] }
  /**
   * Something differs (`why` says what first), or a run record asks for a real run. `parse`: the
   * new and changed files, which the run will parse (null after a run record: any file may be).
   * `seen`: the walk and the index's files it was compared with, which a run that starts at once
   * need not read again.
   */
  | { current: false; why: string; parse: string[] | null; seen?: DiskAndIndex };

/** A walk of the disk, and the files the index held when it was compared with them. */
export interface DiskAndIndex {
  found: Discovery;
  known: ReadonlyMap<string, FileStamp>;
}

export function freshness(ctx: FreshnessContext, store: Store): Freshness {
  // A run in progress, or one that died (its references want resolving again): a real run decides.
  if (runRecorded(store)) return { current: false, why: 'an index run is recorded', parse: null };
  const found = discover(ctx.root, { extensions: EXTENSIONS, exclude: ctx.exclude, maxFileBytes: ctx.maxFileBytes }, ctx.rules);
  const known = store.fileStamps();
  const refusals = readContentSkips(store);
  const skipped = [...found.skipped];
  let unchanged = 0;
  let seen = 0;
  const parse: string[] = [];
  let why = '';
  for (const f of found.files) {
    if (ctx.openFiles.has(f.path)) continue;
    const k = known.get(f.path);
    const refused = k ? null : stillRefused(refusals, f);
    if (k) seen++;
    if (k && k.size === f.size && k.mtimeMs === f.mtimeMs) unchanged++;
    else if (refused) skipped.push(refused);
    else {
      why ||= `${f.path} ${k ? 'changed' : 'is new'}`;
      parse.push(f.path);
    }
  }
  // Every known file not open must have been seen: the rest were deleted or are now ignored.
  let knownClosed = 0;
  for (const p of known.keys()) if (!ctx.openFiles.has(p)) knownClosed++;
  if (knownClosed !== seen) why ||= 'files were deleted or are now ignored';
  // A project file the module names came from reads differently: the run parses everything.
  const moved = why ? null : projectMoved(ctx.root, store);
  if (moved) return { current: false, why: `${moved} changed`, parse: null, seen: { found, known } };
  return why ? { current: false, why, parse, seen: { found, known } } : { current: true, unchanged, skipped };
}
