// "Did you mean": the closest known ids to an unknown one, so a typo costs one round trip.
import { parseEntityId } from '../../../protocol';
import { kindRank, moduleNameOf } from './entity-names';
import type { EntityDbRow } from './store/read-rows';
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
  if (name) {
    for (const e of store.entitiesNamed(name)) pool.add(e.id);
    // A typo at the end (`decodee`, `price_off`): the names that start as it does.
    for (const x of store.idsNamedFrom(name.slice(0, Math.max(3, name.length - 2)))) pool.add(x);
    for (const x of store.idsLike(`%${escape(name)}%`)) pool.add(x);
  }
  if (parsed?.file) for (const x of store.idsLike(`%:${escape(parsed.file)}:%`)) pool.add(x);
  if (name.length > 3) for (const x of store.idsLike(`%${escape(name.slice(0, 3))}%`)) pool.add(x);
  // An id is compared as an id, the ids that lack only their kind first, then those with its
  // name. A name (`decode`, `requests.sessions.Session.resolve_redirect`) is compared with as many
  // trailing segments of each candidate's dotted module path and qualified name.
  const segments = id.split('.').length;
  const closeness = (x: string): number => {
    const p = parsed ? null : parseEntityId(x);
    if (!p) return distance(x, id);
    const module = p.file ? moduleNameOf(p.file) : null;
    const full = (module ? `${module}.${p.qname}` : p.qname).split('.');
    return distance(full.slice(-segments).join('.'), id);
  };
  const tier = (x: string): number => {
    if (x.endsWith(kindless) && x.indexOf(':') === x.length - kindless.length) return 0;
    const q = parseEntityId(x)?.qname ?? x;
    const n = q.slice(q.lastIndexOf('.') + 1).replace(/#\d+$/, '');
    return n === name ? 1 : n.toLowerCase() === name.toLowerCase() ? 2 : 3;
  };
  return [...pool]
    .map((x) => ({ x, t: tier(x), d: closeness(x) }))
    .sort((a, b) => (parsed ? a.t - b.t || a.d - b.d : a.d - b.d || a.t - b.t) || a.x.localeCompare(b.x))
    .slice(0, max)
    .map((s) => s.x);
}

/**
 * A file's definitions nearest a name it does not define: those within a few edits of the name
 * (of their qualified name, or of their last segment), nearest first; when none is that near,
 * the file's classes and functions in source order — an outline beats look-alikes by accident.
 */
export function closestInFile(rows: readonly EntityDbRow[], name: string, max = 5): string[] {
  const last = name.slice(name.lastIndexOf('.') + 1);
  const near = Math.max(2, Math.floor(last.length / 3)); // by the last segment: `JSONDecoder.decod` is not near `JSONDecoder.memo`
  const scored = rows
    .filter((e) => kindRank(e.kind) === 0 || kindRank(e.kind) === 2) // definitions, attributes and globals
    .map((e) => ({ e, d: Math.min(distance(e.qname, name), distance(e.name, last) + 0.5) }));
  const close = scored.filter((s) => s.d <= near).sort((a, b) => a.d - b.d || a.e.id.localeCompare(b.e.id));
  const outline = scored
    .filter((s) => s.d > near && kindRank(s.e.kind) === 0)
    .sort((a, b) => (a.e.sr ?? 0) - (b.e.sr ?? 0) || a.e.id.localeCompare(b.e.id));
  return [...close, ...outline].slice(0, max).map((s) => s.e.id);
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
