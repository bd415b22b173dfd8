// Read-only questions to the graph as the index holds it: an entity by id or by name, a file's
// entities, what is under a position, edges in and out, the class hierarchy, and traces. Rows come
// back as the plain data of api.ts; bad input is an EngineError that says what was expected.
import type { Relation, TraceResult } from '../../../protocol';
import { ErrorCodes, RELATIONS } from '../../../protocol';
import type { EdgeRow, EntityRow, Position } from './api';
import { checkMaxTokens } from './budget/measure';
import { fitTrace } from './budget/trace';
import { EngineError } from './errors';
import { runCooperatively, runNow, type Cancellation, type Traversal } from './graph/cooperative';
import type { Graph } from './graph/graph';
import { implementations, subtypes, supertypes } from './graph/hierarchy';
import { pathTraversal } from './graph/paths';
import { traceTraversal, type TraceRequest } from './graph/trace';
import { toEdge, toEntity } from './store/read-rows';
import type { Store } from './store/store';
import { findEntity, MODULE_FILE, pytestName } from './entity-names';
import { lastRow } from './spans';
import { closestInFile, suggestIds } from './suggest';
import type { WorkspacePaths } from './workspace/workspace-paths';

export class GraphQueries {
  constructor(
    private readonly store: Store,
    private readonly graph: Graph,
    private readonly paths: WorkspacePaths,
    /** Throws when the engine is closed: the queries that check it, check it first. */
    private readonly assertOpen: () => void,
  ) {}

  /** An entity by id or by a name only it has (entity-names.ts); else UnknownEntity with suggestions. */
  entity(id: string): EntityRow {
    this.assertOpen();
    if (typeof id !== 'string' || !id) throw new EngineError(ErrorCodes.InvalidParams, 'expected an entity id such as func:src/app.py:main');
    const found = findEntity(this.store, id, (p) => {
      try {
        return this.paths.relativePath(p, { followLinks: false });
      } catch {
        return null;
      }
    });
    if (found && 'row' in found) return toEntity(found.row);
    if (found) {
      const suggestions = found.many.map((e) => e.id);
      throw new EngineError(ErrorCodes.UnknownEntity, `${id} names ${found.many.length >= 20 ? '20 or more' : found.many.length} entities; give one id: ${suggestions.slice(0, 5).join(', ')}`, { suggestions });
    }
    const place = this.placeNamesNothing(id);
    if (place) {
      const hint = place.suggestions.length ? `; did you mean ${place.suggestions.slice(0, 3).join(', ')}?` : '';
      throw new EngineError(ErrorCodes.UnknownEntity, `unknown entity ${id}: ${place.why}${hint}`, { suggestions: place.suggestions });
    }
    const suggestions = suggestIds(this.store, id);
    const hint = suggestions.length ? `; did you mean ${suggestions.slice(0, 3).join(', ')}?` : '';
    throw new EngineError(ErrorCodes.UnknownEntity, `unknown entity ${id}${hint}`, { suggestions });
  }

  /**
   * Why a file and line (`json/decoder.py:900`), a pytest id or a file and name
   * (`json/decoder.py::Nope`, `json/decoder.py:Nope`) name nothing, when the reason is the place:
   * a path outside the workspace, a file the index does not hold, a line past the file's end, a
   * name the file does not define (then its definitions nearest that name are the suggestions).
   * Ids that merely look alike elsewhere would be no help there.
   */
  private placeNamesNothing(written: string): { why: string; suggestions: string[] } | null {
    const text = written.trim();
    const pytest = /^([^:]+)::(.+)$/.exec(text); // `tests/test_x.py::TestA::test_b`
    const line = pytest ? null : /^(.+):(\d+)$/.exec(text);
    const named = pytest || line ? null : /^(.+):([A-Za-z_$][\w$.]*)$/.exec(text);
    const place = pytest?.[1] ?? line?.[1] ?? (named && (named[1].includes('/') || MODULE_FILE.test(named[1])) ? named[1] : undefined);
    if (!place || /^[a-z]+:[^/\\]/.test(place)) return null; // `func:app.py:12` is an id, not a path
    const because = (why: string, suggestions: string[] = []) => ({ why, suggestions });
    let file: string;
    try {
      file = this.paths.relativePath(place, { followLinks: false });
    } catch (e) {
      return because((e as Error).message);
    }
    const rows = this.store.entitiesOfFile(file);
    if (!rows.length) return because(`${file} is not in the index`);
    const name = pytest ? pytestName(pytest[2]) : named?.[2];
    if (name) return because(`${file} defines no ${name}`, closestInFile(rows, name));
    const module = rows.find((e) => e.kind === 'module'); // a config file has none, nor lines to count here
    if (!module || !line) return null;
    const n = Number(line[2]);
    const span = toEntity(module).span;
    const lines = span ? lastRow(span) + 1 : 0;
    if (n < 1) return because('lines count from 1');
    return n > lines ? because(`${file} has ${lines} lines`) : null;
  }

  /** The file of the module a dotted name names (`flask.app` → flask/app.py), or null. */
  moduleFile(name: string): string | null {
    this.assertOpen();
    const found = findEntity(this.store, name, () => null);
    return found && 'row' in found && found.row.kind === 'module' ? found.row.path : null;
  }

