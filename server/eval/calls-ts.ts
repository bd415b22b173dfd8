// `npm run eval -- calls-ts [--sets ts,js] [--out FILE] [--keep]`
// NSCCN's CALLS edges on TypeScript and JavaScript measured against TypeScript's own call
// hierarchy (typescript-language-server over tsserver). The corpus is real code found on this
// machine: packages in node_modules that ship their TypeScript sources, this project's own
// server/ and protocol/, and plain JavaScript packages (tsserver infers JS too). Both tools read
// one temp copy; tsserver is asked for the outgoing calls of every function and method NSCCN
// indexed, file by file (it answers for open files); the edge sets are compared with the same
// rules and categories as the pyright eval (./pyright/compare.ts, ./pyright/classify.ts).
// Prints a table per set and writes bench-results/eval-calls-ts.json.
import * as fs from 'node:fs';
import { fileLines } from './pyright/measure';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { classify, type Classification } from './pyright/classify';
import { collectPyrightCalls, type Caller } from './pyright/collect';
import { compareCalls, EntityIndex, metrics, packageOf, type CallFact, type Drops, type Metrics, type Pos } from './pyright/compare';
import { PyrightClient, type ReferenceServer } from './pyright/lsp-client';
import { callersOf, readNsccnSide } from './pyright/nsccn-side';
import { causesText, dropsText, metricsTable } from './pyright/report';
import { callShape } from './pyright/shape';
import { listFlag, onFlag, readFlags, stringFlag, strip } from './flags';

/** A package copied into the workspace as `<label>/…` from `from` (relative to the repo root). */
interface Source {
  label: string;
  from: string[];
}

const REPO = path.resolve(__dirname, '..', '..', '..');
const NM = path.join(REPO, 'node_modules');

/** TypeScript sources: packages that ship `src/**\/*.ts` (or their lib as .ts) and this project. */
export const TS_SOURCES: Source[] = [
  { label: 'zod-v3', from: [path.join(NM, 'zod/src/v3')] },
  { label: 'ajv', from: [path.join(NM, 'ajv/lib')] },
  { label: 'jinja', from: [path.join(NM, '@huggingface/jinja/src')] },
  { label: 'ort-common', from: [path.join(NM, 'onnxruntime-common/lib')] },
  { label: 'nsccn', from: [path.join(REPO, 'server/src'), path.join(REPO, 'protocol')] },
];
/** Plain JavaScript: CommonJS and ES module packages. */
export const JS_SOURCES: Source[] = [
  { label: 'express', from: [path.join(NM, 'express/lib')] },
  { label: 'commander', from: [path.join(NM, 'commander/lib')] },
  { label: 'body-parser', from: [path.join(NM, 'body-parser/lib')] },
  { label: 'postcss', from: [path.join(NM, 'postcss/lib')] },
];

const SKIP_DIRS = new Set(['node_modules', 'test', 'tests', '__tests__', 'dist', '.nsccn']);
const CODE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

export interface CallsTsOptions {
  sets?: Array<'ts' | 'js'>;
  out?: string | null;
  keep?: boolean;
  concurrency?: number;
  timeoutMs?: number;
  log?: (m: string) => void;
}

interface SetResult {
  set: 'ts' | 'js';
  packages: string[];
  workspace: { files: number; bytes: number };
  index: { seconds: number; mbPerSecond: number; entitiesPerSecond: number; entities: number };
  callers: { asked: number; notPrepared: number; answeredElsewhere: number; failed: number };
  dropped: Drops;
  overall: Metrics;
  perPackage: Record<string, Metrics>;
  causes: Classification;
  seconds: { tsserverCalls: number };
}

export interface CallsTsResult {
  date: string;
  machine: { cpus: number; node: string; loadavg: number[] };
  typescript: string;
  server: string;
  sets: SetResult[];
}

const secs = (ms: number) => Math.round(ms / 100) / 10;

