// Opening the index database: where it may live, whose file it is, pragmas, sqlite-vec, schema
// version checks, and recovery.
//
// The index is derived data (DESIGN invariant 6), so an index we cannot trust — corrupt, a
// schema from another NSCCN — is rebuilt from source, and the user is told. But NSCCN never
// deletes or rewrites a file it did not create: a file at `dbPath` is replaced only when it is
// an NSCCN index (its `meta` table says so) or lives in a directory NSCCN made (it holds
// OWNER_MARKER). Anything else, and every symlink on the way, is refused with a clear error.
import * as fs from 'node:fs';
import * as path from 'node:path';
// Worker threads are required where one starts: the module costs ~3.5 ms, and a query starts none.
import type { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { ErrorCodes } from '../../../../protocol';
import { EngineError } from '../errors';
import { ANALYSIS_VERSION, DDL, SCHEMA_VERSION } from './schema';

export type Db = Database.Database;

/** Written into a directory NSCCN created for an index: its index files are NSCCN's to replace. */
export const OWNER_MARKER = '.nsccn-owned';
const MARKER_TEXT = 'This directory was made by NSCCN for its index: derived data, safe to delete.\n';
const SIDE_FILES = ['', '-wal', '-shm', '-journal'];

export interface OpenResult {
  db: Db;
  /** Set when the existing index could not be used and was replaced by an empty one. */
  rebuiltBecause: string | null;
  /** Set when the index can be read but not written (read-only file system or file). */
  readOnlyBecause: string | null;
}

/** What is at the index path before we touch it. */
type Found =
  | { state: 'absent' }
  | { state: 'ours'; rebuild: string | null }
  | { state: 'unreadable'; reason: string }
  | { state: 'readonly'; reason: string }
  | { state: 'foreign'; reason: string };

/** Written beside an index found damaged while in use: its next opening checks it, and rebuilds it. */
const DAMAGED_SUFFIX = '-damaged';

export interface OpenOptions {
  /**
   * `open` (default): SQLite's integrity check (quick_check) before the index is used — it reads
   * the whole file (about 0.6 s of CPU for the stdlib's 170 MB). `later`: not now, unless the
   * index was marked damaged; the caller runs `checkIntegrity` off its critical path, and a
   * damaged page met meanwhile is SQLite's clear error (see `markDamaged`).
   */
  integrity?: 'open' | 'later';
}

export function openDatabase(dbPath: string, log: (m: string) => void, opts: OpenOptions = {}): OpenResult {
  if (dbPath === ':memory:') {
    const db = connect(dbPath);
    db.exec(DDL);
    writeVersions(db);
    return { db, rebuiltBecause: null, readOnlyBecause: null };
  }
  const dir = path.dirname(dbPath);
  ensureIndexDir(dir);
  refuseLinks(dbPath);
  const damaged = isMarkedDamaged(dbPath);
  let found = inspect(dbPath, opts.integrity !== 'later' || damaged);
  let rebuiltBecause: string | null = null;
  if (found.state === 'readonly') return openReadOnly(dbPath, found.reason);
  // In a directory NSCCN made, whatever sits at the index path is a broken index of its own.
  if (found.state === 'foreign' && ownsDir(dir)) found = { state: 'unreadable', reason: found.reason };
  if (found.state === 'foreign') {
    throw new EngineError(ErrorCodes.IndexUnavailable, `${dbPath} is not an NSCCN index (${found.reason}); NSCCN will not touch it: choose another index path or move that file`);
  }
  if (found.state === 'unreadable' || (found.state === 'ours' && found.rebuild)) {
    rebuiltBecause = found.state === 'unreadable' ? `the index was unreadable (${found.reason})` : found.rebuild;
    if (found.state === 'unreadable' && !ownsDir(dir)) {
      throw new EngineError(ErrorCodes.IndexUnavailable, `${dbPath} is unreadable as an index (${found.reason}) and NSCCN did not create it, so it will not delete it: remove it yourself or choose another index path`);
    }
    log(`${rebuiltBecause}; rebuilding ${dbPath}`);
    for (const s of SIDE_FILES) fs.rmSync(dbPath + s, { force: true });
  }
  // Checked now (and rebuilt if it had to be): the mark has done its work.
  if (damaged) fs.rmSync(dbPath + DAMAGED_SUFFIX, { force: true });
  let db: Db;
  try {
    db = connect(dbPath);
  } catch (e) {
    if (isLocked(e)) throw locked(dbPath);
    if (!isReadOnly(e)) throw e;
    if (found.state !== 'ours') throw new EngineError(ErrorCodes.IndexUnavailable, `cannot create the index ${dbPath}: the file system is read-only`);
    return openReadOnly(dbPath, (e as { code?: string }).code ?? 'read-only');
  }
  try {
    // Only when something is missing: a write here would wait for another process's index run.
    if (found.state !== 'ours' || rebuiltBecause || !hasSchema(db)) {
      // All or nothing: a schema half written (a full disk) would not be recognisable as ours.
      db.transaction(() => {
        db.exec(DDL);
        writeVersions(db);
      })();
    }
  } catch (e) {
    db.close();
    if (isLocked(e)) throw locked(dbPath);
    if (isFull(e)) throw new EngineError(ErrorCodes.IndexUnavailable, `the disk holding the index ${dbPath} is full: free some space and run again (nothing was lost; the index is rebuilt from source)`);
    throw e;
  }
  return { db, rebuiltBecause, readOnlyBecause: null };
}

/** Creates the index directory (and marks it ours), or checks the one that is there. */
function ensureIndexDir(dir: string): void {
  let st: fs.Stats | null = null;
  try {
    st = fs.lstatSync(dir);
  } catch {
    /* absent */
  }
  if (st?.isSymbolicLink()) throw new EngineError(ErrorCodes.IndexUnavailable, `the index directory ${dir} is a symbolic link; NSCCN writes its index only into a real directory`);
  if (st && !st.isDirectory()) throw new EngineError(ErrorCodes.IndexUnavailable, `${dir} is not a directory; NSCCN cannot put its index there`);
  if (st) return;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, OWNER_MARKER), MARKER_TEXT, { flag: 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return; // another process made it first
    throw new EngineError(ErrorCodes.IndexUnavailable, `cannot create the index directory ${dir} (${code ?? (e as Error).message})`);
  }
}

