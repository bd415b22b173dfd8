// A minimal LSP client for pyright's language server, used as the reference for CALLS edges.
// It speaks JSON-RPC over stdio through vscode-jsonrpc and answers the few server→client
// requests pyright makes (configuration, progress tokens, capability registration).
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

export interface LspPosition {
  line: number;
  character: number;
}
export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** LSP SymbolKind values we care about. */
export const SymbolKind = { Class: 5, Method: 6, Function: 12 } as const;

export interface DocumentSymbol {
  name: string;
  kind: number;
  range: LspRange;
  selectionRange: LspRange;
  children?: DocumentSymbol[];
}

export interface CallHierarchyItem {
  name: string;
  kind: number;
  uri: string;
  range: LspRange;
  selectionRange: LspRange;
  detail?: string;
  data?: unknown;
}

export interface OutgoingCall {
  to: CallHierarchyItem;
  fromRanges: LspRange[];
}

export interface PyrightOptions {
  /** Workspace folder pyright analyses. */
  root: string;
  /** Python interpreter whose search paths pyright uses (default `python3` on PATH). */
  pythonPath?: string;
  /** Extra `python.analysis` settings. */
  analysis?: Record<string, unknown>;
  /** Receives pyright's log messages (window/logMessage) when given. */
  log?: (message: string) => void;
}

export function fileUri(file: string): string {
  return pathToFileURL(file).href;
}

export function uriToPath(uri: string): string {
  return fileURLToPath(uri);
}

/** Path of pyright's language-server entry point inside the installed dev dependency. */
export function pyrightServerScript(): string {
  return path.join(path.dirname(require.resolve('pyright/package.json')), 'langserver.index.js');
}

export class PyrightClient {
  private progressActive = new Set<string | number>();
  private progressEnded = 0;
  private exited = false;

  private constructor(
    private readonly proc: ChildProcess,
    private readonly conn: MessageConnection,
    private readonly options: PyrightOptions,
  ) {}

  /** Starts `node langserver.index.js --stdio`, initializes it on `options.root`. */
  static async start(options: PyrightOptions): Promise<PyrightClient> {
    const proc = spawn(process.execPath, [pyrightServerScript(), '--stdio'], {
      cwd: options.root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const conn = createMessageConnection(
      new StreamMessageReader(proc.stdout!),
      new StreamMessageWriter(proc.stdin!),
    );
    const client = new PyrightClient(proc, conn, options);
    proc.on('exit', () => {
      client.exited = true;
    });
    proc.stderr!.on('data', (d: Buffer) => options.log?.(`pyright stderr: ${d.toString().trim()}`));
    client.wire();
    conn.listen();
    await client.initialize();
    return client;
  }

  private settings(section: string | undefined): unknown {
    const python = {
      pythonPath: this.options.pythonPath ?? 'python3',
      analysis: {
        // Only open files are checked: the requests below evaluate what they need lazily,
        // so a full background check of every file would only cost time.
        diagnosticMode: 'openFilesOnly',
        typeCheckingMode: 'off',
        autoSearchPaths: false,
        useLibraryCodeForTypes: true,
        ...this.options.analysis,
      },
    };
    if (section === 'python') return python;
    if (section === 'python.analysis') return python.analysis;
    if (section === 'pyright') return {};
    return null;
  }

  private wire(): void {
    this.conn.onRequest('workspace/configuration', (params: { items: Array<{ section?: string }> }) =>
      params.items.map((item) => this.settings(item.section)),
    );
    this.conn.onRequest('window/workDoneProgress/create', () => null);
    this.conn.onRequest('client/registerCapability', () => null);
    this.conn.onRequest('client/unregisterCapability', () => null);
    this.conn.onRequest('workspace/workspaceFolders', () => [
      { uri: fileUri(this.options.root), name: path.basename(this.options.root) },
    ]);
    this.conn.onNotification('$/progress', (p: { token: string | number; value: { kind: string } }) => {
      if (p.value.kind === 'begin') this.progressActive.add(p.token);
      if (p.value.kind === 'end') {
        this.progressActive.delete(p.token);
        this.progressEnded++;
      }
    });
    this.conn.onNotification('window/logMessage', (p: { message: string }) => this.options.log?.(p.message));
    this.conn.onNotification('textDocument/publishDiagnostics', () => undefined);
    this.conn.onNotification('pyright/beginProgress', () => {
      this.progressActive.add('pyright');
    });
    this.conn.onNotification('pyright/endProgress', () => {
      this.progressActive.delete('pyright');
      this.progressEnded++;
    });
  }

  private async initialize(): Promise<void> {
    const rootUri = fileUri(this.options.root);
    await this.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.options.root) }],
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true },
        window: { workDoneProgress: true },
        textDocument: {
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          callHierarchy: { dynamicRegistration: false },
        },
      },
      initializationOptions: {},
    });
    this.conn.sendNotification('initialized', {});
    this.conn.sendNotification('workspace/didChangeConfiguration', { settings: {} });
  }

  /**
   * Waits until pyright has no analysis progress running and has been quiet for `quietMs`.
   * With diagnosticMode openFilesOnly there is little background work, but pyright still
   * enumerates the workspace first; a request sent earlier simply waits for it.
   */
  async waitIdle(quietMs = 500, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let quietSince = Date.now();
    let lastEnded = this.progressEnded;
    while (Date.now() < deadline) {
      if (this.exited) throw new Error('pyright exited while starting');
      if (this.progressActive.size > 0 || this.progressEnded !== lastEnded) {
        quietSince = Date.now();
        lastEnded = this.progressEnded;
      } else if (Date.now() - quietSince >= quietMs) {
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`pyright did not become idle within ${timeoutMs} ms`);
  }

  async documentSymbols(file: string): Promise<DocumentSymbol[]> {
    const res = await this.conn.sendRequest<DocumentSymbol[] | null>('textDocument/documentSymbol', {
      textDocument: { uri: fileUri(file) },
    });
    return res ?? [];
  }

  async prepareCallHierarchy(file: string, position: LspPosition): Promise<CallHierarchyItem[]> {
    const res = await this.conn.sendRequest<CallHierarchyItem[] | null>('textDocument/prepareCallHierarchy', {
      textDocument: { uri: fileUri(file) },
      position,
    });
    return res ?? [];
  }

  async outgoingCalls(item: CallHierarchyItem): Promise<OutgoingCall[]> {
    const res = await this.conn.sendRequest<OutgoingCall[] | null>('callHierarchy/outgoingCalls', { item });
    return res ?? [];
  }

  /** Polite shutdown, then a kill of this process only if it does not leave in time. */
  async stop(): Promise<void> {
    if (!this.exited) {
      try {
        await Promise.race([this.conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 3000))]);
        this.conn.sendNotification('exit');
      } catch {
        // The connection may already be gone; the kill below covers it.
      }
      await new Promise<void>((resolve) => {
        if (this.exited) return resolve();
        const timer = setTimeout(() => {
          this.proc.kill('SIGKILL');
          resolve();
        }, 3000);
        this.proc.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.conn.dispose();
  }
}
