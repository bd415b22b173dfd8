// Live buffers. The editor's text is the truth for an open file. Changes are batched: a burst
// of keystrokes reaches the engine as one changeDocument (one incremental reparse, one graph
// update) when the burst goes quiet, or at once when a request arrives — every request first
// calls flush(), so answers always reflect every unsaved edit. didClose hands the file back to
// its disk content. Operations on one URI stay in order even when a close (async) is running.
// No edit is dropped silently: an edit that cannot be applied (out of order, or failing) makes
// the server forget the buffer (it answers from the saved file) and tells the user to reopen it.
import type {
  DidChangeTextDocumentParams,
  DidCloseTextDocumentParams,
  DidOpenTextDocumentParams,
} from 'vscode-languageserver/node';
import type { TextChange } from '../engine';
import { invalidParams, type Logger } from './errors';
import * as P from './params';
import type { Routed, Workspace, Workspaces } from './workspaces';

/** Quiet time after which batched changes are applied without waiting for a request. */
export const CHANGE_BATCH_MS = 20;

interface Batch {
  routed: Routed;
  changes: TextChange[];
  version: number;
}

export class OpenDocuments {
  private readonly docs = new Map<string, Routed>();
  /** Per URI: changes received but not yet applied. */
  private readonly batches = new Map<string, Batch>();
  private batchTimer: NodeJS.Timeout | null = null;
  /** Per URI: the close still running, after which queued operations of that URI run. */
  private readonly busy = new Map<string, Promise<void>>();
  private readonly outsideLogged = new Set<string>();
  /** Per URI: the last version received (edits must come in order). */
  private readonly versions = new Map<string, number>();
  /** Opens waiting for the grammars (a buffer opened as the server starts). */
  private readonly opening = new Set<Promise<void>>();
  /** URIs whose buffer is too large to index (told once per transition). */
  private readonly unindexed = new Set<string>();

  constructor(
    private readonly workspaces: Workspaces,
    private readonly log: Logger,
    /** Says something the user should see (window/showMessage). */
    private readonly tell: Logger = log,
  ) {}

  open(params: DidOpenTextDocumentParams): void {
    const method = 'textDocument/didOpen';
    const doc = P.object(method, P.object(method, params).textDocument, "'textDocument'");
    const uri = P.string(method, doc, 'uri');
    if (typeof doc.text !== 'string') throw invalidParams(method, "'textDocument.text' must be a string");
    const text = doc.text;
    const version = typeof doc.version === 'number' ? doc.version : 0;
    this.inOrder(uri, () => {
      const routed = this.workspaces.tryRoute(uri);
      if (!routed) {
        if (!this.outsideLogged.has(uri)) this.log(`${uri} is outside every workspace folder: not indexed`);
        this.outsideLogged.add(uri);
        return;
      }
      if (!this.workspaces.isIndexable(routed)) return;
      const openNow = () => {
        this.flushUri(uri);
        const state = routed.ws.engine.openDocument(routed.path, text, version);
        this.docs.set(uri, routed);
        this.versions.set(uri, version);
        this.unindexed.delete(uri);
        if (state) this.report(uri, state);
      };
      // Opened while the server starts, before its grammars are loaded: the buffer's edits wait
      // behind it (inOrder), and so do requests (`waiting`).
      const grammars = routed.ws.engine.grammarsPending();
      if (!grammars) return openNow();
      const opened = grammars.then(openNow, (e: unknown) => {
        this.tell(`NSCCN: ${uri} is answered from the saved file: the parsers could not be loaded (${e instanceof Error ? e.message : String(e)})`);
      });
      this.opening.add(opened);
      return opened.finally(() => this.opening.delete(opened));
    });
  }

  /**
   * Null when no buffer waits to be opened; else when every one has been (or failed to be), with
   * the edits and closes queued behind it.
   */
  waiting(): Promise<void> | null {
    return this.opening.size ? Promise.allSettled([...this.busy.values()]).then(() => undefined) : null;
  }

  change(params: DidChangeTextDocumentParams): void {
    const method = 'textDocument/didChange';
    const uri = P.textDocumentUri(method, params);
    const version = (params.textDocument as { version?: unknown }).version;
    // Checked as a whole before any is applied: a half-applied batch would desynchronise the buffer.
    const changes = contentChanges(method, (params as { contentChanges?: unknown }).contentChanges);
    this.inOrder(uri, () => {
      const routed = this.docs.get(uri);
      if (!routed) return; // not a document we index
      const last = this.versions.get(uri) ?? 0;
      const v = typeof version === 'number' ? version : last + 1;
      if (!Number.isInteger(v) || v <= last) {
        this.flushUri(uri);
        this.desync(uri, routed, `edit version ${JSON.stringify(version)} arrived after version ${last}`);
        return;
      }
      this.versions.set(uri, v);
      const batch = this.batches.get(uri) ?? { routed, changes: [], version: v };
      for (const c of changes) batch.changes.push(c); // no spread: a change list can be huge
      batch.version = v;
      this.batches.set(uri, batch);
      if (this.batchTimer) clearTimeout(this.batchTimer);
      this.batchTimer = setTimeout(() => this.flush(), CHANGE_BATCH_MS);
    });
  }

