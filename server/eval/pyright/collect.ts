// Asks pyright for the outgoing calls of every function and method: prepareCallHierarchy at
// the entity's name, then callHierarchy/outgoingCalls, a few requests in flight at once (the
// server answers in order; pipelining only hides the round trips). Produces CallFacts.
import * as path from 'node:path';
import type { CallFact, Pos } from './compare';
import { PyrightError, uriToPath, type CallHierarchyItem, type PyrightClient } from './lsp-client';

export interface Caller {
  id: string;
  /** Workspace-relative file. */
  file: string;
  /** Start of the entity's name (0-based row, UTF-16 column). */
  name: Pos;
}

export interface CollectOptions {
  concurrency?: number;
  timeoutMs?: number;
  /** After this many timeouts in a row pyright is taken as stuck and the run fails. */
  maxConsecutiveTimeouts?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface Collected {
  facts: CallFact[];
  /** Callers pyright found no call-hierarchy item for (after one retry). */
  notPrepared: string[];
  /**
   * Callers pyright answers for another def: asked at a redefinition's name (property getter
   * and setter, conditional defs), it prepares the last def of that name. Asking that one
   * yields its calls; these callers have no pyright answer of their own.
   */
  answeredElsewhere: string[];
  /** Callers whose requests failed (timeouts), with the reason. */
  failed: Array<{ id: string; error: string }>;
  asked: number;
  ms: number;
}

/** Workspace-relative `/` path of a file URI, or null when it lies outside `root`. */
export function workspaceFile(root: string, uri: string): string | null {
  if (!uri.startsWith('file:')) return null;
  const rel = path.relative(root, uriToPath(uri));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

const toPos = (p: { line: number; character: number }): Pos => ({ row: p.line, column: p.character });

export async function collectPyrightCalls(client: PyrightClient, root: string, callers: Caller[], opts: CollectOptions = {}): Promise<Collected> {
  const started = Date.now();
  const facts: CallFact[] = [];
  const failed: Array<{ id: string; error: string }> = [];
  const empty: Caller[] = [];
  const notPrepared: Caller[] = [];
  const answeredElsewhere: string[] = [];
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const maxTimeouts = opts.maxConsecutiveTimeouts ?? 5;
  let timeoutsInRow = 0;
  let done = 0;
  let asked = 0;

  const ask = async (c: Caller, retry: boolean): Promise<void> => {
    const noItem = retry ? empty : notPrepared;
    asked++;
    const abs = path.join(root, c.file);
    try {
      const items = await client.prepareCallHierarchy(abs, { line: c.name.row, character: c.name.column }, timeoutMs);
      if (!items.length) {
        noItem.push(c);
        return;
      }
      // The item for the def itself: its name starts where ours does.
      const item: CallHierarchyItem | undefined = items.find(
        (i) => i.selectionRange.start.line === c.name.row && i.selectionRange.start.character === c.name.column,
      );
      if (!item) {
        answeredElsewhere.push(c.id);
        return;
      }
      const calls = await client.outgoingCalls(item, timeoutMs);
      timeoutsInRow = 0;
      for (const call of calls) {
        const file = workspaceFile(root, call.to.uri);
        const start = call.to.selectionRange.start;
        const target: CallFact['target'] = file
          ? { kind: 'location', file, pos: toPos(start), name: call.to.name }
          : { kind: 'external', name: call.to.name, where: externalPlace(call.to.uri) };
        for (const r of call.fromRanges) facts.push({ caller: c.id, file: c.file, site: toPos(r.start), target });
      }
    } catch (e) {
      if (!(e instanceof PyrightError) || !client.alive) throw e;
      if (/did not answer/.test(e.message) && ++timeoutsInRow >= maxTimeouts) {
        throw new PyrightError(`pyright stopped answering: ${maxTimeouts} requests in a row timed out (last: ${e.message})`);
      }
      failed.push({ id: c.id, error: e.message });
    }
  };

  const pool = async (list: Caller[], retry: boolean) => {
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const c = list[next++];
        await ask(c, retry);
        if (retry) opts.onProgress?.(++done, callers.length);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));
  };

  await pool(callers, true);
  // pyright may answer "nothing here" while it still loads the workspace; ask those once more.
  await pool(empty, false);
  return { facts, notPrepared: notPrepared.map((c) => c.id), answeredElsewhere, failed, asked, ms: Date.now() - started };
}

/** A short name for a place outside the workspace: `typeshed:builtins.pyi`, `site-packages:x/y.py`. */
function externalPlace(uri: string): string {
  const m = /typeshed-fallback\/(?:stdlib|stubs)\/(.*)$/.exec(uri);
  if (m) return `typeshed:${m[1]}`;
  const s = /(?:site|dist)-packages\/(.*)$/.exec(uri);
  if (s) return `site-packages:${s[1]}`;
  return uri;
}
