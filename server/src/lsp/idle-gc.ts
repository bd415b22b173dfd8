// Full garbage collections at moments the server chooses. V8 lets the old generation grow to
// about twice what is live before it collects: a server edited for minutes holds that slack in
// its RSS (sharing soak: 460 -> 770 MB while ~150 MB was live). A collection when the client has
// been quiet for a moment, or when the heap has grown far past what the last one left, keeps the
// RSS near what the server holds. A full collection of ~150 MB takes about 100 ms: never more
// often than MIN_GAP_MS.
import { exposedGc, GrowthCollector } from '../engine';

const QUIET_MS = 2000;
const CHECK_MS = 5000;
const MIN_GAP_MS = 20_000;
/** Growth of the heap past what the last collection left that warrants one during activity. */
const GROWTH_BYTES = 64 * 1024 * 1024;

export class IdleCollector {
  private lastGc = Date.now();
  private lastActivity = 0;
  private busySinceGc = false;
  private readonly timer: NodeJS.Timeout | null;
  private readonly growth: GrowthCollector;

  constructor(gc: (() => void) | null = exposedGc()) {
    this.growth = new GrowthCollector(GROWTH_BYTES, gc, 0);
    this.timer = gc ? setInterval(() => this.check(), CHECK_MS) : null;
    this.timer?.unref();
  }

  /** Collections run so far (tests). */
  get collections(): number {
    return this.growth.collections;
  }

  /** A message from the client arrived. */
  activity(now = Date.now()): void {
    this.lastActivity = now;
    this.busySinceGc = true;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** @internal (tests): the periodic decision. */
  check(now = Date.now()): void {
    if (!this.growth.gc || now - this.lastGc < MIN_GAP_MS) return;
    const quiet = this.busySinceGc && now - this.lastActivity >= QUIET_MS;
    if (!quiet && !this.growth.grown()) return;
    this.growth.collect();
    this.lastGc = Date.now();
    this.busySinceGc = false;
  }
}
