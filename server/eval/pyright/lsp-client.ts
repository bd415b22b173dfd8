// A minimal LSP client for pyright's language server, used as the reference for CALLS edges.
// It speaks JSON-RPC over stdio through vscode-jsonrpc and answers the few server→client
// requests pyright makes (configuration, progress tokens, capability registration). Every
// request has a timeout, and a pyright that dies fails the pending requests with its exit
// status and last stderr lines instead of leaving them hanging.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import {
  CancellationTokenSource,
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
  /** Python interpreter whose version and search paths pyright uses (default `python3`). */
  pythonPath?: string;
  /** Extra `python.analysis` settings. */
  analysis?: Record<string, unknown>;
  /** Default timeout of one request, in ms (default 60 s). */
  requestTimeoutMs?: number;
  /** Receives pyright's log messages (window/logMessage, stderr) when given. */
  log?: (message: string) => void;
  /**
   * Another reference language server spoken to the same way (the calls-ts eval runs
   * typescript-language-server): its node script and arguments, its settings and the
   * languageId of a file. Default: pyright.
   */
  server?: ReferenceServer;
}

export interface ReferenceServer {
  script: string;
  args: string[];
  languageId(file: string): string;
  settings?(section: string | undefined): unknown;
  initializationOptions?: unknown;
}

export class PyrightError extends Error {}

export function fileUri(file: string): string {
  return pathToFileURL(file).href;
}

export function uriToPath(uri: string): string {
  return fileURLToPath(uri);
}

/** Path of pyright's language-server entry point inside the installed dev dependency. */
export function pyrightServerScript(): string {
  let pkg: string;
  try {
    pkg = require.resolve('pyright/package.json');
  } catch {
    throw new PyrightError('pyright is not installed: it is a dev dependency of this project (npm install --include=dev)');
  }
  const script = path.join(path.dirname(pkg), 'langserver.index.js');
  if (!fs.existsSync(script)) throw new PyrightError(`pyright's language server is missing at ${script}`);
  return script;
}

const STDERR_LINES_KEPT = 20;

export class PyrightClient {
  private exitReason: string | null = null;
  private readonly exitWaiters = new Set<(reason: string) => void>();
  private readonly stderrTail: string[] = [];
  private sourceFiles: number | null = null;
  private readonly readyWaiters = new Set<() => void>();

  private constructor(
    private readonly proc: ChildProcess,
    private readonly conn: MessageConnection,
    private readonly options: PyrightOptions,
  ) {}

