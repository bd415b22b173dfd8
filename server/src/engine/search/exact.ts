// The exact-name stream: a query that is an identifier (`validate_token`, `User.save`) ranks the
// entities of that very name first. Silent for natural-language queries, so it never dilutes
// them; it fixes the case where a just-typed name ties with a semantic neighbour.
import { entitiesSpelled, type Spelled } from '../entity-names';
import type { EntityDbRow } from '../store/read-rows';
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
    const byKind = (a: EntityDbRow, b: EntityDbRow) => (KIND_ORDER[a.kind] ?? 4) - (KIND_ORDER[b.kind] ?? 4) || a.id.localeCompare(b.id);
    if (dot < 0) return this.store.entitiesNamed(name).filter((r) => r.path !== null).sort(byKind).slice(0, k).map(hit);
    // A dotted name as code and tracebacks write it (`flask.app.Flask.wsgi_app`, `Flask.wsgi_app`):
    // the entities whose module path and qualified name end in it, segment for segment, first;
    // then those a package re-exports (`jinja2.Environment.get_template`, defined in a module of
    // jinja2); then those of its last name in a file whose path holds the rest.
    const { spelled, inside } = entitiesSpelled(this.store, q);
    const rows = (xs: Spelled[]) => xs.map((x) => x.row).sort(byKind);
    const near = this.store.entitiesNamed(name).filter((r) => r.path !== null && (r.qname.endsWith(q) || r.path.replace(/\//g, '.').includes(q.slice(0, dot))));
    const seen = new Set<number>();
    return [...rows(spelled), ...rows(inside), ...near.sort(byKind)]
      .filter((r) => !seen.has(r.eid) && !!seen.add(r.eid))
      .slice(0, k)
      .map(hit);
  }
}

const hit = (r: EntityDbRow): StreamHit => ({ eid: r.eid, score: 1 });
