// The held bits of a space saved whole, for the next process's first vector search: reading
// 74K vectors row by row (or as one group_concat) costs a query command 40–250 ms, two blobs
// a few. A snapshot is valid only at the bits version it was taken at (vectors.ts bumps the
// version on every write of bits): any later write makes it stale, and the rows are read again.
import type { Statement } from 'better-sqlite3';
import { BitIndex } from './bits';
import type { Db } from './db';

const DDL = 'CREATE TABLE IF NOT EXISTS vec_bits_snapshot (space TEXT PRIMARY KEY, version INTEGER NOT NULL, width INTEGER NOT NULL, eids BLOB NOT NULL, bits BLOB NOT NULL) WITHOUT ROWID';

export class BitsSnapshots {
  private readonly get: Statement | null = null;
  private readonly saved: Statement | null = null;
  private readonly put: Statement | null = null;

  constructor(db: Db) {
    try {
      db.exec(DDL);
      this.get = db.prepare('SELECT eids, bits FROM vec_bits_snapshot WHERE space = ? AND version = ? AND width = ?');
      this.saved = db.prepare('SELECT 1 FROM vec_bits_snapshot WHERE space = ? AND version = ? AND width = ?');
      this.put = db.prepare('INSERT OR REPLACE INTO vec_bits_snapshot(space, version, width, eids, bits) VALUES (?, ?, ?, ?, ?)');
    } catch {
      // A read-only index made before snapshots: its rows are read, as before.
    }
  }

  /** The space's bits as saved at `version`, or null (none, or stale). */
  read(space: string, version: number, width: number): BitIndex | null {
    const row = this.get?.get(space, version, width) as { eids: Buffer; bits: Buffer } | undefined;
    if (!row || row.eids.byteLength % 8 !== 0) return null;
    // Copied out: the Buffer's offset in its pool need not be 8-byte aligned.
    const eids = new Float64Array(row.eids.byteLength / 8);
    new Uint8Array(eids.buffer).set(row.eids);
    const index = new BitIndex(width);
    index.load(eids, row.bits);
    return index;
  }

  /** Whether a snapshot of `space` at `version` is saved. */
  has(space: string, version: number, width: number): boolean {
    return !!this.saved?.get(space, version, width);
  }

  write(space: string, version: number, index: BitIndex): void {
    if (!this.put) return;
    const { eids, bytes } = index.dump();
    this.put.run(space, version, index.width, Buffer.from(eids.buffer, eids.byteOffset, eids.byteLength), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }
}