  fileEntities(file: string): EntityRow[] {
    this.assertOpen();
    return this.store.entitiesOfFile(this.paths.relativePath(file)).map(toEntity);
  }

  /** The innermost function, method, class or module whose span contains `pos`. */
  entityAt(file: string, pos: Position): EntityRow | null {
    this.assertOpen();
    const rel = this.paths.relativePath(file);
    checkPosition(pos);
    let best: EntityRow | null = null;
    for (const e of this.store.entitiesOfFile(rel).map(toEntity)) {
      if (!e.span || e.kind === 'attr' || e.kind === 'global') continue;
      if (!contains(e.span, pos)) continue;
      if (!best || best.kind === 'module' || (e.span.start.row > best.span!.start.row || (e.span.start.row === best.span!.start.row && e.span.start.column >= best.span!.start.column))) best = e;
    }
    return best;
  }

  incoming(id: string, relations?: Relation[]): EdgeRow[] {
    this.assertOpen();
    return this.store.incoming(id).map(toEdge).filter((e) => !relations || relations.includes(e.relation));
  }

  outgoing(id: string, relations?: Relation[]): EdgeRow[] {
    this.assertOpen();
    return this.store.outgoing(id).map(toEdge).filter((e) => !relations || relations.includes(e.relation));
  }

  /** Direct bases (`supertypes`) or subclasses (`subtypes`) of a class, from resolved INHERITS edges. */
  typeHierarchy(id: string, direction: 'supertypes' | 'subtypes'): EntityRow[] {
    this.assertOpen();
    const ids = direction === 'supertypes' ? supertypes(this.store, id) : subtypes(this.store, id);
    return this.rows(ids);
  }

  /** Methods overriding a method in its class's subclasses; for a class, its subclasses. */
  implementations(id: string): EntityRow[] {
    this.assertOpen();
    return this.rows(implementations(this.store, id));
  }

  /** Graph resolution of the name under the cursor: a reference's targets, or the entity named there. */
  definitionAt(file: string, pos: Position): EntityRow[] {
    this.assertOpen();
    const rel = this.paths.relativePath(file);
    checkPosition(pos);
    const ids = new Set<string>();
    for (const e of this.store.entitiesOfFile(rel).map(toEntity)) {
      if (e.nameSpan && contains(e.nameSpan, pos)) ids.add(e.id);
    }
    if (!ids.size) {
      for (const r of this.store.refsOfFile(rel)) {
        const span = { start: { row: r.sr, column: r.sc }, end: { row: r.er, column: r.ec } };
        if (!contains(span, pos)) continue;
        for (const e of this.store.outgoing(r.source)) if (e.rid === r.rid && e.edge_target) ids.add(e.edge_target);
      }
    }
    return this.rows([...ids]);
  }

  trace(req: TraceRequest): TraceResult {
    return runNow(this.traceTraversal(req));
  }

  /**
   * The same trace, giving the event loop a turn every few milliseconds: a `cancel` set meanwhile
   * (a client's `$/cancelRequest`) stops it with RequestCancelled.
   */
  traceCooperatively(req: TraceRequest, cancel?: Cancellation): Promise<TraceResult> {
    return runCooperatively(this.traceTraversal(req), cancel, 'trace');
  }

  private *traceTraversal(req: TraceRequest): Traversal<TraceResult> {
    this.assertOpen();
    const root = this.entity(req.id);
    if (req.relations) {
      const bad = req.relations.filter((r) => !RELATIONS.includes(r));
      if (bad.length) throw new EngineError(ErrorCodes.InvalidParams, `unknown relation ${bad.join(', ')}; known: ${RELATIONS.join(', ')}`);
    }
    const maxTokens = checkMaxTokens(req.maxTokens);
    const t =
      req.to !== undefined
        ? yield* pathTraversal(this.store, { ...req, id: root.id, to: this.entity(req.to).id }, (f) => this.paths.textOrNull(f))
        : yield* traceTraversal(this.store, this.graph, { ...req, id: root.id }, root.kind);
    return maxTokens === undefined ? t : fitTrace(t, maxTokens);
  }

  /** The stored entities of these ids, in their order; ids no longer stored are left out. */
  private rows(ids: string[]): EntityRow[] {
    return ids.map((id) => this.store.entity(id)).filter((r): r is NonNullable<typeof r> => !!r).map(toEntity);
  }
}

function checkPosition(pos: Position): void {
  if (!pos || !Number.isInteger(pos.line) || !Number.isInteger(pos.character) || pos.line < 0 || pos.character < 0) {
    throw new EngineError(ErrorCodes.BadPosition, `bad position ${JSON.stringify(pos)}: expected {line, character}, 0-based integers`);
  }
}

function contains(span: { start: { row: number; column: number }; end: { row: number; column: number } }, pos: Position): boolean {
  const after = pos.line > span.start.row || (pos.line === span.start.row && pos.character >= span.start.column);
  const before = pos.line < span.end.row || (pos.line === span.end.row && pos.character <= span.end.column);
  return after && before;
}
