// `npm run bench -- sharing`: one index, several processes, the Python standard library.
//  1. A language server keeps the index current while a reader in another process (what the CLI
//     and the MCP adapter are) queries it in a loop: reader latency p50/p99 while the server
//     re-indexes 300 files rewritten on disk (a `git checkout` of another branch), errors seen by
//     the reader (none may be SQLITE_BUSY), and how long until the reader sees a new function.
//  2. A second writer: `nsccn index` on the same root while the server indexes: it waits, never
//     corrupts, and ends with the same counts.
//  3. Soak: edits and requests for NSCCN_SOAK_MINUTES (default 2; the goal is stated for 10)
//     against the server, its RSS sampled every 5 s (goal: flat, ≤ 400 MB).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Engine } from '../src/engine/engine';
import { pythonStdlib } from './corpora';
import { ServerProcess } from './lsp';

const CLI = path.resolve(__dirname, '../src/cli/main.js');
const ENV = { ...process.env, NSCCN_MODEL: 'none' };

function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10;
}

function pyFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const x of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, x.name);
      if (x.isDirectory() && x.name !== '.nsccn') walk(p);
      else if (x.name.endsWith('.py')) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

export async function benchSharing(): Promise<Record<string, unknown>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-sharing-'));
  const root = path.join(work, 'stdlib');
  const src = pythonStdlib();
  fs.cpSync(src, root, { recursive: true, filter: (s) => !/__pycache__|site-packages|dist-packages/.test(s) });
  const t0 = performance.now();
  spawnSync(process.execPath, [CLI, 'index', '--root', root], { env: ENV, stdio: 'ignore' });
  const coldSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const server = ServerProcess.start();
  const reader = { latencies: [] as number[], errors: [] as string[] };
  try {
    await server.initialize(root, { embeddings: { model: 'none' } });
    await server.waitReady();
    const files = pyFiles(root);
    const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    let reading = true;
    const queries = ['parse an email message', 'json decoder', 'open a url', 'logging handler'];
    const readLoop = (async () => {
      for (let i = 0; reading; i++) {
        const t = performance.now();
        try {
          const r = await engine.search({ query: queries[i % queries.length], limit: 10 });
          if (r.results[0]) {
            engine.trace({ id: r.results[0].id, direction: 'down', depth: 2 });
            engine.window(r.results[0].id, 2);
          }
        } catch (e) {
          reader.errors.push((e as Error).message);
        }
        reader.latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    // 1. A branch switch: 300 files rewritten, the server told by watched-file events.
    const changed = files.filter((_, i) => i % Math.floor(files.length / 300) === 0).slice(0, 300);
    const marker = `nsccn_sharing_probe_${Date.now()}`;
    for (const [i, f] of changed.entries()) fs.appendFileSync(f, `\n\ndef ${i === 0 ? marker : `_branch_${i}`}():\n    return ${i}\n`);
    const before = reader.latencies.length;
    const tw = performance.now();
    await server.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: changed.map((f) => ({ uri: pathToFileURL(f).href, type: 2 })) });
    let visibleMs = NaN;
    for (let k = 0; k < 1200; k++) {
      if (engine.store.entity(`func:${path.relative(root, changed[0]).split(path.sep).join('/')}:${marker}`)) {
        visibleMs = Math.round(performance.now() - tw);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    await server.waitReady();
    const during = reader.latencies.slice(before);
    // 2. A second writer while the server re-indexes the same files again.
    for (const f of changed) fs.appendFileSync(f, '\n# again\n');
    await server.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: changed.map((f) => ({ uri: pathToFileURL(f).href, type: 2 })) });
    const ti = performance.now();
    const second = spawnSync(process.execPath, [CLI, 'index', '--json', '--root', root], { env: ENV, encoding: 'utf8' });
    const secondWriter = { exit: second.status, seconds: Math.round((performance.now() - ti) / 100) / 10, stderr: second.stderr.trim().slice(0, 200), summary: second.status === 0 ? JSON.parse(second.stdout) : null };
    await server.waitReady();
    // 3. Soak: edits and requests, RSS sampled.
    const minutes = Number(process.env.NSCCN_SOAK_MINUTES ?? 2);
    const rss: number[] = [];
    const target = files.find((f) => f.endsWith('/json/decoder.py')) ?? files[0];
    const uri = pathToFileURL(target).href;
    let text = fs.readFileSync(target, 'utf8');
    await server.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
    const end = Date.now() + minutes * 60_000;
    let lastSample = 0;
    let edits = 0;
    for (let v = 2; Date.now() < end; v++) {
      const insert = `def _soak_${v}(s):\n    return scanstring(s, ${v})\n\n`;
      await server.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: insert }] });
      text = insert + text;
      edits++;
      if (v % 50 === 0) {
        // Undo the growth now and then, as an editor's undo would: the buffer stays real-sized.
        text = fs.readFileSync(target, 'utf8');
        await server.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: ++v }, contentChanges: [{ text }] });
      }
      if (v % 10 === 0) await server.conn.sendRequest('nsccn/search', { query: 'scan a json string', limit: 10 });
      if (Date.now() - lastSample > 5000) {
        lastSample = Date.now();
        rss.push(server.memory().rssMB ?? NaN);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    reading = false;
    await readLoop;
    await engine.close();
    const result = {
      files: files.length,
      coldIndexSeconds: coldSeconds,
      branchSwitch: { files: changed.length, readerVisibleMs: visibleMs, readerQueries: during.length, readerP50Ms: pct(during, 50), readerP99Ms: pct(during, 99) },
      readerErrors: reader.errors.length,
      readerBusyErrors: reader.errors.filter((e) => /busy|SQLITE_BUSY|locked/i.test(e)).length,
      readerErrorSamples: [...new Set(reader.errors)].slice(0, 3),
      secondWriter,
      soak: { minutes, edits, rssMB: rss, rssFirstMB: rss[0], rssLastMB: rss[rss.length - 1], rssMaxMB: Math.max(...rss), peakRssMB: server.memory().peakRssMB },
    };
    console.log(`reader during a 300-file branch switch: p50 ${result.branchSwitch.readerP50Ms} ms, p99 ${result.branchSwitch.readerP99Ms} ms over ${during.length} queries; the new function visible after ${visibleMs} ms`);
    console.log(`reader errors ${result.readerErrors} (busy ${result.readerBusyErrors}); second writer exit ${secondWriter.exit} after ${secondWriter.seconds} s`);
    console.log(`soak ${minutes} min, ${edits} edits: server RSS ${result.soak.rssFirstMB} → ${result.soak.rssLastMB} MB (max ${result.soak.rssMaxMB}, peak ${result.soak.peakRssMB})`);
    return result;
  } finally {
    await server.stop().catch(() => undefined);
    fs.rmSync(work, { recursive: true, force: true });
  }
}
