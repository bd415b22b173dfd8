// Where a command's time goes. With NSCCN_TIMING=1 the command prints one JSON line on stderr:
// milliseconds from the process's start to our first line (`node`), loading our modules, and
// each step after, plus the engine's own start-up steps. `npm run bench -- cli` reads it.
// main.ts reads the clock on its first line, before the program's modules load, and passes it in.

import { writeWhole } from './write';

export const TIMING_ENV = 'NSCCN_TIMING';

export interface TimingReport {
  command: string;
  /** Milliseconds per step, in order; `node` is the runtime's own start-up. */
  steps: Record<string, number>;
  /** The engine's start-up steps (database, engine, freshness, grammars), inside `open` and `fresh`. */
  engine: Record<string, number>;
  totalMs: number;
  /** Whether the program bundle was loaded with the build's V8 code cache (`used`), or compiled. */
  codeCache: string;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export class Timing {
  private last: number;
  private readonly steps: Record<string, number>;
  engine: Record<string, number> = {};
  command = '';

  /** `bootedMs`: milliseconds from the process's start (performance's time origin) to main.ts. */
  constructor(
    bootedMs = performance.now(),
    private readonly codeCache = 'none',
  ) {
    this.last = bootedMs;
    this.steps = { node: round(bootedMs) };
  }

  /** Ends a step: the time since the previous mark is added to `step`. */
  mark(step: string): void {
    const now = performance.now();
    this.steps[step] = round((this.steps[step] ?? 0) + now - this.last);
    this.last = now;
  }

  report(): TimingReport {
    return { command: this.command, steps: { ...this.steps }, engine: { ...this.engine }, totalMs: round(performance.now()), codeCache: this.codeCache };
  }

  /** Prints the report on stderr when NSCCN_TIMING asks for it (write.ts: as the answer is written). */
  printIfAsked(env: NodeJS.ProcessEnv = process.env): void {
    if (env[TIMING_ENV] && env[TIMING_ENV] !== '0') writeWhole(2, `nsccn-timing: ${JSON.stringify(this.report())}\n`);
  }
}
