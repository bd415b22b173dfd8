// "3 callers · 5 callees" above every function, method and class; clicking it runs the client's
// `nsccn.showCallers` command. Lenses are listed cheaply
// (one fileEntities call) and counted lazily in codeLens/resolve, for the lenses on screen only.
// After the graph changes (an edit here changes the counts shown in other files), the client is
// asked to refresh its lenses, debounced so a burst of edits or an index run asks once.
import type { CodeLens, Connection } from 'vscode-languageserver/node';
import { CodeLensRefreshRequest } from 'vscode-languageserver/node';
import { Commands, type ShowCallersArgs } from '../../../protocol';
import { callCounts, callCountsTitle } from './callHierarchy';
import { entityRanges } from './convert';
import { describe, type Logger } from './errors';
import * as P from './params';
import type { Workspaces } from './workspaces';

const LENS_KINDS = new Set(['function', 'method', 'class']);
export const REFRESH_DEBOUNCE_MS = 300;

interface LensData {
  uri: string;
  id: string;
}

export function codeLenses(workspaces: Workspaces, uri: string): CodeLens[] {
  const { ws, path } = workspaces.route(uri);
  const lenses: CodeLens[] = [];
  for (const e of ws.engine.fileEntities(path)) {
    if (!LENS_KINDS.has(e.kind)) continue;
    const ranges = entityRanges(e);
    if (!ranges) continue;
    const data: LensData = { uri, id: e.id };
    lenses.push({ range: ranges.selectionRange, data });
  }
  return lenses;
}

export function resolveCodeLens(workspaces: Workspaces, method: string, raw: unknown): CodeLens {
  const lens = P.object(method, raw, 'code lens');
  const data = P.object(method, lens.data, "'data'");
  const uri = P.string(method, data, 'uri');
  const id = P.string(method, data, 'id');
  const { ws } = workspaces.route(uri);
  ws.engine.entity(id); // gone since the lens was listed: UnknownEntity, not a made-up "0 callers"
  const title = callCountsTitle(callCounts(ws.engine, id));
  // Clicking the lens shows the callers: a client-side command (Neovim: location list, Emacs:
  // xref); a client without it shows the title only.
  const args: ShowCallersArgs = { id, uri };
  return { ...(lens as unknown as CodeLens), command: { title, command: Commands.showCallers, arguments: [args] } };
}

/** Sends workspace/codeLens/refresh after graph changes, at most once per quiet period. */
export class CodeLensRefresher {
  private timer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(
    private readonly connection: Connection,
    private readonly log: Logger,
    private readonly debounceMs = REFRESH_DEBOUNCE_MS,
  ) {}

  schedule(): void {
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connection
        .sendRequest(CodeLensRefreshRequest.type)
        .catch((e: unknown) => this.log(`workspace/codeLens/refresh failed: ${describe(e)}`));
    }, this.debounceMs);
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
