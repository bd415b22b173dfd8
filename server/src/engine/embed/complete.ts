// The vectors' completeness, recorded for the next process: "at entity generation G (see
// Store.entityGeneration), every one of N embeddable entities had its current vector in each of
// these spaces (by embedder id)". A process that finds the generation unchanged and its spaces
// among these needs neither to look for missing vectors (a query over every entity and vector:
// ~0.3 s of CPU on the stdlib) nor to count them — what every query command paid before
// answering, to be sure its streams were complete.
import type { Store } from '../store/store';

const KEY = 'vectors_complete';

export interface Completeness {
  generation: number;
  entities: number;
  /** Space name → embedder id. */
  spaces: Record<string, string>;
}

export function readCompleteness(store: Store): Completeness | null {
  try {
    const c = JSON.parse(store.meta(KEY) ?? 'null') as Completeness | null;
    return c && typeof c.generation === 'number' && typeof c.entities === 'number' && c.spaces ? c : null;
  } catch {
    return null; // unreadable: the vectors are looked at, as without a record
  }
}

/** Whether `c` vouches for these spaces at this generation. */
export function covers(c: Completeness | null, generation: number, spaces: ReadonlyArray<{ name: string; id: string }>): c is Completeness {
  return !!c && c.generation === generation && spaces.every((s) => c.spaces[s.name] === s.id);
}

/** Records `c` unless it is already what is recorded; a write that fails costs only the shortcut. */
export function recordCompleteness(store: Store, c: Completeness, log: (m: string) => void): void {
  const json = JSON.stringify(c);
  if (store.meta(KEY) === json) return;
  try {
    store.setMeta(KEY, json);
  } catch (e) {
    log(`vectors: could not record that they are complete (${(e as Error).message})`);
  }
}
