// `npm run bench -- kills`: kill -9 the indexer and the language server at random moments, many
// times, on real code (a slice of the Python stdlib), and check after each that the next
// `nsccn index` completes the index to exactly the graph an uninterrupted index of the same
// files holds. Moments: during a first index, during a re-index after edits on disk, in the
// language server during its first index or its vector filling, and during a burst of live
// edits. Seeded: NSCCN_SEED (default 1); NSCCN_KILLS rounds per scenario (default 6).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { Engine } from '../src/engine/engine';
import { mulberry32 } from '../eval/random';
import { pythonStdlib } from './corpora';

const CLI = path.resolve(__dirname, '../src/cli/main.js');
const ENV = { ...process.env, NSCCN_MODEL: 'none' };
const PACKAGES = ['email', 'json', 'http', 'logging', 'asyncio', 'xml', 'urllib', 'concurrent', 'importlib'];

interface Round {
  scenario: string;
  killedAfterMs: number;
  filesBeforeRecovery: number;
  recoveryNote: boolean;
  equal: boolean;
  missing: number;
  extra: number;
}

function copyCorpus(dst: string): void {
  const src = pythonStdlib();
  for (const p of PACKAGES) fs.cpSync(path.join(src, p), path.join(dst, p), { recursive: true, filter: (s) => !s.includes('__pycache__') && !/\/test(s)?(\/|$)/.test(s.slice(src.length)) });
}

async function graph(root: string): Promise<{ edges: string[]; entities: number }> {
  const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
  try {
    const out: string[] = [];
    let entities = 0;
    for (const f of e.store.files()) {
      for (const ent of e.fileEntities(f.path)) {
        entities++;
        for (const x of e.outgoing(ent.id)) out.push(`${x.source} ${x.relation} ${x.target ?? '?' + x.targetName}${x.ambiguous ? ' ~' : ''}${x.dispatch ? ' >' : ''} ${x.span.start.row}:${x.span.start.column}`);
      }
    }
    return { edges: out.sort(), entities };
  } finally {
    await e.close();
  }
}

function cliIndex(root: string): { code: number | null; notes: string[] } {
  const r = spawnSync(process.execPath, [CLI, 'index', '--json', '--root', root], { encoding: 'utf8', env: ENV });
  if (r.status !== 0) return { code: r.status, notes: [r.stderr.trim()] };
  return { code: 0, notes: (JSON.parse(r.stdout) as { notes?: string[] }).notes ?? [] };
}

/** Files the interrupted run committed (opening the index rolls back what it had not). */
async function filesIn(root: string): Promise<number> {
  try {
    const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    const n = e.store.counts().files;
    await e.close();
    return n;
  } catch {
    return 0;
  }
}

function killAfter(child: ChildProcess, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), ms);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
  });
}

/** Edits on disk: a new caller appended to some files, one function removed from another. */
function editOnDisk(root: string, rnd: () => number, round: number): void {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const x of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, x.name);
      if (x.isDirectory() && x.name !== '.nsccn') walk(p);
      else if (x.name.endsWith('.py')) files.push(p);
    }
  };
  walk(root);
  files.sort();
  for (let i = 0; i < 12; i++) {
    const f = files[Math.floor(rnd() * files.length)];
    fs.appendFileSync(f, `\n\ndef _soak_${round}_${i}():\n    return loads(x) + dumps(y) + _soak_${round}_${(i + 1) % 12}()\n`);
  }
  const victim = files[Math.floor(rnd() * files.length)];
  const text = fs.readFileSync(victim, 'utf8');
  const m = /\ndef \w+\([^)]*\):\n(?:[ \t]+.*\n|\n)+/.exec(text);
  if (m) fs.writeFileSync(victim, text.replace(m[0], '\n'));
}

