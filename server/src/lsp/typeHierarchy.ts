// The class hierarchy in standard LSP: type hierarchy (prepare, supertypes, subtypes) over the
// graph's INHERITS edges, and textDocument/implementation (a method's overrides in subclasses,
// a class's subclasses). Bases outside the workspace have no entity and so no item.
import type { Location, TypeHierarchyItem } from 'vscode-languageserver/node';
import type { Position } from '../../../protocol';
import type { EntityRow } from '../engine';
import { entityLocation, entityRanges, pathToUri, symbolKind, type ItemData } from './convert';
import { entityAtCursor } from './cursor';
import { invalidParams } from './errors';
import * as P from './params';
import type { Workspace, Workspaces } from './workspaces';

const isClass = (e: EntityRow) => e.kind === 'class';

export function prepareTypeHierarchy(workspaces: Workspaces, uri: string, pos: Position): TypeHierarchyItem[] | null {
  const { ws, path } = workspaces.route(uri);
  const target = entityAtCursor(ws.engine, path, pos, { enclosing: true, accept: isClass });
  if (!target) return null;
  const item = itemOf(ws, target.entity);
  return item ? [item] : null;
}

export function typeHierarchyStep(workspaces: Workspaces, method: string, raw: unknown, direction: 'supertypes' | 'subtypes'): TypeHierarchyItem[] {
  const item = P.object(method, P.object(method, raw).item, "'item'");
  const uri = P.string(method, item, 'uri');
  const { ws, path } = workspaces.route(uri);
  const data = item.data as { id?: unknown } | undefined;
  let id: string;
  if (data && typeof data.id === 'string') {
    id = ws.engine.entity(data.id).id; // UnknownEntity (with suggestions) when it is gone
  } else {
    const sel = P.object(method, item.selectionRange, "'item.selectionRange'");
    const pos = P.position(method, sel.start, 'item.selectionRange.start');
    const found = entityAtCursor(ws.engine, path, pos, { enclosing: true, accept: isClass });
    if (!found) throw invalidParams(method, `no class at ${uri}:${pos.line + 1}:${pos.character + 1}`);
    id = found.entity.id;
  }
  return ws.engine.typeHierarchy(id, direction).flatMap((e) => itemOf(ws, e) ?? []);
}

/** On a method: its overrides in subclasses; on a class: its subclasses (nearest first). */
export function implementation(workspaces: Workspaces, uri: string, pos: Position): Location[] | null {
  const { ws, path } = workspaces.route(uri);
  const target = entityAtCursor(ws.engine, path, pos, { enclosing: true, accept: (e) => e.kind === 'class' || e.kind === 'method' });
  if (!target) return null;
  const out = ws.engine.implementations(target.entity.id).flatMap((e) => (e.file ? entityLocation(e, pathToUri(ws.engine.absolutePath(e.file))) ?? [] : []));
  return out.length ? out : null;
}

function itemOf(ws: Workspace, e: EntityRow): TypeHierarchyItem | null {
  const ranges = e.file ? entityRanges(e) : null;
  if (!ranges || !e.file) return null;
  const data: ItemData = { id: e.id };
  return { name: e.name, kind: symbolKind(e.kind), detail: e.signature, uri: pathToUri(ws.engine.absolutePath(e.file)), ...ranges, data };
}