function refuseLinks(dbPath: string): void {
  for (const s of SIDE_FILES) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(dbPath + s);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) throw new EngineError(ErrorCodes.IndexUnavailable, `${dbPath + s} is a symbolic link; NSCCN refuses to follow it (a repository could point it anywhere)`);
    if (!st.isFile()) throw new EngineError(ErrorCodes.IndexUnavailable, `${dbPath + s} is not a regular file; NSCCN will not touch it`);
  }
}

function ownsDir(dir: string): boolean {
  try {
    return fs.lstatSync(path.join(dir, OWNER_MARKER)).isFile();
  } catch {
    return false;
  }
}

/** An index NSCCN may not write: served as it is when SQLite can read it, never replaced. */
function openReadOnly(dbPath: string, reason: string): OpenResult {
  let db: Db;
  try {
    db = connectReadOnly(dbPath);
    db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get();
  } catch (e) {
    throw new EngineError(ErrorCodes.IndexUnavailable, `the index ${dbPath} is read-only (${reason}) and SQLite cannot read it so (${(e as Error).message}); nothing was changed: make its directory writable or choose another index path`);
  }
  return { db, rebuiltBecause: null, readOnlyBecause: `the index ${dbPath} is read-only (${reason}): answering from what it holds; it is not updated` };
}

function writable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Looks at the file without changing what it holds: a read-only connection, or a plain one
 * when a read-only connection cannot open it (a crashed writer's journal wants rolling back,
 * which every SQLite client does on open).
 */
function inspect(dbPath: string, check: boolean): Found {
  let size: number;
  try {
    size = fs.statSync(dbPath).size;
  } catch {
    return { state: 'absent' };
  }
  if (size === 0) return ownsDir(path.dirname(dbPath)) ? { state: 'absent' } : { state: 'foreign', reason: 'an empty file NSCCN did not create' };
  try {
    return inspectWith(dbPath, true, check);
  } catch (e) {
    if (!isReadOnly(e)) throw e;
    if (!writable(path.dirname(dbPath)) || !writable(dbPath)) return { state: 'readonly', reason: (e as { code?: string }).code ?? 'read-only' };
    try {
      return inspectWith(dbPath, false, check);
    } catch (again) {
      if (isReadOnly(again)) return { state: 'readonly', reason: (again as { code?: string }).code ?? 'read-only' };
      throw again;
    }
  }
}

