// The server's lifecycle: initialize (open one engine per folder), initialized (watch files,
// index in the background), folder changes, shutdown (close every engine). Also holds what the
// client said it can do, which the features consult.
import * as path from 'node:path';
import {
  ErrorCodes as RpcErrorCodes,
  ResponseError,
  TextDocumentSyncKind,
  type ClientCapabilities,
  type Connection,
  type InitializeParams,
  type InitializeResult,
  type WorkspaceFoldersChangeEvent,
} from 'vscode-languageserver/node';
import { pathToUri } from './convert';
import { describe, type Logger } from './errors';
import { OpenDocuments } from './documents';
import { BackgroundIndexer } from './progress';
import { CodeLensRefresher } from './codeLens';
import { parseSettings } from './settings';
import { WatchedFiles } from './watched';
import { Workspaces, type WorkspaceFolderRef } from './workspaces';

export class Session {
  readonly workspaces: Workspaces;
  readonly documents: OpenDocuments;
  readonly log: Logger;
  private capabilities: ClientCapabilities = {};
  private watched: WatchedFiles | null = null;
  private readonly indexer: BackgroundIndexer;
  private readonly lensRefresher: CodeLensRefresher;
  /** Folder additions/removals, applied one after another. */
  private folderChanges: Promise<void> = Promise.resolve();
  private shutDown = false;
  /** initialize has been received (requests other than initialize are served from then on). */
  private initializeReceived = false;

  constructor(private readonly connection: Connection) {
    this.log = (m) => connection.console.info(m);
    this.workspaces = new Workspaces(this.log);
    this.documents = new OpenDocuments(this.workspaces, this.log, (m) => {
      this.log(m);
      void connection.window.showWarningMessage(m);
    });
    this.indexer = new BackgroundIndexer(connection, this.workspaces, this.log, () => this.clientShowsProgress());
    this.lensRefresher = new CodeLensRefresher(connection, this.log);
    this.workspaces.onDidChangeGraph(() => {
      if (this.capabilities.workspace?.codeLens?.refreshSupport) this.lensRefresher.schedule();
    });
  }

  /** Throws the spec's error for a request the lifecycle does not allow now. */
  checkRequest(method: string): void {
    if (this.shutDown) throw new ResponseError(RpcErrorCodes.InvalidRequest, `${method}: the server has been shut down; only exit is accepted`);
    if (method === 'initialize') {
      if (this.initializeReceived) throw new ResponseError(RpcErrorCodes.InvalidRequest, 'initialize: the server is already initialized');
      this.initializeReceived = true;
    } else if (!this.initializeReceived) {
      throw new ResponseError(RpcErrorCodes.ServerNotInitialized, `${method}: the server is not initialized; send initialize first`);
    }
  }

  /** Notifications before initialize and after shutdown are dropped (exit is the library's). */
  get acceptsNotifications(): boolean {
    return this.initializeReceived && !this.shutDown;
  }

  get isShutDown(): boolean {
    return this.shutDown;
  }

  /**
   * Settled once `initialize` has opened the folders. The spec has the client wait for its
   * answer before other requests; Neovim does not, and a request answered meanwhile would see
   * no workspace (an empty workspace/symbol, a status "ready" with no files). They wait for it.
   */
  initializing: Promise<void> | null = null;

  initialize(params: InitializeParams): Promise<InitializeResult> {
    const answer = this.openFolders(params);
    const settled = answer.then(
      () => undefined,
      () => undefined,
    );
    this.initializing = settled.then(() => {
      this.initializing = null;
    });
    return answer;
  }

  private async openFolders(params: InitializeParams): Promise<InitializeResult> {
    this.capabilities = params.capabilities ?? {};
    const { settings, warnings } = parseSettings(params.initializationOptions);
    warnings.forEach((w) => this.log(w));
    this.workspaces.configure(settings);
    this.watched = new WatchedFiles(this.connection, this.workspaces, this.log, settings.usePolling);
    await this.workspaces.add(initialFolders(params));
    for (const f of this.workspaces.failures()) {
      void this.connection.window.showErrorMessage(`NSCCN: the index of ${f.root} could not be opened: ${f.reason}`);
    }
    return {
      serverInfo: { name: 'nsccn' },
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        documentSymbolProvider: true,
        workspaceSymbolProvider: true,
        callHierarchyProvider: true,
        typeHierarchyProvider: true,
        implementationProvider: true,
        codeLensProvider: { resolveProvider: true },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
    };
  }

  async initialized(): Promise<void> {
    const folders = this.workspaces.list();
    if (this.capabilities.workspace?.workspaceFolders) {
      this.connection.workspace.onDidChangeWorkspaceFolders((e) => this.foldersChanged(e));
    }
    const canRegister = this.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration === true;
    const watching = this.watched?.start(canRegister, folders) ?? Promise.resolve();
    // Our own watcher must be ready before discovery walks the tree, or a file created in
    // between would be missed by both. The client's watcher needs no such wait. (Starting the
    // run first and stat-ing again once the watcher is ready was tried: the first answers came
    // sooner — the stdlib's first MCP call ~660 → ~325 ms — but, most likely, a file created while
    // the watcher walks the tree is unknown to it, so its deletion is never reported; with `ready` said
    // before the watcher that window fell where clients work: lsp-live failed 2 of 3 full runs.)
    if (!canRegister) await watching;
    this.indexer.schedule(folders);
    await watching;
  }

  /** True while any folder is waiting for, or in, its first index run. */
  indexing(): boolean {
    return this.indexer.busy();
  }

  get watchedFiles(): WatchedFiles | null {
    return this.watched;
  }

  async shutdown(): Promise<void> {
    if (this.shutDown) return;
    this.shutDown = true;
    this.indexer.stop();
    this.lensRefresher.dispose();
    this.documents.dispose();
    await this.folderChanges;
    await this.watched?.dispose();
    await this.workspaces.closeAll();
  }

  private clientShowsProgress(): boolean {
    return this.capabilities.window?.workDoneProgress === true;
  }

  private foldersChanged(e: WorkspaceFoldersChangeEvent): void {
    this.folderChanges = this.folderChanges.then(async () => {
      if (this.shutDown) return;
      try {
        const removed = await this.workspaces.remove(e.removed.map((f) => f.uri));
        for (const ws of removed) {
          this.documents.forget(ws);
          await this.watched?.removed(ws);
        }
        const added = await this.workspaces.add(e.added);
        for (const ws of added) await this.watched?.added(ws);
        this.indexer.schedule(added);
      } catch (err) {
        this.log(`workspace folder change failed: ${describe(err)}`);
      }
    });
  }
}

/** `workspaceFolders` when given, else the legacy `rootUri` / `rootPath`. */
function initialFolders(params: InitializeParams): WorkspaceFolderRef[] {
  if (params.workspaceFolders && params.workspaceFolders.length) return params.workspaceFolders;
  if (params.rootUri) return [{ uri: params.rootUri, name: '' }];
  if (params.rootPath) return [{ uri: pathToUri(path.resolve(params.rootPath)), name: '' }];
  return [];
}
