// Index runs across processes. A run writes files in commits every few seconds but resolves
// their references only at its end, so a run that dies (Ctrl-C, kill -9, an editor closing its
// server) leaves files that look up to date and are not resolved. The run therefore records
// itself in the index before its first write and removes the record after its last: a record
// left behind by a dead process means "interrupted", and the next run re-resolves every
// reference. A record whose process is alive means "another process is indexing this root":
// at most one process indexes at a time; the others wait for it or answer from what is there.
import { nodeCrypto } from '../digest';
import * as os from 'node:os';
import type { Store } from '../store/store';

const KEY = 'index_run';
/** A run on another host (a shared folder) counts as dead when it has not written for this long. */
const STALE_MS = 60_000;
const POLL_MS = 200;

export interface RunRecord {
  pid: number;
  host: string;
  token: string;
  started: number;
  /** Last commit of the run (liveness for runs on other hosts). */
  beat: number;
  /** Set when the run failed in a process that lives on: the record then means "interrupted". */
  failed?: boolean;
}

export type Claim = { ok: true; mine: RunRecord; interrupted: RunRecord | null } | { ok: false; holder: RunRecord };

/** The live run of another process, if one is indexing this index now. */
export function activeRun(store: Store): RunRecord | null {
  const r = read(store);
  return r && alive(r) ? r : null;
}

/** Any run record, live or left by a dead run (which wants its references resolved again). */
export function runRecorded(store: Store): boolean {
  return read(store) !== null;
}

/** Records this process's run, unless another live process holds one. */
export function claimRun(store: Store): Claim {
  // Look first without the write lock: a live run holds it most of the time.
  const seen = activeRun(store);
  if (seen) return { ok: false, holder: seen };
  return store.immediate(() => {
    const prev = read(store);
    if (prev && alive(prev)) return { ok: false, holder: prev };
    const now = Date.now();
    const mine: RunRecord = { pid: process.pid, host: os.hostname(), token: nodeCrypto().randomUUID(), started: now, beat: now };
    store.setMeta(KEY, JSON.stringify(mine));
    return { ok: true, mine, interrupted: prev };
  });
}

/** Waits until no other process is indexing, then claims; null when `cancelled` says stop. */
export async function claimRunWhenFree(store: Store, cancelled: () => boolean, onWait: (holder: RunRecord) => void): Promise<Extract<Claim, { ok: true }> | null> {
  let told = false;
  for (;;) {
    const c = claimRun(store);
    if (c.ok) return c;
    if (!told) onWait(c.holder);
    told = true;
    if (cancelled()) return null;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Called inside the run's transaction before each commit. */
export function beat(store: Store, mine: RunRecord): void {
  mine.beat = Date.now();
  store.setMeta(KEY, JSON.stringify(mine));
}

/** The run finished: its record goes (only if it is still ours). */
export function releaseRun(store: Store, mine: RunRecord): void {
  store.transaction(() => {
    if (read(store)?.token === mine.token) store.setMeta(KEY, null);
  });
}

/** The run failed but this process lives on: leave the record, marked so the next run recovers. */
export function failRun(store: Store, mine: RunRecord): void {
  try {
    store.transaction(() => {
      if (read(store)?.token === mine.token) store.setMeta(KEY, JSON.stringify({ ...mine, failed: true }));
    });
  } catch {
    /* the index itself is failing: the record stays as it was, and dies with this process */
  }
}

export function describeRun(r: RunRecord): string {
  const where = r.host === os.hostname() ? `process ${r.pid}` : `process ${r.pid} on ${r.host}`;
  return `${where}, started ${Math.round((Date.now() - r.started) / 1000)} s ago`;
}

function read(store: Store): RunRecord | null {
  const v = store.meta(KEY);
  if (!v) return null;
  try {
    const r = JSON.parse(v) as RunRecord;
    return typeof r.pid === 'number' && typeof r.token === 'string' ? r : null;
  } catch {
    return null;
  }
}

function alive(r: RunRecord): boolean {
  if (r.failed) return false;
  if (r.host !== os.hostname()) return Date.now() - r.beat < STALE_MS;
  // Our own pid: a record left by an earlier process that had it, or by this one before a crash
  // of the run; an engine never claims twice, so it is not a live run.
  if (r.pid === process.pid) return false;
  try {
    process.kill(r.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
