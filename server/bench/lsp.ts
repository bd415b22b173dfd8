// `npm run bench -- lsp`: the language server as an editor feels it, over real stdio.
//  1. Edit latency: didChange on a generated 2,000-line Python file → an outgoingCalls answer
//     that already shows the edit (p50 / p95 over ~50 edits; goal ≤ 30 ms), the same request
//     with no edit before it (the LSP round trip alone), and a call typed one keystroke per
//     didChange (batched by the server into one engine update).
//  2. Warm start: initialize → first workspace/symbol answer on the already indexed Python
//     standard library (index kept in a temp dir through initializationOptions.dbPath).
//  3. Server memory: RSS and peak RSS of the server process with the stdlib loaded.
// Writes bench-results/bench-lsp.json.
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
import { pythonStdlib, writeResult } from './corpora';
import { percentile } from './stats';

const SKIP = ['site-packages', 'dist-packages'];

interface Options {
  /** Edits measured (after a few warm-up edits). */
  edits?: number;
  /** Lines of the generated file. */
  lines?: number;
  /** Skip the stdlib part (CI smoke runs). */
  skipStdlib?: boolean;
}

/** A bare LSP client over the server's stdio: requests, notifications, and its process. */
export class ServerProcess {
  private constructor(
    readonly proc: ChildProcess,
    readonly conn: MessageConnection,
  ) {}

