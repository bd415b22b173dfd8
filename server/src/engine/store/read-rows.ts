// Row shapes returned by the store and their conversion to the engine's plain types.
import type { EntityKind, Relation } from '../../../../protocol';
import type { EdgeRow, EntityRow } from '../api';
import type { ConfigKind, ReceiverKind, Span } from '../languages/types';

/** What an index run compares a file on disk with (`Store.fileStamps`). */
export interface FileStamp {
  fid: number;
  hash: string;
  size: number;
  mtimeMs: number;
}

export interface FileRow {
  fid: number;
  path: string;
  language: string;
  module: string | null;
  hash: string;
  size: number;
  mtime_ms: number;
  syntax_errors: number;
}

/** An entity's two spans as columns: the whole definition (`sr`…`ec`) and its name (`nsr`…`nec`). */
export interface SpanColumns {
  sr: number;
  sc: number;
  er: number;
  ec: number;
  nsr: number;
  nsc: number;
  ner: number;
  nec: number;
}

/** The entities table's row. Virtual entities (config keys, files) have no path or spans. */
export type EntityDbRow = { [K in keyof SpanColumns]: number | null } & {
  eid: number;
  id: string;
  kind: EntityKind;
  name: string;
  qname: string;
  path: string | null;
  parent: string | null;
  signature: string;
  docstring: string | null;
  decorators: string | null;
};

/**
 * The entity facts the in-memory resolution model needs, a few of the row's plus what only
 * resolution reads, as a tuple (`bases` and `decorators` parsed). `qname` is null where it is
 * the name (every top-level definition).
 */
export type EntityLiteTuple = [id: string, kind: string, name: string, qname: string | null, parent: string | null, bases: string[] | null, returns: string | null, alias: string | null, decorators: string[] | null, eid: number];
export type ImportTuple = [source: string, local: string | null, module: string, member: string | null, rowid: number];
export type AttrTypeTuple = [cls: string, attr: string, type: string, rowid: number];

/** One file's rows that the symbol model reads, in the order they were written. */
export interface ModelFileRows {
  entities: EntityLiteTuple[];
  imports: ImportTuple[];
  attrTypes: AttrTypeTuple[];
}

/** A `modelRows` row as SQLite returns it: its fid, then each table's rows as a JSON array. */
export type ModelRowsJson = [fid: number, entities: string, imports: string, attrTypes: string];

export function parseModelRows([, entities, imports, attrTypes]: ModelRowsJson): ModelFileRows {
  return { entities: written(JSON.parse(entities) as EntityLiteTuple[]), imports: written(JSON.parse(imports) as ImportTuple[]), attrTypes: written(JSON.parse(attrTypes) as AttrTypeTuple[]) };
}

/** Rows in the order they were written: by the rowid each ends in (already so, unless SQLite read them another way). */
function written<T extends Array<unknown>>(rows: T[]): T[] {
  const order = (r: T) => r[r.length - 1] as number;
  for (let i = 1; i < rows.length; i++) if (order(rows[i - 1]) > order(rows[i])) return rows.sort((a, b) => order(a) - order(b));
  return rows;
}

/** The refs table's row; the columns hold only what `write-rows.ts` wrote from a `RawRef`. */
export interface RefDbRow {
  rid: number;
  fid: number;
  path: string;
  source: string;
  relation: Relation;
  target: string;
  last: string;
  receiver: ReceiverKind | null;
  rtype: string | null;
  config_kind: ConfigKind | null;
  catches: string | null;
  reraise: number;
  access: number;
  sr: number;
  sc: number;
  er: number;
  ec: number;
}

/** A ref joined with one of its edges (edge columns null when unresolved). */
/** What resolution reads of a reference row. */
export type RefResolveRow = Pick<RefDbRow, 'rid' | 'path' | 'source' | 'relation' | 'target' | 'receiver' | 'rtype' | 'config_kind' | 'catches' | 'access'>;

export interface RefEdgeDbRow extends RefDbRow {
  edge_target: string | null;
  ambiguous: number | null;
  caught: number | null;
  dispatch: number | null;
}

function span(sr: number | null, sc: number | null, er: number | null, ec: number | null): Span | null {
  if (sr === null || sc === null || er === null || ec === null) return null;
  return { start: { row: sr, column: sc }, end: { row: er, column: ec } };
}

export function toEntity(r: EntityDbRow): EntityRow {
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    qname: r.qname,
    file: r.path,
    parent: r.parent,
    span: span(r.sr, r.sc, r.er, r.ec),
    nameSpan: span(r.nsr, r.nsc, r.ner, r.nec),
    signature: r.signature,
    docstring: r.docstring,
    decorators: r.decorators ? (JSON.parse(r.decorators) as string[]) : [],
  };
}

export function toEdge(r: RefEdgeDbRow): EdgeRow {
  return {
    source: r.source,
    target: r.edge_target,
    targetName: r.target,
    relation: r.relation,
    ambiguous: r.ambiguous === 1,
    caught: r.caught === 1,
    dispatch: r.dispatch === 1,
    file: r.path,
    span: { start: { row: r.sr, column: r.sc }, end: { row: r.er, column: r.ec } },
  };
}

/** A call site's argument types (`CallArgs`) as the index keeps them: source, target, receiver, rtype, args. */
export type CallArgsTuple = [source: string, target: string, receiver: ReceiverKind | null, rtype: string | null, args: string[]];