function writeVersions(db: Db): void {
  const put = db.prepare('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)');
  put.run('schema_version', String(SCHEMA_VERSION));
  put.run('analysis_version', String(ANALYSIS_VERSION));
}

let addonPath: string | undefined | null = null;

/**
 * better-sqlite3's native addon, by path. The CLI's and the server's bundles carry the package's
 * JavaScript (its dozen modules were ~5 ms of every command's start, resolved and compiled one
 * by one); its own lookup of the addon (the `bindings` package) starts from the calling file,
 * which is then the bundle, and probes a dozen paths. Undefined where no addon is at its usual
 * place: the package then looks for it itself (from a bundle it may not find it, and its error
 * lists where it looked).
 */
/** better-sqlite3's entry module, for another thread to open the index with (undefined when not resolvable from here). */
export function sqliteModulePath(): string | undefined {
  try {
    return require.resolve('better-sqlite3');
  } catch {
    return undefined;
  }
}

export function nativeBinding(): string | undefined {
  if (addonPath === null) {
    addonPath = undefined;
    try {
      const dir = path.dirname(require.resolve('better-sqlite3/package.json'));
      addonPath = ['Release', 'Debug'].map((b) => path.join(dir, 'build', b, 'better_sqlite3.node')).find((f) => fs.existsSync(f));
    } catch {
      /* not resolvable from here: the package finds its addon */
    }
  }
  return addonPath;
}

/** Throws only errors of opening read-only (for `inspect` to retry); the rest are verdicts. */
function inspectWith(dbPath: string, readonly: boolean, check: boolean): Found {
  let db: Db | null = null;
  try {
    db = new Database(dbPath, { readonly, fileMustExist: true, timeout: 5000, nativeBinding: nativeBinding() });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
    const names = new Set(tables.map((t) => t.name));
    if (!names.has('meta')) return names.size ? { state: 'foreign', reason: `a database with tables ${[...names].slice(0, 3).join(', ')}` } : { state: 'ours', rebuild: null };
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    const version = row ? Number(row.value) : NaN;
    if (!Number.isInteger(version) || !names.has('files') || !names.has('entities')) return { state: 'foreign', reason: 'a database with a meta table that is not NSCCN’s' };
    if (version > SCHEMA_VERSION) return { state: 'ours', rebuild: `the index was written by a newer NSCCN (schema ${version}, this one reads ${SCHEMA_VERSION})` };
    if (version < SCHEMA_VERSION) return { state: 'ours', rebuild: `the index has an older schema (${version} → ${SCHEMA_VERSION})` };
    const analysis = (db.prepare("SELECT value FROM meta WHERE key = 'analysis_version'").get() as { value: string } | undefined)?.value ?? 'none';
    if (analysis !== String(ANALYSIS_VERSION)) return { state: 'ours', rebuild: `the index was made by an NSCCN with another analysis of the code (${analysis} → ${ANALYSIS_VERSION})` };
    const verdict = check ? db.pragma('quick_check(1)', { simple: true }) : 'ok';
    if (verdict !== 'ok') return { state: 'ours', rebuild: `the index failed its integrity check (${String(verdict)})` };
    return { state: 'ours', rebuild: null };
  } catch (e) {
    if (isLocked(e)) throw locked(dbPath);
    if (isReadOnly(e)) throw e;
    return { state: 'unreadable', reason: (e as Error).message };
  } finally {
    db?.close();
  }
}

const SCHEMA_NAMES = [...DDL.matchAll(/CREATE (?:VIRTUAL )?(?:TABLE|INDEX) IF NOT EXISTS (\w+)/g)].map((m) => m[1]);

/** Every table and index of the schema is there (an interrupted bulk load leaves some indexes out). */
function hasSchema(db: Db): boolean {
  const have = new Set((db.prepare('SELECT name FROM sqlite_master').all() as Array<{ name: string }>).map((r) => r.name));
  return SCHEMA_NAMES.every((n) => have.has(n));
}

/** 16 MB: a bigger cache is RSS a server keeps; the OS file cache serves the rest about as fast. */
export const CACHE_KIB = 16 * 1024;

/**
 * A key that moves with every write to the index, `data_version:total_changes`: another
 * connection's commit moves the first, a row this connection inserts, updates or deletes
 * (rolled back or not) the second. What is read from the index can be kept while it stays.
 */
export const CHANGE_KEY_SQL = "SELECT (SELECT data_version FROM pragma_data_version) || ':' || total_changes()";

