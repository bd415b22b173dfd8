// Orient and Locate in standard LSP: the outline of a file (documentSymbol, nested through the
// engine's parent ids) and workspace/symbol ranked by the engine's hybrid search, so a query
// may be a name fragment or plain words ("where are tokens validated").
import type { DocumentSymbol, SymbolInformation } from 'vscode-languageserver/node';
import type { SearchResult } from '../../../protocol';
import type { Cancellation, EntityRow } from '../engine';
import { containerOf, entityRanges, pathToUri, rangeContains, symbolKind, toDocumentSymbol } from './convert';
import type { Workspace, Workspaces } from './workspaces';

/** Results per workspace/symbol answer: enough to pick from, few enough to render at once. */
export const WORKSPACE_SYMBOL_LIMIT = 100;

export function documentSymbols(workspaces: Workspaces, uri: string): DocumentSymbol[] {
  const { ws, path } = workspaces.route(uri);
  return outline(ws.engine.fileEntities(path));
}

/** Nests entities under their parents; the module itself is the document, not a symbol. */
export function outline(entities: EntityRow[]): DocumentSymbol[] {
  const byId = new Map<string, DocumentSymbol>();
  const roots: DocumentSymbol[] = [];
  for (const e of entities) {
    if (e.kind === 'module' || e.kind === 'file' || e.kind === 'config') continue;
    const sym = toDocumentSymbol(e);
    if (!sym) continue;
    byId.set(e.id, sym);
    const parent = e.parent ? byId.get(e.parent) : undefined;
    // LSP wants children inside their parent's range; anything else is shown at top level.
    if (parent && rangeContains(parent.range, sym.range)) parent.children!.push(sym);
    else roots.push(sym);
  }
  return roots;
}

export async function workspaceSymbols(workspaces: Workspaces, query: string, cancel?: Cancellation): Promise<SymbolInformation[]> {
  if (!query.trim()) return []; // an empty query is a client listing everything: not useful here
  const answers = await Promise.all(
    workspaces.list().map(async (ws) => ({ ws, res: await ws.engine.search({ query, limit: WORKSPACE_SYMBOL_LIMIT }, cancel) })),
  );
  const scored: Array<{ ws: Workspace; r: SearchResult }> = [];
  for (const { ws, res } of answers) for (const r of res.results) scored.push({ ws, r });
  scored.sort((a, b) => b.r.score - a.r.score);
  const out: SymbolInformation[] = [];
  for (const { ws, r } of scored.slice(0, WORKSPACE_SYMBOL_LIMIT)) {
    const info = toSymbolInformation(ws, r);
    if (info) out.push(info);
  }
  return out;
}

function toSymbolInformation(ws: Workspace, r: SearchResult): SymbolInformation | null {
  if (!r.file) return null;
  const uri = pathToUri(ws.engine.absolutePath(r.file));
  let range = { start: { line: r.line - 1, character: 0 }, end: { line: r.endLine - 1, character: 0 } };
  let qname: string | undefined;
  try {
    // The stored entity has the exact name span; the search row only has lines.
    const e = ws.engine.entity(r.id);
    const ranges = entityRanges(e);
    if (ranges) range = ranges.selectionRange;
    qname = e.qname;
  } catch {
    // Gone since the search ran (an edit in between): the line range still points near it.
  }
  return {
    name: r.name,
    kind: symbolKind(r.kind),
    location: { uri, range },
    containerName: (qname && containerOf(qname)) || r.file,
  };
}
