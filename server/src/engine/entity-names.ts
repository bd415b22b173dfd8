// What a person or an agent types to name an entity, to the entity. Besides an id
// (`method:json/decoder.py:JSONDecoder.decode`), the names people use: a qualified name
// (`JSONDecoder.decode`), a dotted module path as tracebacks, imports and docs write it
// (`json.decoder.JSONDecoder.decode`), an id without its kind (`json/decoder.py:JSONDecoder.decode`),
// a file and line as a traceback gives them (`json/decoder.py:340`), a pytest node id
// (`tests/test_x.py::TestA::test_b`, a parametrized `…::test_b[param-1]`), a file (its module),
// a bare name (`decode`). A name that fits several entities is never guessed: the caller lists them.
import { ENTITY_KINDS, entityId, type EntityKind } from '../../../protocol';
import { toEntity, type EntityDbRow } from './store/read-rows';
import { lastRow } from './spans';
import type { Store } from './store/store';

export type Named = { row: EntityDbRow } | { many: EntityDbRow[] } | null;

/** Where kinds compete for one name: a definition before the module, before an attribute of the same name. */
const KIND_RANK: Record<string, number> = { class: 0, function: 0, method: 0, interface: 0, type: 0, enum: 0, namespace: 0, module: 1, attr: 2, global: 2, config: 3, file: 3 };
/** A kind's rank in KIND_RANK: 0 a definition, 1 a module, 2 an attribute or global, 3 the rest. */
export const kindRank = (kind: string): number => KIND_RANK[kind] ?? 3;
/** Extensions a module path may have (stripped to name the module). */
export const MODULE_FILE = /\.(py|pyi|ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

export function findEntity(store: Store, written: string, relative: (p: string) => string | null): Named {
  const exact = store.entity(written);
  if (exact) return { row: exact };
  // As prose writes a name: `JSONDecoder.decode`, "decode", decode().
  const text = written.trim().replace(/^([`'"])(.*)\1$/, '$2').replace(/\(\)$/, '');
  if (text !== written) {
    const row = store.entity(text);
    if (row) return { row };
  }
  // `function:` for `func:`: the kind's name, not its prefix.
  if (text.startsWith('function:')) {
    const row = store.entity(`func:${text.slice('function:'.length)}`);
    if (row) return { row };
  }
  const pytest = text.indexOf('::');
  if (pytest > 0) return withoutKind(store, relative(text.slice(0, pytest)), pytestName(text.slice(pytest + 2)));
  const colon = text.lastIndexOf(':');
  if (colon > 0 && /^\d+$/.test(text.slice(colon + 1))) return atLine(store, relative(text.slice(0, colon)), Number(text.slice(colon + 1)));
  if (colon > 0) return withoutKind(store, relative(text.slice(0, colon)), text.slice(colon + 1));
  const qualified = store.entitiesWithQname(text);
  if (qualified.length) return one(qualified);
  const file = MODULE_FILE.test(text) || text.includes('/') ? relative(text) : null;
  if (file) {
    const module = store.entitiesOfFile(file).filter((e) => e.kind === 'module');
    if (module.length) return { row: module[0] };
  }
  if (text.includes('.') && !text.includes('/')) return dotted(store, text);
  const named = store.entitiesNamed(text).filter((e) => e.path !== null);
  return named.length ? one(named) : null;
}

/** The qualified name a pytest node id's tail names: `TestA::test_b[param-1]` → `TestA.test_b` (pytest prints parametrized cases so). */
export function pytestName(tail: string): string {
  return tail.replace(/\[.*\]$/, '').replace(/::/g, '.');
}

/** `path:qname`: the ids that lack only their kind; a definition wins over an attribute of its name. */
function withoutKind(store: Store, file: string | null, qname: string): Named {
  if (!file || !qname) return null;
  const rows: EntityDbRow[] = [];
  for (const kind of ENTITY_KINDS as readonly EntityKind[]) {
    if (kind === 'config' || kind === 'file') continue;
    const row = store.entity(entityId(kind, file, qname));
    if (row) rows.push(row);
  }
  return rows.length ? one(rows) : null;
}

/**
 * `path:line` (1-based, as a traceback or a compiler writes it): the innermost function, method
 * or class whose lines hold that line, else the file's module.
 */
function atLine(store: Store, file: string | null, line: number): Named {
  if (!file || line < 1) return null;
  const row = line - 1;
  let best: EntityDbRow | null = null;
  for (const e of store.entitiesOfFile(file)) {
    if (e.kind === 'module' && !best) best = e;
    if (e.kind === 'module' || e.kind === 'attr' || e.kind === 'global' || e.sr === null || e.er === null) continue;
    if (e.sr > row || e.er < row) continue;
    if (!best || best.kind === 'module' || e.sr > best.sr! || (e.sr === best.sr && (e.sc ?? 0) >= (best.sc ?? 0))) best = e;
  }
  const span = best && toEntity(best).span;
  return best && (best.kind !== 'module' || !span || row <= lastRow(span)) ? { row: best } : null;
}

/**
 * `pkg.mod.Class.method`: a module name, then a qualified name in it. Every split is tried, the
 * longest module first; a name a package re-exports (`flask.Flask`, defined in `flask/app.py`) is
 * found in the package's modules when only one of them has it. Where copies of a package sit at
 * several depths (`requests/`, `pip/_vendor/requests/`), the one nearest the root is meant.
 */
function dotted(store: Store, text: string): Named {
  const segs = text.split('.');
  if (segs.some((s) => !s)) return null;
  // The whole name a module (`json.decoder`).
  const modules = nearest(store.entitiesWithQnameUnder(segs[segs.length - 1], segs.join('/')).filter((e) => e.kind === 'module'), (e) => segmentsBefore(e.path!, text, true));
  if (modules.length) return one(modules);
  const { spelled, inside } = entitiesSpelled(store, text);
  const here = nearest(spelled, (s) => s.lead).map((s) => s.row);
  if (here.length) return one(here);
  const within = nearest(inside, (s) => s.lead);
  return within.length === 1 ? { row: within[0].row } : null;
}

/** The items with the fewest leading segments before the match (`lead`): the copy nearest the root. */
function nearest<T>(items: T[], lead: (t: T) => number): T[] {
  const leads = items.map(lead);
  const best = Math.min(...leads);
  return best === Infinity ? [] : items.filter((_, i) => leads[i] === best);
}

/**
 * How many segments of a file's module name come before `module`: where it ends the name
 * (`atEnd`: `src.flask.app` is flask.app after one), or anywhere in it (the package of a module
 * that defines what the package re-exports). Infinity where it is not there.
 */
function segmentsBefore(file: string, module: string, atEnd: boolean): number {
  const name = moduleNameOf(file);
  return name === null ? Infinity : leadingSegments(name, module, atEnd);
}

/** Segments of dotted `name` before `part` (at its end, or anywhere); Infinity where it is not there. */
function leadingSegments(name: string, part: string, atEnd: boolean): number {
  const wrapped = `.${name}.`;
  const at = atEnd ? (wrapped.endsWith(`.${part}.`) ? wrapped.length - part.length - 2 : -1) : wrapped.indexOf(`.${part}.`);
  return at < 0 ? Infinity : wrapped.slice(0, at).split('.').length - 1;
}

/** An entity a dotted name spells, and how many segments of its full name come before it. */
export interface Spelled {
  row: EntityDbRow;
  lead: number;
}

/**
 * The entities a dotted name spells (`flask.app.Flask.wsgi_app`, `Flask.wsgi_app`): their module
 * path and qualified name end in it, segment for segment (`spelled`); or their qualified name is
 * its end and their module lies inside the rest (`inside`: `jinja2.Environment.get_template`, a
 * class a package re-exports). Only files whose path spells the module part are read.
 */
export function entitiesSpelled(store: Store, dotted: string): { spelled: Spelled[]; inside: Spelled[] } {
  const segs = dotted.split('.');
  const spelled: Spelled[] = [];
  const inside: Spelled[] = [];
  for (let i = segs.length - 1; i >= 0; i--) {
    const qname = segs.slice(i).join('.');
    const rows = i === 0 ? store.entitiesWithQname(qname) : store.entitiesWithQnameUnder(qname, segs.slice(0, i).join('/'));
    for (const row of rows) {
      if (row.path === null) continue;
      const module = moduleNameOf(row.path);
      const lead = leadingSegments(module === null ? row.qname : `${module}.${row.qname}`, dotted, true);
      if (lead < Infinity) spelled.push({ row, lead });
      else if (i > 0) {
        const within = segmentsBefore(row.path, segs.slice(0, i).join('.'), false);
        if (within < Infinity) inside.push({ row, lead: within });
      }
    }
  }
  return { spelled, inside };
}

/** The dotted module name a file's path spells (`json/decoder.py` → json.decoder; a package's `__init__` is the package). */
export function moduleNameOf(file: string): string | null {
  if (!MODULE_FILE.test(file)) return null;
  return file
    .replace(MODULE_FILE, '')
    .replace(/\/(__init__|index)$/, '')
    .replace(/\//g, '.');
}

/** One entity, or the best-ranked kind when only one has it; else all of them. */
function one(rows: EntityDbRow[]): Named {
  if (rows.length === 1) return { row: rows[0] };
  const best = Math.min(...rows.map((r) => kindRank(r.kind)));
  const top = rows.filter((r) => kindRank(r.kind) === best);
  return top.length === 1 ? { row: top[0] } : { many: rows };
}
