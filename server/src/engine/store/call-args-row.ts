// A file's call sites of one callee name with their argument types, as a `call_args` row holds
// them: each caller's id once, without the file's path (`func:a/b.py:f` is `func::f`), and each
// site by its caller's place in that list. The ids repeated per site were over half the table
// (the stdlib: 13.8 of 24.5 MB for 211K sites), and a row per name repeats each caller once per
// name it calls (the path left out: 17.0 MB against 19.7). Rows written before schema 11 hold
// whole ids (one row per file), and before schema 9 a plain list of tuples: a writable index that
// old is rebuilt, but a read-only one is read as it is (store/db.ts openReadOnly), so those rows
// are still read.
import type { ReceiverKind } from '../languages/types';
import type { CallArgsTuple } from './read-rows';

interface CallArgsRow {
  callers: string[];
  sites: Array<[caller: number, target: string, receiver: ReceiverKind | null, rtype: string | null, args: string[]]>;
}

/** `file`: the path of the file the sites are in (and their callers). */
export function encodeCallArgs(tuples: readonly CallArgsTuple[], file: string): string {
  const place = new Map<string, number>();
  const row: CallArgsRow = { callers: [], sites: [] };
  const inFile = `:${file}:`;
  for (const [source, target, receiver, rtype, args] of tuples) {
    let i = place.get(source);
    if (i === undefined) {
      const at = source.indexOf(':');
      const short = at > 0 && source.startsWith(inFile, at) ? `${source.slice(0, at)}::${source.slice(at + inFile.length)}` : source;
      i = row.callers.push(short) - 1;
      place.set(source, i);
    }
    row.sites.push([i, target, receiver, rtype, args]);
  }
  return JSON.stringify(row);
}

export function decodeCallArgs(json: string, file: string): CallArgsTuple[] {
  const parsed = JSON.parse(json) as CallArgsRow | CallArgsTuple[];
  if (Array.isArray(parsed)) return parsed;
  const { sites } = parsed;
  // A path is never empty: `kind::` is an id with its path left out.
  const callers = parsed.callers.map((id) => {
    const at = id.indexOf('::');
    return at > 0 && id.indexOf(':') === at ? `${id.slice(0, at)}:${file}:${id.slice(at + 2)}` : id;
  });
  return sites.map(([i, target, receiver, rtype, args]) => {
    const source = callers[i];
    if (source === undefined) throw new Error(`call_args row names caller ${i} of ${callers.length}`);
    return [source, target, receiver, rtype, args];
  });
}
