// Opening the index database: pragmas, sqlite-vec, schema version checks, and recovery.
// The index is derived data (DESIGN invariant 6), so anything we cannot trust — a corrupt file,
// a schema from a newer NSCCN, an old schema — is rebuilt from source, and the user is told.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { ErrorCodes } from '../../../../protocol';
import { EngineError } from '../errors';
import { DDL, SCHEMA_VERSION } from './schema';

export type Db = Database.Database;

export interface OpenResult {
  db: Db;
  /** Set when the existing index could not be used and was replaced by an empty one. */
  rebuiltBecause: string | null;
}

export function openDatabase(dbPath: string, log: (m: string) => void): OpenResult {
  if (dbPath !== ':memory:') fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  let rebuiltBecause: string | null = null;
  let db: Db;
  try {
    db = connect(dbPath);
    rebuiltBecause = checkVersion(db);
  } catch (e) {
    if (isLocked(e)) {
      throw new EngineError(ErrorCodes.IndexUnavailable, `the index ${dbPath} is locked by another process; try again when it is done`);
    }
    rebuiltBecause = `the index was unreadable (${(e as Error).message})`;
    db = undefined as unknown as Db;
  }
  if (rebuiltBecause) {
    try {
      db?.close();
    } catch {
      /* already broken */
    }
    log(`nsccn: ${rebuiltBecause}; rebuilding ${dbPath}`);
    removeDatabaseFiles(dbPath);
    db = connect(dbPath);
  }
  db.exec(DDL);
  db.prepare('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)').run('schema_version', String(SCHEMA_VERSION));
  return { db, rebuiltBecause };
}

function connect(dbPath: string): Db {
  const db = new Database(dbPath, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('temp_store = MEMORY');
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  sqliteVec.load(db);
  return db;
}

/** Returns why the index must be rebuilt, or null when it is usable as it is. */
function checkVersion(db: Db): string | null {
  // Touches the file header: a non-database file fails here.
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!hasMeta) {
    const anyTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' LIMIT 1").get();
    return anyTable ? 'the index has no schema version' : null;
  }
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  const version = row ? Number(row.value) : NaN;
  if (!Number.isInteger(version)) return 'the index has no schema version';
  if (version > SCHEMA_VERSION) return `the index was written by a newer NSCCN (schema ${version}, this one reads ${SCHEMA_VERSION})`;
  if (version < SCHEMA_VERSION) return `the index has an older schema (${version} → ${SCHEMA_VERSION})`;
  const check = db.pragma('quick_check(1)', { simple: true });
  if (check !== 'ok') return `the index failed its integrity check (${String(check)})`;
  return null;
}

function isLocked(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

export function isCorruption(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? '';
  return code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB';
}

function removeDatabaseFiles(dbPath: string): void {
  if (dbPath === ':memory:') return;
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbPath + suffix, { force: true });
}
