// `npm run bench -- skeleton`: what the Orient and Trace answers cost an agent, on flask-like
// packages from site-packages and the standard library.
// - Skeleton: median token reduction per file (1 - skeleton / source tokens) at each docs level.
// - Trace: output size of `trace X --depth 3` (down) for every function and method, as text
//   with unresolved names listed (the old view) and folded (the new default), and as JSON, with
//   and without a 1,000-token budget.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DOCS_LEVELS, type DocsLevel, type TraceResult } from '../../protocol';
import { formatTrace } from '../src/cli/output';
import { countTokens } from '../src/engine/skeleton/tokens';
import { Engine } from '../src/engine/engine';
import { pythonStdlib, sitePackages } from './corpora';

const PACKAGES = ['flask', 'jinja2', 'werkzeug', 'click'];
const SKIP = new Set(['site-packages', 'dist-packages', '__pycache__', 'test', 'tests', 'idlelib', 'lib2to3']);
const TRACE_BUDGET = 1000;
/** Trace sizes on the stdlib: every n-th function (sorted by id), to keep the bench minutes. */
const STDLIB_TRACE_SAMPLE = 400;

function pyFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      if (SKIP.has(d.name)) continue;
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.isFile() && d.name.endsWith('.py')) out.push(path.relative(root, p).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : 0;
};
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function skeletonReduction(root: string): Promise<Record<string, unknown>> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-sk-'));
  const engine = await Engine.open({ root, dbPath: path.join(tmp, 'index.db'), workers: 0, embeddings: { model: 'none' } });
  const byLevel: Record<string, number[]> = {};
  const tokens: Record<string, number> = {};
  let source = 0;
  const files = pyFiles(root);
  for (const f of files) {
    for (const docs of DOCS_LEVELS) {
      let sk;
      try {
        sk = engine.skeleton(f, { docs });
      } catch {
        continue; // unreadable or not UTF-8: the index skips it too
      }
      if (sk.originalTokens === 0) continue;
      if (docs === 'full') source += sk.originalTokens;
      (byLevel[docs] ??= []).push(1 - sk.skeletonTokens / sk.originalTokens);
      tokens[docs] = (tokens[docs] ?? 0) + sk.skeletonTokens;
    }
  }
  await engine.close();
  fs.rmSync(tmp, { recursive: true, force: true });
  const out: Record<string, unknown> = { files: byLevel.full?.length ?? 0, sourceTokens: source };
  for (const docs of DOCS_LEVELS as DocsLevel[]) {
    out[`median_${docs}`] = +median(byLevel[docs] ?? []).toFixed(3);
    out[`overall_${docs}`] = +(1 - (tokens[docs] ?? 0) / source).toFixed(3);
  }
  return out;
}

async function traceSizes(root: string, sample: number | null): Promise<Record<string, unknown>> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-tr-'));
  const exclude = [...SKIP].map((s) => `/${s}/`);
  const engine = await Engine.open({ root, dbPath: path.join(tmp, 'index.db'), exclude, embeddings: { model: 'none' } });
  await engine.indexWorkspace();
  let ids = [...engine.store.modelRows()].flatMap(([, f]) => f.entities.filter(([, kind]) => kind === 'function' || kind === 'method').map(([id]) => id)).sort();
  if (sample && ids.length > sample) {
    const step = ids.length / sample;
    ids = Array.from({ length: sample }, (_, i) => ids[Math.floor(i * step)]);
  }
  const rows = { listed: [] as number[], folded: [] as number[], json: [] as number[], budgetJson: [] as number[], listedLines: [] as number[], foldedLines: [] as number[], unresolvedShare: [] as number[] };
  const example: Record<string, unknown> = {};
  for (const id of ids) {
    const t: TraceResult = engine.trace({ id, direction: 'down', depth: 3 });
    const listed = formatTrace(t, { unresolved: true });
    const folded = formatTrace(t);
    const edges = Object.values(t.adjacency).flat();
    if (!edges.length) continue;
    rows.listed.push(countTokens(listed));
    rows.folded.push(countTokens(folded));
    rows.listedLines.push(listed.split('\n').length);
    rows.foldedLines.push(folded.split('\n').length);
    rows.json.push(countTokens(JSON.stringify(t)));
    rows.budgetJson.push(countTokens(JSON.stringify(engine.trace({ id, direction: 'down', depth: 3, maxTokens: TRACE_BUDGET }))));
    rows.unresolvedShare.push(edges.filter((e) => !e.resolved).length / edges.length);
    if (/:Flask\.wsgi_app$/.test(id)) {
      Object.assign(example, {
        id,
        listedLines: listed.split('\n').length,
        listedBytes: Buffer.byteLength(listed),
        foldedLines: folded.split('\n').length,
        foldedBytes: Buffer.byteLength(folded),
        jsonBytes: Buffer.byteLength(JSON.stringify(t, null, 2)),
      });
    }
  }
  await engine.close();
  fs.rmSync(tmp, { recursive: true, force: true });
  return {
    traces: rows.listed.length,
    medianTokensListed: median(rows.listed),
    medianTokensFolded: median(rows.folded),
    totalTokensListed: sum(rows.listed),
    totalTokensFolded: sum(rows.folded),
    medianLinesListed: median(rows.listedLines),
    medianLinesFolded: median(rows.foldedLines),
    medianUnresolvedShareOfEdges: +median(rows.unresolvedShare).toFixed(3),
    medianJsonTokens: median(rows.json),
    maxJsonTokens: Math.max(0, ...rows.json),
    [`maxJsonTokensWithin${TRACE_BUDGET}`]: Math.max(0, ...rows.budgetJson),
    ...(Object.keys(example).length ? { wsgiApp: example } : {}),
  };
}

export async function benchSkeleton(): Promise<Record<string, unknown>> {
  const site = sitePackages();
  const result: Record<string, unknown> = { skeleton: {}, trace: {} };
  const sk = result.skeleton as Record<string, unknown>;
  const tr = result.trace as Record<string, unknown>;
  for (const p of PACKAGES) {
    const root = path.join(site, p);
    if (!fs.existsSync(root)) continue;
    sk[p] = await skeletonReduction(root);
    if (p === 'flask') tr[p] = await traceSizes(root, null);
  }
  const stdlib = pythonStdlib();
  sk.stdlib = await skeletonReduction(stdlib);
  if (!process.argv.includes('--no-stdlib-trace')) tr.stdlib = await traceSizes(stdlib, STDLIB_TRACE_SAMPLE);
  return result;
}
