// Trace in standard LSP: call hierarchy over the graph's CALLS edges. Incoming groups the
// edges into an entity by caller (fromRanges: call sites in the caller's file); outgoing groups
// the edges out of it by callee (fromRanges: call sites in its own file). Calls to names the
// graph cannot resolve (builtins, libraries outside the workspace) have no item to show.
// An item reached only through dispatch edges (an override a call on a base-class method may
// run) says so: its `detail` starts with MAY_CALL_LABEL, as LSP has no tag for "may call".
import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
  Range,
} from 'vscode-languageserver/node';
import { MAY_CALL_LABEL, type Position } from '../../../protocol';
import type { EdgeRow, EntityRow } from '../engine';
import type { Engine } from '../engine';
import { pathToUri, toCallHierarchyItem, toRange, comparePositions } from './convert';
import { entityAtCursor } from './cursor';
import { invalidParams } from './errors';
import * as P from './params';
import type { Workspace, Workspaces } from './workspaces';

const CALLABLE = new Set(['function', 'method', 'class', 'module']);
const isCallable = (e: EntityRow) => CALLABLE.has(e.kind);

export function prepareCallHierarchy(workspaces: Workspaces, uri: string, pos: Position): CallHierarchyItem[] | null {
  const { ws, path } = workspaces.route(uri);
  const target = entityAtCursor(ws.engine, path, pos, { enclosing: true, accept: isCallable });
  if (!target) return null;
  const item = itemOf(ws, target.entity);
  return item ? [item] : null;
}

export function incomingCalls(workspaces: Workspaces, method: string, item: unknown): CallHierarchyIncomingCall[] {
  const { ws, id } = resolveItem(workspaces, method, item);
  const groups = groupBy(ws.engine.incoming(id, ['CALLS']), (e) => e.source);
  const out: CallHierarchyIncomingCall[] = [];
  for (const [source, edges] of groups) {
    const from = safeItem(ws, source, edges);
    if (from) out.push({ from, fromRanges: siteRanges(edges) });
  }
  return out.sort((a, b) => byLocation(a.from, b.from));
}

export function outgoingCalls(workspaces: Workspaces, method: string, item: unknown): CallHierarchyOutgoingCall[] {
  const { ws, id } = resolveItem(workspaces, method, item);
  const resolved = ws.engine.outgoing(id, ['CALLS']).filter((e) => e.target !== null);
  const groups = groupBy(resolved, (e) => e.target!);
  const out: CallHierarchyOutgoingCall[] = [];
  for (const [target, edges] of groups) {
    const to = safeItem(ws, target, edges);
    if (to) out.push({ to, fromRanges: siteRanges(edges) });
  }
  return out.sort((a, b) => comparePositions(a.fromRanges[0].start, b.fromRanges[0].start) || byLocation(a.to, b.to));
}

/** Distinct callers and resolved callees: the numbers code lens and hover show. */
export function callCounts(engine: Engine, id: string): { callers: number; callees: number } {
  const callers = new Set(engine.incoming(id, ['CALLS']).map((e) => e.source));
  const callees = new Set(engine.outgoing(id, ['CALLS']).flatMap((e) => (e.target ? [e.target] : [])));
  return { callers: callers.size, callees: callees.size };
}

export function callCountsTitle(c: { callers: number; callees: number }): string {
  const n = (k: number, word: string) => `${k} ${word}${k === 1 ? '' : 's'}`;
  return `${n(c.callers, 'caller')} · ${n(c.callees, 'callee')}`;
}

function itemOf(ws: Workspace, e: EntityRow): CallHierarchyItem | null {
  if (!e.file) return null;
  return toCallHierarchyItem(e, pathToUri(ws.engine.absolutePath(e.file)));
}

/** The item of `id`; `edges` are the calls it stands for: all dispatch ones make it a "may call". */
function safeItem(ws: Workspace, id: string, edges: EdgeRow[]): CallHierarchyItem | null {
  let item: CallHierarchyItem | null;
  try {
    item = itemOf(ws, ws.engine.entity(id));
  } catch {
    return null; // an edge to an entity removed in the meantime
  }
  if (item && edges.every((e) => e.dispatch)) item.detail = item.detail ? `${MAY_CALL_LABEL} · ${item.detail}` : MAY_CALL_LABEL;
  return item;
}

/** The entity an item stands for: its `data.id` when we made it, else the entity at its name. */
function resolveItem(workspaces: Workspaces, method: string, raw: unknown): { ws: Workspace; id: string } {
  const item = P.object(method, raw, "'item'");
  const uri = P.string(method, item, 'uri');
  const { ws, path } = workspaces.route(uri);
  const data = item.data as { id?: unknown } | undefined;
  if (data && typeof data.id === 'string') {
    ws.engine.entity(data.id); // UnknownEntity (with suggestions) when it no longer exists
    return { ws, id: data.id };
  }
  const sel = P.object(method, item.selectionRange, "'item.selectionRange'");
  const pos = P.position(method, sel.start, 'item.selectionRange.start');
  const target = entityAtCursor(ws.engine, path, pos, { enclosing: true, accept: isCallable });
  if (!target) throw invalidParams(method, `no function, method or class at ${uri}:${pos.line + 1}:${pos.character + 1}`);
  return { ws, id: target.entity.id };
}

function siteRanges(edges: EdgeRow[]): Range[] {
  return edges.map((e) => toRange(e.span)).sort((a, b) => comparePositions(a.start, b.start));
}

function groupBy<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = m.get(k);
    if (list) list.push(it);
    else m.set(k, [it]);
  }
  return m;
}

function byLocation(a: CallHierarchyItem, b: CallHierarchyItem): number {
  return a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : comparePositions(a.selectionRange.start, b.selectionRange.start);
}
