// Go to definition through the graph: the name under the cursor resolved the way the graph
// resolves edges (same scope, imports, same directory, unique in the workspace). Ambiguous
// names give every candidate.
import type { Location } from 'vscode-languageserver/node';
import type { Position } from '../../../protocol';
import { entityLocation, pathToUri } from './convert';
import type { Workspaces } from './workspaces';

export function definition(workspaces: Workspaces, uri: string, pos: Position): Location[] | null {
  const { ws, path } = workspaces.route(uri);
  const out: Location[] = [];
  for (const e of ws.engine.definitionAt(path, pos)) {
    if (!e.file) continue; // config keys and the like have no place in a file
    const loc = entityLocation(e, pathToUri(ws.engine.absolutePath(e.file)));
    if (loc) out.push(loc);
  }
  return out.length ? out : null;
}