  static start(): ServerProcess {
    const cli = path.join(__dirname, '..', 'src', 'cli', 'main.js');
    const server = path.join(__dirname, '..', 'src', 'lsp', 'server.js');
    const args = fs.existsSync(cli) ? [cli, 'lsp', '--stdio'] : ['-e', `require(${JSON.stringify(server)}).runLanguageServer()`];
    const proc = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const conn = createMessageConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));
    conn.onRequest('window/workDoneProgress/create', () => null);
    conn.onRequest('client/registerCapability', () => null);
    conn.onRequest('workspace/codeLens/refresh', () => null);
    conn.onNotification('$/progress', () => undefined);
    conn.onNotification('window/logMessage', () => undefined);
    conn.listen();
    return new ServerProcess(proc, conn);
  }

  async initialize(root: string, initializationOptions: unknown): Promise<void> {
    const uri = pathToFileURL(root).href;
    await this.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: uri,
      workspaceFolders: [{ uri, name: path.basename(root) }],
      capabilities: {
        window: { workDoneProgress: true },
        workspace: { didChangeWatchedFiles: { dynamicRegistration: true }, codeLens: { refreshSupport: true } },
        textDocument: { documentSymbol: { hierarchicalDocumentSymbolSupport: true } },
      },
      initializationOptions,
    });
    await this.conn.sendNotification('initialized', {});
  }

  async waitReady(timeoutMs = 600_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.conn.sendRequest<{ state: string }>('nsccn/status', {})).state !== 'ready') {
      if (Date.now() > deadline) throw new Error('server did not finish indexing');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits until every vector stream is complete (nsccn/status `streamProgress`). */
  async waitVectors(timeoutMs = 600_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await this.conn.sendRequest<{ streamProgress?: Array<{ complete: boolean }> }>('nsccn/status', {});
      if ((s.streamProgress ?? []).every((p) => p.complete)) return;
      if (Date.now() > deadline) throw new Error('server did not finish embedding');
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /**
   * CPU time (user + system, every thread) the server process has used so far, in ms (Linux
   * /proc; null elsewhere): on a loaded machine the figure that compares two builds.
   */
  cpuMs(): number | null {
    try {
      const fields = fs.readFileSync(`/proc/${this.proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ = 100)
    } catch {
      return null;
    }
  }

  /** Resident and peak resident memory of the server process (Linux /proc), in MB. */
  memory(): { rssMB: number | null; peakRssMB: number | null } {
    try {
      const status = fs.readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
      const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { rssMB: Math.round(kb('VmRSS') / 1024), peakRssMB: Math.round(kb('VmHWM') / 1024) };
    } catch {
      return { rssMB: null, peakRssMB: null };
    }
  }

  async stop(): Promise<void> {
    const exited = new Promise((r) => this.proc.once('exit', r));
    try {
      await this.conn.sendRequest('shutdown');
      await this.conn.sendNotification('exit');
    } catch {
      this.proc.kill();
    }
    await exited;
    this.conn.dispose();
  }
}

/** A Python module of about `lines` lines: functions that call each other. */
export function generatedModule(lines: number): { text: string; functions: number } {
  const out = ['"""Generated module for the LSP latency bench."""', 'import os', '', ''];
  let n = 0;
  while (out.length < lines) {
    out.push(
      `def f${n}(x):`,
      `    """Function ${n}: adds, loops and calls its neighbours."""`,
      `    y = x + ${n}`,
      `    if y > ${n % 17}:`,
      `        y = f${Math.max(0, n - 1)}(y)`,
      `    for i in range(3):`,
      `        y += i * len(os.sep)`,
      `    z = f${Math.max(0, n - 2)}(y)`,
      `    return z + ${n}`,
      '',
      '',
    );
    n++;
  }
  return { text: out.join('\n') + '\n', functions: n };
}

/** didChange → updated outgoingCalls, on a generated file opened as a buffer. */
async function editLatency(opts: Required<Pick<Options, 'edits' | 'lines'>>): Promise<Record<string, unknown>> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-lsp-'));
  const { text, functions } = generatedModule(opts.lines);
  fs.writeFileSync(path.join(root, 'gen.py'), text);
  const server = ServerProcess.start();
  try {
    await server.initialize(root, { embeddings: { model: 'none' } });
    await server.waitReady();
    const uri = pathToFileURL(path.join(root, 'gen.py')).href;
    let version = 1;
    await server.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text } });
    const lines = text.split('\n');
    const defLine = (k: number) => lines.indexOf(`def f${k}(x):`);
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const samples: number[] = [];
    const queryOnly: number[] = [];
    const warmup = 5;
    // Each round measures two edits (the insertion and its removal).
    for (let e = 0; e < Math.ceil(opts.edits / 2) + warmup; e++) {
      // Insert a call to f{callee} at the top of f{k}'s body, measure, then remove it (measured too).
      const k = rand(functions);
      const callee = (k + 1 + rand(functions - 1)) % functions;
      const line = defLine(k) + 2; // after the docstring: lines before it do not move
      const items = await server.conn.sendRequest<Array<{ data: { id: string } }>>('textDocument/prepareCallHierarchy', {
        textDocument: { uri },
        position: { line: defLine(k), character: 5 },
      });
      const item = items[0];
      for (const insert of [true, false]) {
        const change = insert
          ? { range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: `    f${callee}(x)\n` }
          : { range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, text: '' };
        const t0 = performance.now();
        void server.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: ++version }, contentChanges: [change] });
        const out = await server.conn.sendRequest<Array<{ to: { data: { id: string } } }>>('callHierarchy/outgoingCalls', { item });
        const ms = performance.now() - t0;
        const has = out.some((o) => o.to.data.id === `func:gen.py:f${callee}`);
        const callsAnyway = [Math.max(0, k - 1), Math.max(0, k - 2)].includes(callee);
        if (has !== (insert || callsAnyway)) throw new Error(`answer after edit ${e} does not reflect it (f${k} → f${callee})`);
        if (e >= warmup) samples.push(ms);
        // The same request with no edit before it: what the LSP round trip itself costs.
        const t1 = performance.now();
        await server.conn.sendRequest('callHierarchy/outgoingCalls', { item });
        if (e >= warmup) queryOnly.push(performance.now() - t1);
      }
    }
    // Typing: a call typed one character per didChange, then the answer. The server applies a
    // burst as one batch, so this should cost about one edit, not one per keystroke.
    const bursts: number[] = [];
    for (let b = 0; b < 10; b++) {
      const k = rand(functions);
      const callee = (k + 3 + rand(functions - 3)) % functions;
      if ([Math.max(0, k - 1), Math.max(0, k - 2)].includes(callee)) continue;
      const line = defLine(k) + 2;
      const typed = `    f${callee}(x)\n`;
      const items = await server.conn.sendRequest<Array<{ data: { id: string } }>>('textDocument/prepareCallHierarchy', {
        textDocument: { uri },
        position: { line: defLine(k), character: 5 },
      });
      const t0 = performance.now();
      for (let i = 0; i < typed.length; i++) {
        const pos = { line, character: i };
        void server.conn.sendNotification('textDocument/didChange', {
          textDocument: { uri, version: ++version },
          contentChanges: [{ range: { start: pos, end: pos }, text: typed[i] }],
        });
      }
      const out = await server.conn.sendRequest<Array<{ to: { data: { id: string } } }>>('callHierarchy/outgoingCalls', { item: items[0] });
      bursts.push(performance.now() - t0);
      if (!out.some((o) => o.to.data.id === `func:gen.py:f${callee}`)) throw new Error('typed call not in the answer');
      const end = { line: line + 1, character: 0 };
      await server.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: ++version },
        contentChanges: [{ range: { start: { line, character: 0 }, end }, text: '' }],
      });
    }
    bursts.sort((a, b) => a - b);
    // Typing a new function, a request after every keystroke (an editor asking for code lenses
    // or hover as the user types): the buffer is broken for most of it, and each keystroke
    // names a new definition (`def g`, `def g1`, ...).
    const keystrokes: number[] = [];
    for (let b = 0; b < 4; b++) {
      const k = 10 + b * 40;
      const typed = `def g${b}(x):\n    return f${k}(x)\n\n\n`;
      let pos = { line: defLine(k), character: 0 };
      for (const ch of typed) {
        const t0 = performance.now();
        void server.conn.sendNotification('textDocument/didChange', {
          textDocument: { uri, version: ++version },
          contentChanges: [{ range: { start: pos, end: pos }, text: ch }],
        });
        await server.conn.sendRequest('textDocument/documentSymbol', { textDocument: { uri } });
        keystrokes.push(performance.now() - t0);
        pos = ch === '\n' ? { line: pos.line + 1, character: 0 } : { line: pos.line, character: pos.character + 1 };
      }
      const end = { line: defLine(k) + 4, character: 0 };
      await server.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: ++version },
        contentChanges: [{ range: { start: { line: defLine(k), character: 0 }, end }, text: '' }],
      });
    }
    const symbols = await server.conn.sendRequest<Array<{ name: string }>>('textDocument/documentSymbol', { textDocument: { uri } });
    if (symbols.some((x) => /^g\d/.test(x.name))) throw new Error('a typed function is still there after its removal');
    keystrokes.sort((a, b) => a - b);
    const mem = server.memory();
    samples.sort((a, b) => a - b);
    queryOnly.sort((a, b) => a - b);
    return {
      fileLines: text.split('\n').length - 1,
      functions,
      edits: samples.length,
      p50ms: +percentile(samples, 50).toFixed(2),
      p95ms: +percentile(samples, 95).toFixed(2),
      maxms: +samples[samples.length - 1].toFixed(2),
      goalP95ms: 30,
      queryWithoutEditP50ms: +percentile(queryOnly, 50).toFixed(2),
      typedCallKeystrokes: 'one didChange per character of "    fN(x)" and its newline',
      typedCallToAnswerP50ms: +percentile(bursts, 50).toFixed(2),
      typedFunctionKeystrokes: keystrokes.length,
      typedFunctionKeystrokeToAnswerP50ms: +percentile(keystrokes, 50).toFixed(2),
      typedFunctionKeystrokeToAnswerP90ms: +percentile(keystrokes, 90).toFixed(2),
      serverRssMB: mem.rssMB,
    };
  } finally {
    await server.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A user opens a stdlib file (didOpen → its document symbols), reads for a second, then types:
 * the first edit → an outgoingCalls answer that shows it. The first change needs the symbol
 * model of the whole workspace (read in the background once a file is open).
 */
async function openThenEdit(server: ServerProcess, root: string): Promise<Record<string, number>> {
  const file = path.join(root, 'json', 'decoder.py');
  const uri = pathToFileURL(file).href;
  const text = fs.readFileSync(file, 'utf8');
  const t0 = performance.now();
  await server.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
  await server.conn.sendRequest('textDocument/documentSymbol', { textDocument: { uri } });
  const openMs = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 1000));
  const added = '\n\ndef _bench_first_edit(s):\n    return py_scanstring(s, 0)\n';
  const line = text.split('\n').length + 1;
  const t1 = performance.now();
  await server.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: text + added }] });
  const items = await server.conn.sendRequest<Array<{ name: string }>>('textDocument/prepareCallHierarchy', { textDocument: { uri }, position: { line, character: 5 } });
  const out = items?.[0] ? await server.conn.sendRequest<Array<{ to: { name: string } }>>('callHierarchy/outgoingCalls', { item: items[0] }) : null;
  const editMs = performance.now() - t1;
  if (!out?.some((c) => c.to.name === 'py_scanstring')) throw new Error(`the first edit is not in the graph: ${JSON.stringify(items)} ${JSON.stringify(out)}`);
  await server.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
  return { openFileToSymbolsMs: Math.round(openMs), firstEditOneSecondAfterOpenMs: Math.round(editMs) };
}

/** initialize → first workspace/symbol answer on the already indexed stdlib. */
async function warmStart(): Promise<Record<string, unknown>> {
  const root = pythonStdlib();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-lsp-db-'));
  const options = {
    dbPath: path.join(tmp, 'index.db'),
    exclude: SKIP.map((s) => `/${s}/`),
    embeddings: { model: 'none' },
  };
  try {
    // Index once, through the server.
    const first = ServerProcess.start();
    const t0 = performance.now();
    await first.initialize(root, options);
    await first.waitReady();
    const coldIndexSeconds = (performance.now() - t0) / 1000;
    // ... and its vectors: the index a user reopens is whole (a server stopped earlier leaves
    // the next one embedding in the background, which every figure below would then include).
    await first.waitVectors();
    const vectorsSeconds = (performance.now() - t0) / 1000 - coldIndexSeconds;
    await first.stop();

    const server = ServerProcess.start();
    try {
      const t1 = performance.now();
      await server.initialize(root, options);
      const initializeMs = performance.now() - t1;
      const symbols = await server.conn.sendRequest<Array<{ name: string }>>('workspace/symbol', { query: 'urlparse' });
      const firstSymbolMs = performance.now() - t1;
      const cpuAtFirstSymbolMs = server.cpuMs();
      if (!symbols.some((s) => s.name === 'urlparse')) throw new Error('workspace/symbol did not find urlparse in the stdlib');
      const t2 = performance.now();
      const natural = await server.conn.sendRequest<Array<{ name: string }>>('workspace/symbol', { query: 'split a url into components' });
      const naturalQueryMs = performance.now() - t2;
      await server.waitReady();
      const firstEdit = await openThenEdit(server, root);
      const status = await server.conn.sendRequest<{ files: number; entities: number; edges: number }>('nsccn/status', {});
      const mem = server.memory();
      return {
        root,
        files: status.files,
        entities: status.entities,
        edges: status.edges,
        coldIndexThroughServerSeconds: +coldIndexSeconds.toFixed(1),
        vectorsAfterItSeconds: +vectorsSeconds.toFixed(1),
        initializeMs: Math.round(initializeMs),
        initializeToFirstWorkspaceSymbolMs: Math.round(firstSymbolMs),
        goalMs: 300,
        serverCpuAtFirstSymbolMs: cpuAtFirstSymbolMs,
        loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
        naturalLanguageQueryMs: Math.round(naturalQueryMs),
        naturalLanguageTop3: natural.slice(0, 3).map((s) => s.name),
        ...firstEdit,
        serverRssMB: mem.rssMB,
        serverPeakRssMB: mem.peakRssMB,
      };
    } finally {
      await server.stop();
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export async function benchLsp(options: Options = {}): Promise<Record<string, unknown>> {
  const edit = await editLatency({ edits: options.edits ?? 50, lines: options.lines ?? 2000 });
  const stdlib = options.skipStdlib ? null : await warmStart();
  return { editLatency: edit, stdlib };
}

if (require.main === module) {
  const skipStdlib = process.argv.includes('--no-stdlib');
  benchLsp({ skipStdlib }).then(
    (r) => {
      console.table(r.editLatency as Record<string, unknown>);
      if (r.stdlib) console.table(r.stdlib as Record<string, unknown>);
      console.log(`wrote ${writeResult('bench-lsp', r)}`);
    },
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exitCode = 1;
    },
  );
}