  /** Applies every batched change (each request calls this before it reads the graph). */
  flush(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    for (const uri of [...this.batches.keys()]) this.flushUri(uri);
  }

  close(params: DidCloseTextDocumentParams): void {
    const uri = P.textDocumentUri('textDocument/didClose', params);
    this.inOrder(uri, () => {
      const routed = this.docs.get(uri);
      this.outsideLogged.delete(uri);
      if (!routed) return;
      this.flushUri(uri);
      this.forgetUri(uri);
      return routed.ws.engine.closeDocument(routed.path);
    });
  }

  /** Drops the documents of a removed workspace folder (its engine is closed). */
  forget(ws: Workspace): void {
    for (const [uri, d] of this.docs) {
      if (d.ws !== ws) continue;
      this.forgetUri(uri);
      this.batches.delete(uri);
    }
  }

  dispose(): void {
    if (this.batchTimer) clearTimeout(this.batchTimer);
    this.batchTimer = null;
    this.batches.clear();
  }

  private flushUri(uri: string): void {
    const batch = this.batches.get(uri);
    if (!batch) return;
    this.batches.delete(uri);
    try {
      const state = batch.routed.ws.engine.changeDocument(batch.routed.path, batch.changes, batch.version);
      if (state) this.report(uri, state);
    } catch (e) {
      this.desync(uri, batch.routed, `${batch.changes.length} change(s) could not be applied: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Tells the user when a buffer stops or starts being indexed because of its size. */
  private report(uri: string, state: { indexed: boolean; reason?: string }): void {
    if (!state.indexed && !this.unindexed.has(uri)) {
      this.unindexed.add(uri);
      this.tell(`NSCCN: ${state.reason ?? `${uri} is not indexed`}`);
    } else if (state.indexed && this.unindexed.delete(uri)) {
      this.log(`${uri}: the buffer is small enough again and indexed`);
    }
  }

  /**
   * The server's copy of a buffer can no longer be trusted: forget it (the engine answers from
   * the saved file), ignore its further edits, and tell the user how to resync.
   */
  private desync(uri: string, routed: Routed, why: string): void {
    this.forgetUri(uri);
    this.batches.delete(uri);
    this.tell(`NSCCN: lost track of the unsaved changes of ${uri} (${why}); answering from the saved file until it is reopened`);
    this.inOrder(uri, () => routed.ws.engine.closeDocument(routed.path));
  }

  private forgetUri(uri: string): void {
    this.docs.delete(uri);
    this.versions.delete(uri);
    this.unindexed.delete(uri);
  }

  /**
   * Runs `op` now, or after the pending close of the same URI. Sync operations stay sync when
   * nothing is pending, which is what makes edits visible to the very next request.
   */
  private inOrder(uri: string, op: () => void | Promise<void>): void {
    const pending = this.busy.get(uri);
    const run = (): void | Promise<void> => {
      try {
        return op();
      } catch (e) {
        this.log(`${uri}: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
    const settle = (p: Promise<void>): void => {
      const tracked = p
        .catch((e: unknown) => this.log(`${uri}: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => {
          if (this.busy.get(uri) === tracked) this.busy.delete(uri);
        });
      this.busy.set(uri, tracked);
    };
    if (pending) {
      settle(pending.then(() => run()));
      return;
    }
    const result = run();
    if (result instanceof Promise) settle(result);
  }
}

function contentChanges(method: string, raw: unknown): TextChange[] {
  if (!Array.isArray(raw)) throw invalidParams(method, "'contentChanges' must be an array");
  return raw.map((c, i) => {
    const o = P.object(method, c, `contentChanges[${i}]`);
    if (typeof o.text !== 'string') throw invalidParams(method, `contentChanges[${i}].text must be a string`);
    if (o.range === undefined || o.range === null) return { text: o.text };
    const range = P.object(method, o.range, `contentChanges[${i}].range`);
    const start = P.position(method, range.start, `contentChanges[${i}].range.start`);
    const end = P.position(method, range.end, `contentChanges[${i}].range.end`);
    if (start.line > end.line || (start.line === end.line && start.character > end.character)) {
      throw invalidParams(method, `contentChanges[${i}].range ends before it starts`);
    }
    return { range: { start, end }, text: o.text };
  });
}
