// References of the entity at the cursor: its call sites and the imports that name it (the
// graph's incoming CALLS and IMPORTS edges), plus its own name when the client asks for it.
import type { Location } from 'vscode-languageserver/node';
import type { Position } from '../../../protocol';
import { comparePositions, entityLocation, pathToUri, toRange } from './convert';
import { entityAtCursor } from './cursor';
import type { Workspaces } from './workspaces';

export function references(workspaces: Workspaces, uri: string, pos: Position, includeDeclaration: boolean): Location[] | null {
  const { ws, path } = workspaces.route(uri);
  const target = entityAtCursor(ws.engine, path, pos, { enclosing: true });
  if (!target) return null;
  const e = target.entity;
  const out: Location[] = [];
  if (includeDeclaration && e.file) {
    const decl = entityLocation(e, pathToUri(ws.engine.absolutePath(e.file)));
    if (decl) out.push(decl);
  }
  const seen = new Set<string>();
  const sites = ws.engine
    .incoming(e.id, ['CALLS', 'IMPORTS'])
    // A call that may dispatch to this override names the base method: not a reference to this one.
    .filter((edge) => !edge.dispatch)
    .map((edge) => ({ uri: pathToUri(ws.engine.absolutePath(edge.file)), range: toRange(edge.span) }))
    .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : comparePositions(a.range.start, b.range.start)));
  for (const loc of sites) {
    const key = `${loc.uri}:${loc.range.start.line}:${loc.range.start.character}:${loc.range.end.line}:${loc.range.end.character}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(loc);
  }
  return out;
}
