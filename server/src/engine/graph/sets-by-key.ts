// Sets of values by key: adding makes the set, removing the last value drops it.
//
// Most keys of the model's indexes hold one value (a top-level name, a method name, a module's
// file): a lone value is held as itself, not in a Set of its own (~130 bytes a Set: on
// site-packages, 140K one-entry sets were ~18 MB of the first index's peak heap).

const NONE: readonly never[] = [];

export class SetsByKey<K, V> {
  private readonly m = new Map<K, V | Set<V>>();

  add(k: K, v: V): void {
    const had = this.m.get(k);
    if (had === undefined) this.m.set(k, v);
    else if (had instanceof Set) had.add(v);
    else if (had !== v) this.m.set(k, new Set([had, v]));
  }

  remove(k: K, v: V): void {
    const had = this.m.get(k);
    if (had === undefined) return;
    if (!(had instanceof Set)) {
      if (had === v) this.m.delete(k);
      return;
    }
    had.delete(v);
    if (had.size === 1) this.m.set(k, had.values().next().value as V);
  }

  /** The values of `k`, in the order they came (not a copy: do not change the sets while reading). */
  get(k: K): Iterable<V> {
    const had = this.m.get(k);
    return had === undefined ? NONE : had instanceof Set ? had : [had];
  }

  /** How many values `k` has. */
  count(k: K): number {
    const had = this.m.get(k);
    return had === undefined ? 0 : had instanceof Set ? had.size : 1;
  }

  has(k: K): boolean {
    return this.m.has(k);
  }
}
