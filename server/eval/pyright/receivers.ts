// Recall split by the shape of the call's receiver (`f()`, `self.m()`, `self.x.m()`, `p.m()`,
// `x.m()`, `f().m()`, `mod.f()`), read from the source line of each pyright edge's first site:
// it says which kind of type inference the misses come from.
import type { Comparison } from './compare';
import { callShape, importsName, localOrigin, parameterNames } from './shape';

export interface ReceiverRecall {
  kind: string;
  pyright: number;
  agreed: number;
  recall: number | null;
}

export interface ReceiverContext {
  lines(file: string): string[];
  signature(id: string): string | undefined;
}

export const RECEIVER_KINDS = [
  'plain name f()',
  'self.m() / cls.m() / super().m()',
  'self.x.m()',
  'parameter p.m()',
  'local x.m()',
  'call result f().m()',
  'module m.f() / a.b.f()',
  'other (global, subscript, chain)',
] as const;

/** The receiver kind of a call site, from its line and the caller's signature and body. */
export function receiverKind(cmp: Comparison, ctx: ReceiverContext, caller: string, site: string): (typeof RECEIVER_KINDS)[number] {
  const m = /^(.*):(\d+):(\d+)$/.exec(site);
  if (!m) return 'other (global, subscript, chain)';
  const [file, row, column] = [m[1], Number(m[2]), Number(m[3])];
  const fileLines = ctx.lines(file);
  const r = callShape(fileLines[row] ?? '', column).receiver;
  if (r === null) return 'plain name f()';
  const callerEnt = cmp.index.byId.get(caller);
  const params = parameterNames(ctx.signature(caller) ?? '');
  const selfName = callerEnt?.kind === 'method' ? params[0] : undefined;
  const selfLike = (x: string) => x === 'self' || x === 'cls' || x === selfName;
  if (selfLike(r) || /^super\(.*\)$/.test(r)) return 'self.m() / cls.m() / super().m()';
  const head = /^\w+/.exec(r)?.[0] ?? '';
  if (/^\w+(\.\w+)+$/.test(r) && selfLike(head)) return 'self.x.m()';
  if (/^\w+$/.test(r)) {
    if (params.includes(r)) return 'parameter p.m()';
    const body = callerEnt ? ctx.lines(callerEnt.file).slice(callerEnt.start.row, callerEnt.end.row + 1) : [];
    if (localOrigin(body, r)) return 'local x.m()';
    if (importsName(fileLines, r)) return 'module m.f() / a.b.f()';
    return 'other (global, subscript, chain)';
  }
  if (r.endsWith(')')) return 'call result f().m()';
  if (/^[\w.]+$/.test(r) && importsName(fileLines, head)) return 'module m.f() / a.b.f()';
  return 'other (global, subscript, chain)';
}

/** Recall per receiver kind over pyright's call edges (property reads left out). */
export function recallByReceiver(cmp: Comparison, ctx: ReceiverContext): ReceiverRecall[] {
  const counts = new Map<string, { pyright: number; agreed: number }>(RECEIVER_KINDS.map((k) => [k, { pyright: 0, agreed: 0 }]));
  for (const [key, e] of cmp.pyright) {
    if (e.propertyRead) continue;
    const c = counts.get(receiverKind(cmp, ctx, e.caller, e.sites[0]))!;
    c.pyright++;
    const mine = cmp.nsccn.get(key);
    if (mine && !mine.ambiguous) c.agreed++;
  }
  return [...counts].map(([kind, c]) => ({ kind, ...c, recall: c.pyright ? c.agreed / c.pyright : null }));
}

export function receiverTable(rows: ReceiverRecall[]): string {
  const out = ['recall by receiver (calls only)     pyright   agreed   recall'];
  for (const r of rows) out.push(`  ${r.kind.padEnd(34)}${String(r.pyright).padStart(7)}${String(r.agreed).padStart(9)}${r.recall === null ? '       -' : `${(100 * r.recall).toFixed(1).padStart(7)}%`}`);
  return out.join('\n');
}
