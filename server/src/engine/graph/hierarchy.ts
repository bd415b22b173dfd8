// The class hierarchy read from INHERITS edges: direct bases and subclasses of a class, and the
// methods that override a method in the subclasses of its class (what an editor's "go to
// implementation" and type hierarchy show). Only resolved edges count: a base outside the
// workspace has no entity to show.
import { parseEntityId } from '../../../../protocol';
import type { Store } from '../store/store';

/** Direct bases of a class, in the order the edges are stored. */
export function supertypes(store: Store, classId: string): string[] {
  return unique(store.outgoing(classId).flatMap((r) => (r.relation === 'INHERITS' && r.edge_target ? [r.edge_target] : [])));
}

/** Direct subclasses of a class. */
export function subtypes(store: Store, classId: string): string[] {
  return unique(store.incoming(classId).flatMap((r) => (r.relation === 'INHERITS' ? [r.source] : [])));
}

/** Every class below `classId`, breadth first (nearest first), each once. */
export function descendants(store: Store, classId: string): string[] {
  const seen = new Set([classId]);
  const out: string[] = [];
  let frontier = [classId];
  while (frontier.length) {
    const next: string[] = [];
    for (const c of frontier) {
      for (const s of subtypes(store, c)) {
        if (seen.has(s)) continue;
        seen.add(s);
        out.push(s);
        next.push(s);
      }
    }
    frontier = next;
  }
  return out;
}

/**
 * Implementations of an entity: for a method `C.m`, every `S.m` defined in a subclass `S` of `C`
 * (at any depth); for a class, its subclasses. Anything else has none.
 */
export function implementations(store: Store, id: string): string[] {
  const entity = store.entity(id);
  if (!entity) return [];
  if (entity.kind === 'class') return descendants(store, id);
  if (entity.kind !== 'method' || !entity.parent) return [];
  const owner = store.entity(entity.parent);
  if (!owner || owner.kind !== 'class') return [];
  const out: string[] = [];
  for (const sub of descendants(store, owner.id)) {
    const p = parseEntityId(sub);
    if (!p?.file) continue;
    const candidate = `method:${p.file}:${p.qname}.${entity.name}`;
    if (store.entity(candidate)) out.push(candidate);
  }
  return out;
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}