function connect(dbPath: string): Db {
  const db = new Database(dbPath, { timeout: 5000, nativeBinding: nativeBinding() });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('temp_store = MEMORY');
    db.pragma(`cache_size = -${CACHE_KIB}`);
    // No memory map: mapped pages of a 200 MB index count in the server's RSS as they are read
    // (a first write reads most of it); the page cache above is bounded, the OS file cache is not RSS.
    db.pragma('mmap_size = 0');
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

function connectReadOnly(dbPath: string): Db {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 5000, nativeBinding: nativeBinding() });
  db.pragma('temp_store = MEMORY');
  return db;
}

const withVec = new WeakSet<Db>();

/**
 * Loads sqlite-vec into `db` once: what the vector tables (`vec0`) and their functions need.
 * Only the vector store touches them (a schema holding a `vec0` table opens and is read without
 * the module), so a query that never searches never loads it: ~3 ms of every CLI command.
 */
export function loadVectorExtension(db: Db): void {
  if (withVec.has(db)) return;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('sqlite-vec') as typeof import('sqlite-vec')).load(db);
  } catch (e) {
    // Everything else still answers (trace, window, skeleton); a search by meaning cannot.
    throw new EngineError(ErrorCodes.IndexUnavailable, `the vector extension (sqlite-vec) could not be loaded (reinstall the package: npm ci): ${String((e as Error).message).split('\n')[0]}`);
  }
  withVec.add(db);
}

function isMarkedDamaged(dbPath: string): boolean {
  try {
    return fs.lstatSync(dbPath + DAMAGED_SUFFIX).isFile();
  } catch {
    return false;
  }
}

/**
 * Marks an index found damaged while in use, so that its next opening checks it (and rebuilds
 * it): what `fromStoreError` promises the user. Never through a link; a failure is harmless.
 */
export function markDamaged(dbPath: string): void {
  if (dbPath === ':memory:') return;
  try {
    fs.writeFileSync(dbPath + DAMAGED_SUFFIX, 'SQLite reported this index damaged; NSCCN checks and rebuilds it when it next opens it.\n', { flag: 'wx' });
  } catch {
    /* already marked, or the folder is read-only: the error itself was reported */
  }
}

/**
 * SQLite's integrity check of an index file, in a worker thread with its own read-only
 * connection: the engine's thread keeps answering meanwhile. Resolves to null when the file is
 * sound, else to why not; a check that cannot run resolves to null (it proves nothing either way).
 */
export function checkIntegrity(dbPath: string): Promise<string | null> {
  if (dbPath === ':memory:') return Promise.resolve(null);
  return new Promise((resolve) => {
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const Database = require(workerData.sqlite);
      let verdict = null;
      try {
        const db = new Database(workerData.dbPath, { readonly: true, fileMustExist: true, timeout: 5000 });
        try { verdict = String(db.pragma('quick_check(1)', { simple: true })); } finally { db.close(); }
      } catch (e) {
        const c = String((e && e.code) || '');
        verdict = c.startsWith('SQLITE_CORRUPT') || c === 'SQLITE_NOTADB' ? String(e.message) : 'ok';
      }
      parentPort.postMessage(verdict);`;
    let worker: Worker;
    try {
      const sqlite = sqliteModulePath();
      if (!sqlite) throw new Error('better-sqlite3 is not resolvable from here');
      worker = new (require('node:worker_threads') as typeof import('node:worker_threads')).Worker(code, { eval: true, workerData: { dbPath, sqlite } });
    } catch {
      resolve(null);
      return;
    }
    worker.unref(); // a process that is done does not wait for the check
    worker.once('message', (verdict: string) => {
      resolve(verdict === 'ok' ? null : verdict);
      void worker.terminate();
    });
    worker.once('error', () => resolve(null));
    worker.once('exit', () => resolve(null));
  });
}

function locked(dbPath: string): EngineError {
  return new EngineError(ErrorCodes.IndexUnavailable, `the index ${dbPath} is locked by another process; try again when it is done`);
}

function isLocked(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

function isFull(e: unknown): boolean {
  return ((e as { code?: string }).code ?? '').startsWith('SQLITE_FULL');
}

function isReadOnly(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN');
}

export function isCorruption(e: unknown): boolean {
  const code = e instanceof Error ? String((e as { code?: unknown }).code ?? '') : ''; // an EngineError's code is a number
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}
