// The language server the adapter speaks to: `nsccn lsp --stdio` as a child process, over
// vscode-jsonrpc. The adapter holds no graph of its own; every answer comes from here, so an
// agent and an editor see the same graph. A child that dies is replaced on the next request;
// requests in flight when it died fail with ChildGone (the caller says "call again").
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';
import {
  CancellationTokenSource,
  createMessageConnection,
  ErrorCodes as RpcErrorCodes,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type MessageConnection,
} from 'vscode-jsonrpc/node';

export interface ChildCommand {
  command: string;
  args: string[];
}

export interface ChildOptions {
  /** The workspace root, already canonical (realpath). */
  root: string;
  command: ChildCommand;
  /** Sent as the language server's initializationOptions (exclude, embeddings, ...). */
  initializationOptions?: unknown;
  log: (message: string) => void;
}

/** The latest `$/progress` of the child's background indexing, or null when it reports none. */
export interface ChildProgress {
  percentage?: number;
  message?: string;
}

/** The child stopped while a request was in flight (or could not be started). */
export class ChildGone extends Error {}

interface Running {
  proc: ChildProcess;
  conn: MessageConnection;
  dead: boolean;
  exited: Promise<void>;
}

const STOP_GRACE_MS = 3000;
/** vscode-jsonrpc's own error codes for a connection that broke (not answers of the server). */
const CONNECTION_FAILURES = new Set<number>([
  RpcErrorCodes.MessageWriteError,
  RpcErrorCodes.MessageReadError,
  RpcErrorCodes.PendingResponseRejected,
  RpcErrorCodes.ConnectionInactive,
]);

export class LspChild {
  private current: Running | null = null;
  private starting: Promise<Running> | null = null;
  private stopped = false;
  /** How many times a child was started after the first one died. */
  restarts = 0;
  private started = 0;
  progress: ChildProgress | null = null;
  /** Called whenever a new child has been initialized (state held about the old one is stale). */
  onStart: () => void = () => {};

  constructor(private readonly options: ChildOptions) {}

  get pid(): number | null {
    return this.current?.proc.pid ?? null;
  }

  /** Starts the child now (the first request would, too); resolves once it is initialized. */
  async start(): Promise<void> {
    await this.ensure();
  }

  async request<R>(method: string, params: unknown, signal?: AbortSignal): Promise<R> {
    const run = await this.ensure();
    const cancel = new CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal?.addEventListener('abort', onAbort);
    try {
      return await run.conn.sendRequest<R>(method, params, cancel.token);
    } catch (e) {
      // The connection failing rather than the server answering: the child died, perhaps before
      // its exit event arrived (a write to its stdin fails with EPIPE first).
      if (run.dead || !(e instanceof ResponseError) || CONNECTION_FAILURES.has(e.code)) {
        throw new ChildGone(`the NSCCN language server stopped during ${method}`);
      }
      throw e;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }

  /** shutdown + exit, then SIGKILL if the child is still there after a grace period. */
  async stop(): Promise<void> {
    this.stopped = true;
    const run = this.current ?? (await this.starting?.catch(() => null)) ?? null;
    if (!run || run.dead) return;
    const kill = setTimeout(() => run.proc.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      await withTimeout(run.conn.sendRequest('shutdown'), STOP_GRACE_MS);
      await run.conn.sendNotification('exit');
    } catch {
      run.proc.kill('SIGTERM');
    }
    await run.exited;
    clearTimeout(kill);
  }

  private ensure(): Promise<Running> {
    if (this.stopped) return Promise.reject(new ChildGone('the adapter is shutting down'));
    if (this.current && !this.current.dead) return Promise.resolve(this.current);
    if (!this.starting) {
      this.starting = this.launch().finally(() => {
        this.starting = null;
      });
    }
    return this.starting;
  }

  private async launch(): Promise<Running> {
    const { command, args } = this.options.command;
    const proc = spawn(command, args, { cwd: this.options.root, stdio: ['pipe', 'pipe', 'pipe'] });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    let markExited!: () => void;
    const run: Running = { proc, conn, dead: false, exited: new Promise((r) => (markExited = r)) };
    const die = (why: string) => {
      if (run.dead) return;
      run.dead = true;
      conn.dispose(); // rejects the requests in flight
      if (this.current === run) this.current = null;
      this.progress = null;
      if (!this.stopped) this.options.log(`language server ${why}; a new one starts with the next call`);
    };
    proc.once('error', (e) => {
      die(`could not run (${e.message})`);
      markExited();
    });
    proc.once('exit', (code, signal) => {
      die(`exited (${signal ?? `code ${code}`})`);
      markExited();
    });
    proc.stdin!.on('error', () => {}); // EPIPE after the child died: the exit handler reports it
    proc.stderr!.on('data', (d: Buffer) => this.options.log(d.toString().trimEnd()));
    this.wire(conn);
    conn.listen();

    const rootUri = pathToFileURL(this.options.root).href;
    try {
      await conn.sendRequest('initialize', {
        processId: process.pid, // the child exits by itself if the adapter is killed
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: path.basename(this.options.root) }],
        capabilities: { window: { workDoneProgress: true }, workspace: { workspaceFolders: true } },
        initializationOptions: this.options.initializationOptions,
      });
      await conn.sendNotification('initialized', {});
    } catch (e) {
      proc.kill('SIGKILL');
      throw new ChildGone(`the NSCCN language server did not start: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (this.started++ > 0) this.restarts++;
    this.current = run;
    this.onStart();
    return run;
  }

  /** Answers what the language server asks of its client; keeps its indexing progress. */
  private wire(conn: MessageConnection): void {
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.onRequest('client/registerCapability', () => null);
    conn.onRequest('client/unregisterCapability', () => null);
    conn.onRequest('window/showMessageRequest', () => null);
    conn.onRequest('workspace/codeLens/refresh', () => null);
    conn.onNotification('$/progress', (p: { value?: { kind?: string; percentage?: number; message?: string } }) => {
      const v = p?.value;
      if (!v) return;
      if (v.kind === 'end') this.progress = null;
      else this.progress = { percentage: v.percentage ?? this.progress?.percentage, message: v.message ?? this.progress?.message };
    });
    conn.onNotification('window/showMessage', (p: { message?: string }) => this.options.log(String(p?.message ?? '')));
    conn.onNotification('window/logMessage', (p: { type?: number; message?: string }) => {
      if (p?.type === 1) this.options.log(String(p.message ?? '')); // errors only; the rest is chatter
    });
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      (e) => (clearTimeout(t), reject(e)),
    );
  });
}