  /** Starts `node langserver.index.js --stdio` and initializes it on `options.root`. */
  static async start(options: PyrightOptions): Promise<PyrightClient> {
    const command = options.server ? [options.server.script, ...options.server.args] : [pyrightServerScript(), '--stdio'];
    const proc = spawn(process.execPath, command, {
      cwd: options.root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    const client = new PyrightClient(proc, conn, options);
    proc.on('error', (e) => client.died(`could not run pyright: ${e.message}`));
    proc.on('exit', (code, signal) => client.died(`pyright exited (${signal ? `signal ${signal}` : `code ${code}`})`));
    // A write to a dead process must not crash the run; the exit handler reports it.
    proc.stdin!.on('error', () => undefined);
    proc.stderr!.on('data', (d: Buffer) => client.stderr(d.toString()));
    conn.onError(([e]) => options.log?.(`pyright connection error: ${e.message}`));
    client.wire();
    conn.listen();
    try {
      await client.initialize();
    } catch (e) {
      await client.stop();
      throw e;
    }
    return client;
  }

  private stderr(text: string): void {
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
      this.options.log?.(`pyright stderr: ${line}`);
    }
  }

  private died(reason: string): void {
    if (this.exitReason) return;
    const tail = this.stderrTail.length ? `; last stderr:\n  ${this.stderrTail.join('\n  ')}` : '';
    this.exitReason = reason + tail;
    for (const w of this.exitWaiters) w(this.exitReason);
    this.exitWaiters.clear();
  }

  get alive(): boolean {
    return this.exitReason === null;
  }

  private settings(section: string | undefined): unknown {
    if (this.options.server) return this.options.server.settings?.(section) ?? null;
    const python = {
      pythonPath: this.options.pythonPath ?? 'python3',
      analysis: {
        // Only open files are checked in the background; call hierarchy evaluates what it
        // needs on demand, so a full check of every file would only cost time.
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
    this.conn.onNotification('$/progress', () => undefined);
    this.conn.onNotification('window/logMessage', (p: { message: string }) => {
      this.options.log?.(p.message);
      // pyright answers "no item" until it has enumerated the workspace, which it logs.
      const m = /^Found (\d+) source files?/.exec(p.message);
      if (m && this.sourceFiles === null) {
        this.sourceFiles = Number(m[1]);
        for (const w of this.readyWaiters) w();
        this.readyWaiters.clear();
      }
    });
    this.conn.onNotification('window/showMessage', (p: { message: string }) => this.options.log?.(p.message));
    this.conn.onNotification('textDocument/publishDiagnostics', () => undefined);
    this.conn.onNotification('telemetry/event', () => undefined);
  }

  private async initialize(): Promise<void> {
    const rootUri = fileUri(this.options.root);
    await this.request('initialize', {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.options.root) }],
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true },
        window: { workDoneProgress: true },
        textDocument: {
          callHierarchy: { dynamicRegistration: false },
          synchronization: { dynamicRegistration: false },
        },
      },
      initializationOptions: this.options.server?.initializationOptions ?? {},
    });
    this.conn.sendNotification('initialized', {});
    this.conn.sendNotification('workspace/didChangeConfiguration', { settings: {} });
  }

  /**
   * One request with a timeout (cancelled on expiry) that also fails at once if pyright dies.
   * Errors name the method so a failure in a long run says what was being asked.
   */
  async request<T>(method: string, params: unknown, timeoutMs = this.options.requestTimeoutMs ?? 60_000): Promise<T> {
    if (this.exitReason) throw new PyrightError(this.exitReason);
    const cancel = new CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    let onExit: ((reason: string) => void) | undefined;
    const failure = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        cancel.cancel();
        reject(new PyrightError(`pyright did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      onExit = (reason) => reject(new PyrightError(`${reason} (during ${method})`));
      this.exitWaiters.add(onExit);
    });
    try {
      return await Promise.race([this.conn.sendRequest<T>(method, params, cancel.token), failure]);
    } catch (e) {
      if (e instanceof PyrightError) throw e;
      throw new PyrightError(`pyright failed ${method}: ${(e as Error).message}`);
    } finally {
      clearTimeout(timer);
      if (onExit) this.exitWaiters.delete(onExit);
      cancel.dispose();
    }
  }

  /**
   * Waits until pyright reports how many source files it found (its workspace is loaded), at
   * most `timeoutMs`; returns the count, or null when the message did not come in time.
   */
  async waitForWorkspace(timeoutMs = 120_000): Promise<number | null> {
    if (this.exitReason) throw new PyrightError(this.exitReason);
    if (this.sourceFiles !== null) return this.sourceFiles;
    let timer: NodeJS.Timeout | undefined;
    let onExit: ((reason: string) => void) | undefined;
    let onReady: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        onReady = resolve;
        this.readyWaiters.add(onReady);
        timer = setTimeout(resolve, timeoutMs);
        onExit = (reason) => reject(new PyrightError(reason));
        this.exitWaiters.add(onExit);
      });
    } finally {
      clearTimeout(timer);
      if (onExit) this.exitWaiters.delete(onExit);
      if (onReady) this.readyWaiters.delete(onReady);
    }
    return this.sourceFiles;
  }

  didOpen(file: string, text: string): void {
    this.conn.sendNotification('textDocument/didOpen', {
      textDocument: { uri: fileUri(file), languageId: this.options.server?.languageId(file) ?? 'python', version: 1, text },
    });
  }

  didClose(file: string): void {
    this.conn.sendNotification('textDocument/didClose', { textDocument: { uri: fileUri(file) } });
  }

  async prepareCallHierarchy(file: string, position: LspPosition, timeoutMs?: number): Promise<CallHierarchyItem[]> {
    const res = await this.request<CallHierarchyItem[] | null>(
      'textDocument/prepareCallHierarchy',
      { textDocument: { uri: fileUri(file) }, position },
      timeoutMs,
    );
    return res ?? [];
  }

  async outgoingCalls(item: CallHierarchyItem, timeoutMs?: number): Promise<OutgoingCall[]> {
    const res = await this.request<OutgoingCall[] | null>('callHierarchy/outgoingCalls', { item }, timeoutMs);
    return res ?? [];
  }

  /** Polite shutdown, then a kill of this process only if it does not leave in time. */
  async stop(): Promise<void> {
    if (this.alive) {
      try {
        await this.request('shutdown', null, 3000);
        this.conn.sendNotification('exit');
      } catch {
        // Already gone or not answering; the kill below covers it.
      }
      await new Promise<void>((resolve) => {
        if (!this.alive) return resolve();
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
