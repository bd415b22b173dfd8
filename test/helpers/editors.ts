// Real editors (Neovim, Helix, Emacs) driven against the real server, for the editor tests.
// Finds the editor binaries, prepares a workspace (a copy of fixtures/python/shop) with an
// `nsccn` command on PATH that runs this checkout's build, runs editors with a deadline and
// drives terminal editors through a private tmux server.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO, copyShop, sleep, tempDir } from './lsp-client';

export const CLIENTS = path.join(REPO, 'clients');
const CLI = path.join(REPO, 'dist', 'server', 'src', 'cli', 'main.js');
/** Where ../shared/tools/install-editors.sh puts Neovim and Helix (they are not on PATH). */
const EDITORS_PREFIX = process.env.NSCCN_EDITORS_PREFIX ?? '/opt/editors';

function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * The editor binary `name` (nvim, hx, emacs, tmux): $NSCCN_<NAME> when set, then PATH, then the
 * install script's prefix. null when it is nowhere (the test then skips).
 */
export function findBinary(name: string, requireVersion?: RegExp): string | null {
  const override = process.env[`NSCCN_${name.toUpperCase()}`];
  const candidates = [override, onPath(name), path.join(EDITORS_PREFIX, 'bin', name)].filter((c): c is string => !!c);
  for (const c of candidates) {
    if (!fs.existsSync(c)) continue;
    if (requireVersion && !requireVersion.test(versionOf(c))) continue;
    return c;
  }
  return null;
}

function versionOf(bin: string): string {
  try {
    return execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

/** Helix's runtime folder (queries, themes) under the install prefix, if there is one. */
export function helixRuntime(): string | null {
  if (process.env.HELIX_RUNTIME) return process.env.HELIX_RUNTIME;
  if (!fs.existsSync(EDITORS_PREFIX)) return null;
  for (const suite of fs.readdirSync(EDITORS_PREFIX)) {
    const rt = path.join(EDITORS_PREFIX, suite, 'usr', 'lib', 'hx', 'runtime');
    if (fs.existsSync(rt)) return rt;
  }
  return null;
}

export interface EditorWorkspace {
  /** The workspace root: holds `shop/` (a copy of the fixture) and, once indexed, `.nsccn/`. */
  root: string;
  /** Scratch space outside the workspace: scripts, results, editor config and state. */
  scratch: string;
  /** Environment for the editor: `nsccn` on PATH, XDG dirs in the scratch folder. */
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/**
 * A copy of the shop fixture plus an `nsccn` shim on PATH, so the clients run with their
 * default server command (`nsccn lsp --stdio`). NSCCN_MODEL=none keeps the server from
 * loading an embedding model: lexical and static search are all these tests need.
 */
export function editorWorkspace(prefix: string): EditorWorkspace {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: build first with \`npx tsc -p tsconfig.json\``);
  const ws = tempDir(prefix);
  const root = path.join(ws.dir, 'ws');
  const scratch = path.join(ws.dir, 'scratch');
  const bin = path.join(scratch, 'bin');
  fs.mkdirSync(root);
  fs.mkdirSync(bin, { recursive: true });
  copyShop(root);
  const shim = path.join(bin, 'nsccn');
  fs.writeFileSync(shim, `#!/bin/sh\nexec ${sh(process.execPath)} ${sh(CLI)} "$@"\n`);
  fs.chmodSync(shim, 0o755);
  const xdg = (d: string) => path.join(scratch, 'xdg', d);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: path.join(scratch, 'home'),
    XDG_CONFIG_HOME: xdg('config'),
    XDG_CACHE_HOME: xdg('cache'),
    XDG_DATA_HOME: xdg('data'),
    XDG_STATE_HOME: xdg('state'),
    NSCCN_MODEL: 'none',
  };
  for (const d of [env.HOME!, env.XDG_CONFIG_HOME!, env.XDG_CACHE_HOME!, env.XDG_DATA_HOME!, env.XDG_STATE_HOME!]) {
    fs.mkdirSync(d, { recursive: true });
  }
  return { root, scratch, env, cleanup: ws.cleanup };
}

/** Single-quoted for /bin/sh. */
export function sh(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * Runs `bin args` to completion or until `timeoutMs`, then kills its whole process group (the
 * editor and the language server it started), so a hung editor cannot outlive the test.
 */
export function run(bin: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, opts.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      // The editor is gone; anything it left in its group (a server that ignored exit) goes too.
      killGroup(child.pid);
      // Give the pipes a moment to drain what the editor wrote last.
      setTimeout(() => resolve({ code, signal, stdout, stderr, timedOut }), 20);
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Polls `probe` until it returns a value (not undefined/false) or `timeoutMs` passes. */
export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(150);
  }
}

/**
 * A tmux server of our own (its own socket in the scratch folder), so the tests never touch
 * the user's sessions and `kill()` ends exactly what the test started.
 */
export class Tmux {
  private readonly socket: string;

  constructor(
    private readonly bin: string,
    scratch: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.socket = path.join(scratch, 'tmux.sock');
  }

  private async tmux(args: string[], check = true): Promise<RunResult> {
    const r = await run(this.bin, ['-S', this.socket, '-f', '/dev/null', ...args], { cwd: process.cwd(), env: this.env, timeoutMs: 10_000 });
    if (check && r.code !== 0) throw new Error(`tmux ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
    return r;
  }

  /** Starts `command` (argv) in a detached session of the given size, in `cwd`. */
  async start(session: string, cwd: string, command: string[], size = { width: 160, height: 45 }): Promise<void> {
    await this.tmux(['new-session', '-d', '-s', session, '-x', String(size.width), '-y', String(size.height), '-c', cwd, command.map(sh).join(' ')]);
  }

  /** Keys as tmux names them (`Space`, `Escape`, `Enter`) or literal text. */
  async send(session: string, ...keys: string[]): Promise<void> {
    await this.tmux(['send-keys', '-t', session, ...keys]);
  }

  async capture(session: string): Promise<string> {
    return (await this.tmux(['capture-pane', '-p', '-t', session])).stdout;
  }

  async alive(session: string): Promise<boolean> {
    return (await this.tmux(['has-session', '-t', session], false)).code === 0;
  }

  /** Ends the private tmux server and everything running in it. */
  async kill(): Promise<void> {
    await this.tmux(['kill-server'], false);
  }
}
