// Where an index run's time went, phase by phase: the split `npm run bench -- index` prints, so
// that a speed change is chosen by measurement. Timers, not a profiler: they cost a
// performance.now() pair per file and per batch, cheap enough to be always on. Timers measure
// wall time, which other loads on the machine stretch; the CPU time of each thread (where the
// system tells it) says how much of that was work.
import * as fs from 'node:fs';

/**
 * Worker phases (read, parse, extract, encode) are summed over the workers; the others are on
 * the writing thread. `lexical` is the FTS fill, `indexes` the secondary indexes and statistics
 * a bulk load builds at its end, `gc` the collections a large run chooses (gc.ts; not counted in
 * the phase they interrupt).
 */
export const INDEX_PHASES = ['read', 'parse', 'extract', 'encode', 'decode', 'write', 'model', 'commit', 'lexical', 'resolve', 'indexes', 'gc'] as const;
export type IndexPhase = (typeof INDEX_PHASES)[number];

export interface IndexProfile {
  /** Milliseconds per phase. */
  ms: Record<IndexPhase, number>;
  /** Wall milliseconds of the whole run. */
  wallMs: number;
  /** Worker threads used (0: everything ran on the calling thread). */
  workers: number;
  /** CPU milliseconds of the workers (summed) and of the writing thread; null where unknown. */
  cpuMs: { workers: number; main: number } | null;
}

/** CPU milliseconds the calling thread has used (Linux /proc), or null. */
export function threadCpuMs(): number | null {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'latin1');
    // Fields after the command name (which may hold spaces, inside parentheses).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // utime + stime, in 100 Hz ticks
  } catch {
    return null;
  }
}

export class ProfileClock {
  readonly ms: Record<IndexPhase, number> = Object.fromEntries(INDEX_PHASES.map((p) => [p, 0])) as Record<IndexPhase, number>;
  private readonly started = performance.now();
  private readonly cpuStart = threadCpuMs();
  workers = 0;
  /** Summed from the workers' batches; null once one could not tell. */
  workerCpuMs: number | null = 0;

  time<T>(phase: IndexPhase, fn: () => T): T {
    const t = performance.now();
    try {
      return fn();
    } finally {
      this.ms[phase] += performance.now() - t;
    }
  }

  async timeAsync<T>(phase: IndexPhase, fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      this.ms[phase] += performance.now() - t;
    }
  }

  add(phases: Partial<Record<IndexPhase, number>>): void {
    for (const p of INDEX_PHASES) this.ms[p] += phases[p] ?? 0;
  }

  result(): IndexProfile {
    const ms = Object.fromEntries(INDEX_PHASES.map((p) => [p, Math.round(this.ms[p])])) as Record<IndexPhase, number>;
    const cpuEnd = threadCpuMs();
    const main = this.cpuStart === null || cpuEnd === null ? null : cpuEnd - this.cpuStart;
    const cpuMs = main === null || this.workerCpuMs === null ? null : { workers: this.workerCpuMs, main };
    return { ms, wallMs: Math.round(performance.now() - this.started), workers: this.workers, cpuMs };
  }
}