function copySources(sources: Source[]): { root: string; files: number; bytes: number; dispose(): void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-calls-ts-'));
  const root = path.join(base, 'ws');
  let files = 0;
  let bytes = 0;
  const copy = (from: string, to: string) => {
    for (const e of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) copy(src, path.join(to, e.name));
      } else if (CODE.test(e.name) && !e.name.endsWith('.d.ts') && !/\.(test|spec)\.[jt]sx?$/.test(e.name)) {
        fs.mkdirSync(to, { recursive: true });
        fs.copyFileSync(src, path.join(to, e.name));
        files++;
        bytes += fs.statSync(src).size;
      }
    }
  };
  for (const s of sources) for (const from of s.from) if (fs.existsSync(from)) copy(from, path.join(root, s.label, s.from.length > 1 ? path.basename(from) : ''));
  // One project over everything: JavaScript checked for calls, no emit, modern resolution.
  fs.writeFileSync(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { allowJs: true, checkJs: false, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true, strict: false, jsx: 'react-jsx' }, include: ['**/*'] }),
  );
  return { root, files, bytes, dispose: () => fs.rmSync(base, { recursive: true, force: true }) };
}

function tsServer(): ReferenceServer {
  return {
    script: require.resolve('typescript-language-server/lib/cli.mjs'),
    args: ['--stdio'],
    languageId: (f) => (/\.[mc]?tsx?$/.test(f) ? (f.endsWith('x') ? 'typescriptreact' : 'typescript') : f.endsWith('x') ? 'javascriptreact' : 'javascript'),
    initializationOptions: { tsserver: { path: require.resolve('typescript/lib/tsserver.js') }, preferences: {} },
    settings: () => ({}),
  };
}

