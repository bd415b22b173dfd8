// When V8 optimises our functions. It compiles a function with TurboFan once the function has
// run a set amount of bytecode (the interrupt budget: 66 KB in Node 20). An index starts fresh
// isolates (each worker) whose extractor meets objects of new shapes file after file while the
// run warms up; optimised that early, a large function is deoptimised and compiled again, and
// again, on background threads that take the same two cores the parse needs. In a first index
// of 843 stdlib files, those threads used a third of the process's CPU (7 of 20 s), nearly all
// of it TurboFan (`--no-concurrent-recompilation` moved it onto the JS threads).
//
// Waiting four times longer before optimising (2×, 3×, 4× and 8× tried; 4× is the knee, 8×
// runs too long unoptimised) pays most where a run is short and warm-up is a large part of it.
// First index, same build with and without, runs interleaved, 2 cores:
//   setuptools, 178 files: wall 3.54 → 2.78 s, CPU 6.49 → 4.78 s (3 runs each)
//   pip, 491 files:        wall 5.63 → 4.87 s, CPU 10.46 → 8.84 s (3 runs each)
//   843 stdlib files:      wall 10.9 → 8.4 s, CPU 20.0 → 15.1 s (3 runs each)
//   sympy, 1,532 files: no change (2 runs each)
//   the whole stdlib, 1,787 files: no change (5 runs each)
// A long run amortises its own warm-up, and staying unoptimised longer then costs about what
// the compiles saved. With nothing measured to gain there, above ~1,000 files the budget is
// left as V8 sets it.
//
// How much TurboFan inlines into one function (the cumulative bytecode of its inlinees: 920
// bytes by default) is capped at 300 bytes in every index run. Our hot functions are large
// (`statement`, `expr`, `call`, `finishPending`) and each is compiled several times per isolate
// (three isolates: the main thread and two workers); the more is inlined, the longer each
// compile and the more inlinees whose maps can deoptimise it. Background compile threads used
// ~8 s of a whole-stdlib index's ~31 s of CPU. Runs interleaved with and without, 2 cores:
//   the whole stdlib, 1,787 files: wall 17.6 → 16.3 s, CPU 30.5 → 27.9 s (10 runs each; 9 of
//     10 pairs faster; 150 and 500 bytes tried: no better than 300);
//   pip, 491 files (with the later budget): wall 2.89 → 2.54 s, CPU 5.3 → 4.6 s (4 each).
// `--no-turbo-inlining` cut the compile threads further but the JS threads ran slower.
// The graph is the same, edge for edge: this changes when code is compiled, never what it computes.

// node:v8 is read when first needed: loading it is ~1 ms of every command's start, and only an index run asks.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const v8 = (): typeof import('node:v8') => require('node:v8');

const BUDGET_BYTES = 264 * 1024;
const INLINED_BYTES = 300;

/** Files in a run up to which optimising later pays (see the figures above). */
export const TIER_UP_LATER_MAX_FILES = 1000;

/** What `tierUpLater` looks at: the run's size and the process it runs in. */
export interface TieringContext {
  files: number;
  v8Version: string;
  /** The node options the process was given (`process.execArgv` and `NODE_OPTIONS`). */
  nodeOptions: readonly string[];
}

/**
 * The V8 flags an index run of `files` files sets: a smaller inlining budget, and the later
 * optimisation up to 1,000 files. None on V8 versions they were not measured with (other majors
 * name and weigh their tiers differently), and none the user already set in node options.
 */
export function tieringFlags(c: TieringContext): string[] {
  if (Number(c.v8Version.split('.')[0]) !== 11) return [];
  const userSet = (name: string) => c.nodeOptions.some((a) => a.includes(name));
  const flags: string[] = [];
  if (!userSet('inlin')) flags.push(`--max-inlined-bytecode-size-cumulative=${INLINED_BYTES}`);
  if (c.files <= TIER_UP_LATER_MAX_FILES && !userSet('interrupt-budget')) flags.push(`--interrupt-budget=${BUDGET_BYTES}`);
  return flags;
}

/** Sets those flags for this process and the isolates it starts after (V8 flags are per process). */
export function tierUpLater(files: number): void {
  for (const flag of tieringFlags({ files, v8Version: process.versions.v8, nodeOptions: [...process.execArgv, process.env.NODE_OPTIONS ?? ''] })) v8().setFlagsFromString(flag);
}
