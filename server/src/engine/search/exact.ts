// The exact-name stream: a query that is an identifier (`validate_token`, `User.save`) ranks the
// entities of that very name first. Silent for natural-language queries, so it never dilutes
// them; it fixes the case where a just-typed name ties with a semantic neighbour.
import type { Store } from '../store/store';
import type { SearchStream, StreamHit } from './types';

const IDENTIFIER = /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/;
const KIND_ORDER: Record<string, number> = { function: 0, method: 0, class: 0, module: 1, global: 2, attr: 3 };

export class ExactNameStream implements SearchStream {
  readonly name = 'exact';

  constructor(private readonly store: Store) {}

  async search(query: string, k: number): Promise<StreamHit[]> {
    const q = query.trim();
    if (!IDENTIFIER.test(q)) return [];
    const dot = q.lastIndexOf('.');
    const name = dot < 0 ? q : q.slice(dot + 1);
    const rows = this.store.entitiesNamed(name).filter((r) => r.path !== null && (dot < 0 || r.qname.endsWith(q) || r.path.replace(/\//g, '.').includes(q.slice(0, dot))));
    rows.sort((a, b) => (KIND_ORDER[a.kind] ?? 4) - (KIND_ORDER[b.kind] ?? 4) || a.id.localeCompare(b.id));
    return rows.slice(0, k).map((r) => ({ eid: r.eid, score: 1 }));
  }
}
