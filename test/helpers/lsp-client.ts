// A JSON-RPC client that drives the real NSCCN language server over stdio, for end-to-end
// tests. It plays an editor: answers the server's requests (progress tokens, capability
// registration, code lens refresh) and records them so tests can check what the server asked.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import type { StatusResponse } from '../../protocol';

export const REPO = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO, 'dist', 'server', 'src', 'cli', 'main.js');
const SERVER_MODULE = path.join(REPO, 'dist', 'server', 'src', 'lsp', 'server.js');

/** `nsccn lsp --stdio` when the CLI is built, else the server module's entry point directly. */
export function serverCommand(): string[] {
  if (fs.existsSync(CLI) && process.env.NSCCN_LSP_DIRECT !== '1') return [CLI, 'lsp', '--stdio'];
  if (!fs.existsSync(SERVER_MODULE)) {
    throw new Error(`${SERVER_MODULE} is missing: build first with \`npx tsc -p tsconfig.json\``);
  }
  return ['-e', `require(${JSON.stringify(SERVER_MODULE)}).runLanguageServer()`];
}

export function fileUri(p: string): string {
  return pathToFileURL(p).href;
}

export interface ProgressEvent {
  token: string | number;
  value: { kind: 'begin' | 'report' | 'end'; title?: string; percentage?: number; message?: string };
}

export interface StartOptions {
  /** Workspace folders (absolute paths). */
  folders: string[];
  /** Send only `rootUri` (the legacy way) instead of workspaceFolders. */
  legacyRoot?: boolean;
  initializationOptions?: unknown;
  /** Client capabilities switched on (default: all true). */
  progress?: boolean;
  dynamicWatch?: boolean;
  codeLensRefresh?: boolean;
  /** Start `nsccn lsp` without `--stdio` (stdio is the default transport). */
  noStdioFlag?: boolean;
}

export class LspClient {
  readonly progress: ProgressEvent[] = [];
  readonly registrations: Array<{ method: string; registerOptions?: unknown }> = [];
  readonly logs: string[] = [];
  codeLensRefreshes = 0;
  /** The server's capabilities from its initialize answer. */
  capabilities: Record<string, unknown> = {};
  stderr = '';
  readonly exited: Promise<number | null>;
  private exitCode: number | null | undefined;

  private constructor(
    readonly proc: ChildProcess,
    readonly conn: MessageConnection,
  ) {
    this.exited = new Promise((resolve) =>
      proc.once('exit', (code) => {
        this.exitCode = code;
        resolve(code);
      }),
    );
    proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  static async start(opts: StartOptions): Promise<LspClient> {
    const command = serverCommand().filter((a) => !(opts.noStdioFlag && a === '--stdio'));
    const proc = spawn(process.execPath, command, { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    const client = new LspClient(proc, conn);
    client.wire();
    conn.listen();
    await client.initialize(opts);
    return client;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  request<R>(method: string, params?: unknown): Promise<R> {
    return params === undefined ? this.conn.sendRequest<R>(method) : this.conn.sendRequest<R>(method, params);
  }

  notify(method: string, params: unknown): Promise<void> {
    return this.conn.sendNotification(method, params);
  }

  open(uri: string, text: string, version = 1): Promise<void> {
    return this.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text } });
  }

  change(uri: string, version: number, contentChanges: unknown[]): Promise<void> {
    return this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges });
  }

  close(uri: string): Promise<void> {
    return this.notify('textDocument/didClose', { textDocument: { uri } });
  }

  status(): Promise<StatusResponse> {
    return this.request<StatusResponse>('nsccn/status', {});
  }

  /** Polls nsccn/status until the initial index run is over. */
  async waitReady(timeoutMs = 60_000): Promise<StatusResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.status();
      if (s.state === 'ready') return s;
      if (Date.now() > deadline) throw new Error(`server still indexing after ${timeoutMs} ms: ${JSON.stringify(s)}`);
      await sleep(50);
    }
  }

  /** Retries `probe` until it returns true (answers that depend on a file watcher's timing). */
  async eventually(probe: () => Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
      await sleep(100);
    }
  }

  /** shutdown + exit, as an editor does; resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.running) {
      try {
        await this.request('shutdown');
        await this.notify('exit', undefined);
      } catch {
        // Already gone: the exit below reports how.
      }
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
    this.conn.dispose();
    return this.exitCode ?? null;
  }

  private wire(): void {
    this.conn.onRequest('window/workDoneProgress/create', () => null);
    this.conn.onRequest('client/registerCapability', (p: { registrations: Array<{ method: string; registerOptions?: unknown }> }) => {
      this.registrations.push(...p.registrations);
      return null;
    });
    this.conn.onRequest('client/unregisterCapability', () => null);
    this.conn.onRequest('workspace/codeLens/refresh', () => {
      this.codeLensRefreshes++;
      return null;
    });
    this.conn.onRequest('window/showMessageRequest', (p: { message: string }) => {
      this.logs.push(p.message);
      return null;
    });
    this.conn.onNotification('$/progress', (p: ProgressEvent) => this.progress.push(p));
    this.conn.onNotification('window/logMessage', (p: { message: string }) => this.logs.push(p.message));
    this.conn.onNotification('window/showMessage', (p: { message: string }) => this.logs.push(p.message));
  }

  private async initialize(opts: StartOptions): Promise<void> {
    const folders = opts.folders.map((f) => ({ uri: fileUri(f), name: path.basename(f) }));
    const init = await this.conn.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', {
      processId: process.pid,
      rootUri: folders[0]?.uri ?? null,
      ...(opts.legacyRoot ? {} : { workspaceFolders: folders }),
      capabilities: {
        window: { workDoneProgress: opts.progress ?? true },
        workspace: {
          workspaceFolders: true,
          didChangeWatchedFiles: { dynamicRegistration: opts.dynamicWatch ?? true },
          codeLens: { refreshSupport: opts.codeLensRefresh ?? true },
        },
        textDocument: {
          synchronization: { dynamicRegistration: false },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          callHierarchy: { dynamicRegistration: false },
        },
      },
      initializationOptions: opts.initializationOptions,
    });
    this.capabilities = init.capabilities;
    await this.conn.sendNotification('initialized', {});
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A temp directory removed by the returned cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Copies `fixtures/python/shop` to `<dir>/shop` (the index goes to `<dir>/.nsccn`). */
export function copyShop(dir: string): void {
  fs.cpSync(path.join(REPO, 'fixtures', 'python', 'shop'), path.join(dir, 'shop'), { recursive: true });
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}