async function runSet(set: 'ts' | 'js', opts: CallsTsOptions, log: (m: string) => void): Promise<SetResult> {
  const sources = set === 'ts' ? TS_SOURCES : JS_SOURCES;
  const ws = copySources(sources);
  log(`calls-ts eval [${set}]: ${ws.files} files (${(ws.bytes / 1e6).toFixed(2)} MB) of ${sources.map((s) => s.label).join(', ')} in ${ws.root}`);
  let engine: Engine | undefined;
  let client: PyrightClient | undefined;
  try {
    const t0 = Date.now();
    engine = await Engine.open({ root: ws.root, embeddings: { model: 'none' }, log: (m) => log(`nsccn: ${m}`) });
    await engine.indexWorkspace();
    const indexMs = Date.now() - t0;
    const side = readNsccnSide(engine);
    const callers = callersOf(side) as Caller[];
    log(`calls-ts eval [${set}]: indexed in ${secs(indexMs)} s; ${callers.length} functions and methods`);

    client = await PyrightClient.start({ root: ws.root, requestTimeoutMs: opts.timeoutMs ?? 60_000, server: tsServer() });
    const tCalls = Date.now();
    // tsserver answers for open files: open each file, ask about its callers, close it.
    const byFile = new Map<string, Caller[]>();
    for (const c of callers) byFile.set(c.file, [...(byFile.get(c.file) ?? []), c]);
    const facts: CallFact[] = [];
    const notPrepared: string[] = [];
    const answeredElsewhere: string[] = [];
    const failed: Array<{ id: string; error: string }> = [];
    let done = 0;
    let lastReport = Date.now();
    for (const [file, list] of byFile) {
      const abs = path.join(ws.root, file);
      client.didOpen(abs, fs.readFileSync(abs, 'utf8'));
      const got = await collectPyrightCalls(client, ws.root, list, { concurrency: opts.concurrency ?? 4, timeoutMs: opts.timeoutMs ?? 60_000 });
      client.didClose(abs);
      facts.push(...got.facts);
      notPrepared.push(...got.notPrepared);
      answeredElsewhere.push(...got.answeredElsewhere);
      failed.push(...got.failed);
      done += list.length;
      if (Date.now() - lastReport > 10_000) {
        lastReport = Date.now();
        log(`calls-ts eval [${set}]: tsserver ${done}/${callers.length} (${secs(Date.now() - tCalls)} s)`);
      }
    }
    await client.stop();
    client = undefined;
    const callsMs = Date.now() - tCalls;

    const index = new EntityIndex(side.entities, side.inherits);
    const lines = fileLines(engine!);
    const unanswered = new Set([...notPrepared, ...answeredElsewhere, ...failed.map((f) => f.id)]);
    // `new C` without parentheses and tagged templates are calls too; JSX elements are not text calls.
    const isCall = (file: string, site: Pos) => {
      const line = lines(file)[site.row] ?? '';
      return callShape(line, site.column).isCall || /^[\w$]*\s*(<[^>]*>)?\s*[(`]/.test(line.slice(site.column)) || /\bnew\s+[\w$.]*$/.test(line.slice(0, site.column));
    };
    // `compileSchema.call(this, s)`: NSCCN's edge goes to compileSchema, tsserver's to Function.prototype.call.
    const invoked = (file: string, site: Pos) => /^[\w$]+\s*\.\s*(call|apply)\s*\(/.test((lines(file)[site.row] ?? '').slice(site.column));
    const cmp = compareCalls(index, facts, side.facts, isCall, unanswered, invoked);
    const perPackage: Record<string, Metrics> = {};
    for (const s of sources) perPackage[s.label] = metrics(cmp, (c) => packageOf(index, c) === s.label);
    const stats = engine.stats();
    const entities = Object.values(stats.entities).reduce((a, b) => a + b, 0);
    return {
      set,
      packages: sources.map((s) => s.label),
      workspace: { files: ws.files, bytes: ws.bytes },
      index: { seconds: secs(indexMs), mbPerSecond: Math.round((ws.bytes / 1e6 / (indexMs / 1000)) * 100) / 100, entitiesPerSecond: Math.round(entities / (indexMs / 1000)), entities },
      callers: { asked: callers.length, notPrepared: notPrepared.length, answeredElsewhere: answeredElsewhere.length, failed: failed.length },
      dropped: cmp.drops,
      overall: metrics(cmp),
      perPackage,
      causes: classify(cmp, { lines, signature: (id) => side.signatures.get(id) }),
      seconds: { tsserverCalls: secs(callsMs) },
    };
  } finally {
    if (client) await client.stop();
    if (engine) await engine.close();
    if (opts.keep) log(`calls-ts eval: workspace kept at ${ws.root}`);
    else ws.dispose();
  }
}

export async function runCallsTsEval(opts: CallsTsOptions = {}): Promise<CallsTsResult> {
  const log = opts.log ?? ((m: string) => process.stderr.write(m + '\n'));
  const sets = opts.sets?.length ? opts.sets : (['ts', 'js'] as const);
  const results: SetResult[] = [];
  for (const s of sets) results.push(await runSet(s, opts, log));
  const result: CallsTsResult = {
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg().map((x) => Math.round(x * 100) / 100) },
    typescript: version('typescript'),
    server: `typescript-language-server ${version('typescript-language-server')}`,
    sets: results,
  };
  console.log(formatCallsTs(result));
  if (opts.out !== null) {
    const out = opts.out ?? path.resolve('bench-results', 'eval-calls-ts.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    log(`calls-ts eval: wrote ${out}`);
  }
  return result;
}

export function formatCallsTs(r: CallsTsResult): string {
  const out = [`CALLS vs TypeScript ${r.typescript} call hierarchy (${r.server}); load average ${r.machine.loadavg.join(' ')} on ${r.machine.cpus} cpus`];
  for (const s of r.sets) {
    const rows: Array<[string, Metrics]> = [...Object.entries(s.perPackage), ['all', s.overall]];
    out.push(
      '',
      `== ${s.set === 'ts' ? 'TypeScript' : 'JavaScript'}: ${s.workspace.files} files, ${(s.workspace.bytes / 1e6).toFixed(2)} MB; index ${s.index.seconds} s = ${s.index.mbPerSecond} MB/s, ${s.index.entitiesPerSecond} entities/s`,
      metricsTable(rows).replace('pyright', 'tsserver'),
      `callers asked: ${s.callers.asked}; no item ${s.callers.notPrepared}, answered for another def ${s.callers.answeredElsewhere}, failed ${s.callers.failed}`,
      dropsText(s.dropped, 0).replace(/pyright/g, 'tsserver'),
      '',
      causesText('Missed (tsserver has the edge, NSCCN does not)', s.causes.missed, 6),
      '',
      causesText('Extra (NSCCN has the edge, tsserver does not)', s.causes.extra, 6),
      `tsserver calls: ${s.seconds.tsserverCalls} s`,
    );
  }
  return out.join('\n');
}

function version(pkg: string): string {
  try {
    return (JSON.parse(fs.readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function parseCallsTsArgs(argv: string[]): CallsTsOptions {
  const f = readFlags(argv, { sets: { type: 'string' }, out: { type: 'string' }, 'no-out': { type: 'boolean' }, keep: { type: 'boolean' } });
  const sets = listFlag(f.sets);
  for (const x of sets ?? []) if (x !== 'ts' && x !== 'js') throw new Error(`--sets takes ts and/or js, not ${x}`);
  return strip({ sets: sets as Array<'ts' | 'js'> | undefined, out: f['no-out'] ? null : stringFlag(f.out), keep: onFlag(f.keep) });
}