async function serverRound(root: string, killMs: number, edits: boolean, rnd: () => number): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'lsp', '--stdio'], { env: ENV, stdio: ['pipe', 'pipe', 'ignore'] });
  const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  conn.onRequest(() => null);
  conn.onNotification(() => undefined);
  conn.onError(() => undefined);
  conn.onClose(() => undefined);
  conn.listen();
  const dead = killAfter(child, killMs);
  // Every await races the kill: a request in flight when the server dies never settles.
  const killed = dead.then((): never => {
    throw new Error('killed');
  });
  killed.catch(() => undefined);
  const orDead = <T>(p: Promise<T>) => Promise.race([p, killed]);
  try {
    await orDead(conn.sendRequest('initialize', { processId: process.pid, rootUri: pathToFileURL(root).href, workspaceFolders: [{ uri: pathToFileURL(root).href, name: 'soak' }], capabilities: {} }));
    await orDead(conn.sendNotification('initialized', {}));
    if (edits) {
      const file = path.join(root, 'json/decoder.py');
      const uri = pathToFileURL(file).href;
      let text = fs.readFileSync(file, 'utf8');
      await orDead(conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } }));
      for (let v = 2; v < 2000 && child.exitCode === null; v++) {
        const line = Math.floor(rnd() * text.split('\n').length);
        const insert = `x${v} = scanstring(s, ${v})\n`;
        await orDead(conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: insert }] }));
        const lines = text.split('\n');
        lines.splice(line, 0, insert.slice(0, -1));
        text = lines.join('\n');
        await new Promise((r) => setTimeout(r, 2));
      }
    }
  } catch {
    /* the server was killed mid-request: that is the point */
  }
  await dead;
  conn.dispose();
}

export async function benchKills(): Promise<Record<string, unknown>> {
  const seed = Number(process.env.NSCCN_SEED ?? 1);
  const rounds = Number(process.env.NSCCN_KILLS ?? 6);
  const rnd = mulberry32(seed);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-kills-'));
  const root = path.join(work, 'ws');
  const ref = path.join(work, 'ref');
  copyCorpus(root);
  const results: Round[] = [];
  try {
    // How long an uninterrupted first index takes: kill moments are drawn inside it.
    const t0 = performance.now();
    cliIndex(root);
    const full = performance.now() - t0;
    const scenarios: Array<{ name: string; run: (ms: number, round: number) => Promise<void> }> = [
      {
        name: 'cli first index',
        run: async (ms) => {
          fs.rmSync(path.join(root, '.nsccn'), { recursive: true, force: true });
          await killAfter(spawn(process.execPath, [CLI, 'index', '--root', root], { env: ENV, stdio: 'ignore' }), ms);
        },
      },
      {
        name: 'cli re-index after edits',
        run: async (ms, round) => {
          editOnDisk(root, rnd, round);
          await killAfter(spawn(process.execPath, [CLI, 'index', '--root', root], { env: ENV, stdio: 'ignore' }), ms / 4);
        },
      },
      {
        name: 'server first index / vectors',
        run: async (ms) => {
          fs.rmSync(path.join(root, '.nsccn'), { recursive: true, force: true });
          await serverRound(root, ms * 1.5, false, rnd);
        },
      },
      { name: 'server live edits', run: async (ms) => serverRound(root, 300 + ms / 3, true, rnd) },
    ];
    for (const sc of scenarios) {
      for (let i = 0; i < rounds; i++) {
        const ms = Math.round(100 + rnd() * full);
        await sc.run(ms, results.length);
        const before = await filesIn(root);
        const rec = cliIndex(root);
        if (rec.code !== 0) throw new Error(`${sc.name}: recovery failed: ${rec.notes.join(' ')}`);
        fs.rmSync(ref, { recursive: true, force: true });
        fs.cpSync(root, ref, { recursive: true, filter: (s) => path.basename(s) !== '.nsccn' });
        cliIndex(ref);
        const [got, want] = [await graph(root), await graph(ref)];
        const wantSet = new Set(want.edges);
        const gotSet = new Set(got.edges);
        const r: Round = {
          scenario: sc.name,
          killedAfterMs: ms,
          filesBeforeRecovery: before,
          recoveryNote: rec.notes.some((n) => /did not finish/.test(n)),
          equal: got.entities === want.entities && got.edges.length === want.edges.length && got.edges.every((e) => wantSet.has(e)),
          missing: want.edges.filter((e) => !gotSet.has(e)).length,
          extra: got.edges.filter((e) => !wantSet.has(e)).length,
        };
        results.push(r);
        console.log(`${r.equal ? 'ok  ' : 'DIFF'} ${sc.name.padEnd(30)} killed at ${String(ms).padStart(5)} ms, ${String(before).padStart(4)} files committed, recovery note ${r.recoveryNote ? 'yes' : 'no '}${r.equal ? '' : `, missing ${r.missing}, extra ${r.extra}`}`);
      }
    }
    const bad = results.filter((r) => !r.equal);
    console.log(`\n${results.length} kill rounds (seed ${seed}, first index ${Math.round(full)} ms): ${results.length - bad.length} equal to an uninterrupted index, ${bad.length} different`);
    return { seed, rounds: results.length, firstIndexMs: Math.round(full), equal: results.length - bad.length, different: bad.length, results };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
