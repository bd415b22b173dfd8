// A file's call sites with their argument types, as its `call_args` row holds them: each
// caller's id once, and each site by its caller's place in that list. The ids repeated per site
// were over half the table (the stdlib: 13.8 of 24.5 MB for 211K sites). Rows written before
// schema 9 were a plain list of tuples: a writable index that old is rebuilt, but a read-only
// one is read as it is (store/db.ts openReadOnly), so those rows are still read.
import type { ReceiverKind } from '../languages/types';
import type { CallArgsTuple } from './read-rows';

interface CallArgsRow {
  callers: string[];
  sites: Array<[caller: number, target: string, receiver: ReceiverKind | null, rtype: string | null, args: string[]]>;
}

export function encodeCallArgs(tuples: readonly CallArgsTuple[]): string {
  const place = new Map<string, number>();
  const row: CallArgsRow = { callers: [], sites: [] };
  for (const [source, target, receiver, rtype, args] of tuples) {
    let i = place.get(source);
    if (i === undefined) {
      i = row.callers.push(source) - 1;
      place.set(source, i);
    }
    row.sites.push([i, target, receiver, rtype, args]);
  }
  return JSON.stringify(row);
}

export function decodeCallArgs(json: string): CallArgsTuple[] {
  const parsed = JSON.parse(json) as CallArgsRow | CallArgsTuple[];
  if (Array.isArray(parsed)) return parsed;
  const { callers, sites } = parsed;
  return sites.map(([i, target, receiver, rtype, args]) => {
    const source = callers[i];
    if (source === undefined) throw new Error(`call_args row names caller ${i} of ${callers.length}`);
    return [source, target, receiver, rtype, args];
  });
}
