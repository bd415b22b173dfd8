// Turning one file into an extraction. Runs in worker threads during indexing and on the main
// thread for single files, so it depends only on the file system and the parsers.
import * as fs from 'node:fs';
import type { FileExtraction, LanguageSupport } from '../languages/types';
import { languageForPath } from '../languages/registry';
import type { Parsers } from '../parse/parsers';
import { readSource, type ReadResult } from './read';
import { entityHash } from '../store/write-rows';
import type { ProfileClock } from './profile';

export interface FileJob {
  path: string;
  /** Hash stored in the index, to skip parsing when only the mtime moved. */
  knownHash: string | null;
  /** Size from discovery: big files are scheduled first. */
  size?: number;
}

export type FileOutcome =
  | { kind: 'parsed'; path: string; hash: string; size: number; mtimeMs: number; language: string; module: string | null; extraction: FileExtraction }
  | { kind: 'unchanged'; path: string; size: number; mtimeMs: number }
  /**
   * `gone`: deleted, or now a link out of the workspace (the index forgets it). `byContent`: the
   * bytes themselves were refused (binary, not decodable, extraction failed), so until the file
   * changes it is not tried again (store.contentSkips).
   */
  | { kind: 'skipped'; path: string; reason: string; gone?: boolean; byContent?: boolean };

/** A file read whose content is new to the index: it wants parsing (`parseRead`). */
export interface FileRead {
  kind: 'read';
  job: FileJob;
  lang: LanguageSupport;
  read: Extract<ReadResult, { ok: true }>;
}

/** `clock`: an index run's profile, told the read, parse and extract times. */
/** `realRoot`: the root's real path, when the caller took it for a batch of files (`readFile`). */
export function processFile(root: string, job: FileJob, parsers: Parsers, maxBytes: number, clock?: ProfileClock, realRoot = fs.realpathSync(root)): FileOutcome {
  const r = readFile(root, realRoot, job, maxBytes, clock);
  return r.kind === 'read' ? parseRead(r, parsers, clock) : r;
}

/**
 * The first half of `processFile`: what needs no parser (a file skipped, or unchanged by content).
 * `realRoot`: the root's real path, taken once per batch (per file it was ~40 µs of a deep
 * tree's read: site-packages, 0.4 s of CPU).
 */
export function readFile(root: string, realRoot: string, job: FileJob, maxBytes: number, clock?: ProfileClock): FileOutcome | FileRead {
  const lang = languageForPath(job.path);
  if (!lang) return { kind: 'skipped', path: job.path, reason: 'no language for this extension' };
  const t0 = performance.now();
  const read = readSource(root, realRoot, job.path, maxBytes, lang.encodingCookie);
  if (clock) clock.ms.read += performance.now() - t0;
  if (!read.ok) return { kind: 'skipped', path: job.path, reason: read.reason, gone: read.deleted, byContent: read.byContent };
  if (read.hash === job.knownHash) return { kind: 'unchanged', path: job.path, size: read.size, mtimeMs: read.mtimeMs };
  return { kind: 'read', job, lang, read };
}

/** The second half: parse and extract (the grammars loaded). */
export function parseRead({ job, lang, read }: FileRead, parsers: Parsers, clock?: ProfileClock): FileOutcome {
  try {
    const extraction = extractText(lang, parsers, read.text, job.path, clock);
    for (const e of extraction.entities) e.contentHash = entityHash(e);
    return { kind: 'parsed', path: job.path, hash: read.hash, size: read.size, mtimeMs: read.mtimeMs, language: lang.id, module: lang.moduleName(job.path), extraction };
  } catch (e) {
    return { kind: 'skipped', path: job.path, reason: `extraction failed: ${(e as Error).message}`, byContent: true };
  }
}

export function extractText(lang: LanguageSupport, parsers: Parsers, text: string, file: string, clock?: ProfileClock): FileExtraction {
  const t0 = performance.now();
  const tree = parsers.parse(lang, text);
  const t1 = performance.now();
  try {
    return parsers.guard(() => lang.extract(tree, text, file, parsers.get(lang).grammar));
  } finally {
    tree.delete();
    if (clock) {
      clock.ms.parse += t1 - t0;
      clock.ms.extract += performance.now() - t1;
    }
  }
}
