// Long traversals as generators: a traversal yields once per node it expands, and its caller
// chooses how to drain it — all at once (the CLI, tests), or cooperatively (the language
// server), giving the event loop a turn every few milliseconds so a `$/cancelRequest` that
// arrives meanwhile is seen and the traversal stops there.
import { ErrorCodes } from '../../../../protocol';
import { EngineError } from '../errors';

/** What a caller that may give up passes in (structurally an LSP CancellationToken). */
export interface Cancellation {
  readonly isCancellationRequested: boolean;
}

/** Work done between two looks at the event loop (and at the cancellation). */
const SLICE_MS = 10;

export type Traversal<T> = Generator<void, T, void>;

/** Throws RequestCancelled once `cancel` is set: for work done in stages rather than as a traversal. */
export function stopIfCancelled(cancel: Cancellation | undefined, what: string): void {
  if (cancel?.isCancellationRequested) throw new EngineError(ErrorCodes.RequestCancelled, `${what} cancelled`);
}

/**
 * Gives the event loop one full turn when a caller may cancel, then stops if it did. A turn is
 * what lets a `$/cancelRequest` that arrived meanwhile be read: awaiting work that completes
 * synchronously only runs microtasks, and an immediate queued now runs before the next poll.
 */
export async function pauseForCancel(cancel: Cancellation | undefined, what: string): Promise<void> {
  if (!cancel) return;
  await new Promise<void>((resolve) => setTimeout(resolve, 0));
  stopIfCancelled(cancel, what);
}

/** Runs a traversal to its end without pausing. */
export function runNow<T>(t: Traversal<T>): T {
  for (;;) {
    const r = t.next();
    if (r.done) return r.value;
  }
}

/** Runs a traversal in slices of ~10 ms; throws RequestCancelled once `cancel` is set. */
export async function runCooperatively<T>(t: Traversal<T>, cancel: Cancellation | undefined, what: string): Promise<T> {
  let sliceStart = performance.now();
  for (let n = 0; ; n++) {
    const r = t.next();
    if (r.done) return r.value;
    if ((n & 63) !== 0 || performance.now() - sliceStart < SLICE_MS) continue;
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (cancel?.isCancellationRequested) {
      t.return(undefined as never);
      throw new EngineError(ErrorCodes.RequestCancelled, `${what} cancelled`);
    }
    sliceStart = performance.now();
  }
}
