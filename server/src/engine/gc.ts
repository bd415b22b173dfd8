// Full garbage collections at moments NSCCN chooses. V8 lets the old generation grow to about
// twice what is live before it collects; in a long-running server (lsp/idle-gc.ts) or a first
// index of a large tree, that slack is RSS the user sees (site-packages: a heap of ~1.1 GB at the
// end of resolution while ~570 MB was live).
import * as vm from 'node:vm';

// node:v8 is read when first needed: loading it is ~1 ms of every command's start, and only an index run asks.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const v8 = (): typeof import('node:v8') => require('node:v8');

/**
 * `gc()` without starting node with --expose-gc; null where V8 refuses. The flag is set only
 * while a new context picks the function up: V8 keeps a hash of its flags in every code cache it
 * makes, and the CLI's (scripts/bundle-cli.js, made by running `nsccn index`) was rejected by
 * every command once `nsccn index` collected (~15 ms more to load the program).
 */
export function exposedGc(): (() => void) | null {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    v8().setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    return null;
  } finally {
    v8().setFlagsFromString('--no-expose-gc');
  }
}

/**
 * Collects when the heap has grown far past what the last collection left: by `minGrowthBytes`
 * and by `growthShare` of what was live (a full collection of a few hundred MB takes a few
 * hundred ms, so it must not come often). `check` is cheap: call it between units of work.
 */
export class GrowthCollector {
  private liveAfterGc = v8().getHeapStatistics().used_heap_size;
  /** Collections run so far (tests, profiles). */
  collections = 0;

  constructor(
    private readonly minGrowthBytes: number,
    readonly gc: (() => void) | null = exposedGc(),
    /** Of what was live, how much growth warrants a collection (a phase may ask for less). */
    public growthShare = 0.25,
  ) {}

  /** True when the heap has grown enough since the last collection to warrant one. */
  grown(): boolean {
    const growth = v8().getHeapStatistics().used_heap_size - this.liveAfterGc;
    return growth >= Math.max(this.minGrowthBytes, this.liveAfterGc * this.growthShare);
  }

  /** Collects now (when V8 lets us) and measures from what is left. */
  collect(): void {
    if (!this.gc) return;
    this.gc();
    this.collections++;
    this.liveAfterGc = v8().getHeapStatistics().used_heap_size;
  }

  check(): void {
    if (this.gc && this.grown()) this.collect();
  }
}
