// "Did you mean": the closest known ids to an unknown one, so a typo costs one round trip.
import { parseEntityId } from '../../../protocol';
import type { Store } from './store/store';

export function suggestIds(store: Store, id: string, max = 5): string[] {
  const parsed = parseEntityId(id);
  const qname = parsed?.qname ?? id.slice(id.lastIndexOf(':') + 1);
  const name = qname.slice(qname.lastIndexOf('.') + 1).replace(/#\d+$/, '');
  const escape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);
  const pool = new Set<string>();
  // `path:qname` without its kind (`shop/models.py:price_of`): the ids that only lack it.
  const kindless = `:${id}`;
  for (const x of store.idsLike(`%${escape(kindless)}`)) if (x.indexOf(':') === x.length - kindless.length) pool.add(x);
  if (name) for (const x of store.idsLike(`%${escape(name)}%`)) pool.add(x);
  if (parsed?.file) for (const x of store.idsLike(`%:${escape(parsed.file)}:%`)) pool.add(x);
  if (name.length > 3) for (const x of store.idsLike(`%${escape(name.slice(0, 3))}%`)) pool.add(x);
  return [...pool]
    .map((x) => ({ x, d: x.endsWith(kindless) && x.indexOf(':') === x.length - kindless.length ? -1 : distance(x, id) }))
    .sort((a, b) => a.d - b.d || a.x.localeCompare(b.x))
    .slice(0, max)
    .map((s) => s.x);
}

function distance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}
