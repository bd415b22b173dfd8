// `npm run bench -- index`: cold index of the Python standard library (no site-packages) with
// where its time went, a re-index with nothing changed and with one file changed (in the same
// process, and as the next CLI query),
// universal-ctags on the same tree, the parse-only floor, and skeleton reduction. The tree is
// indexed from a copy (the changed file must not be the machine's).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { LANGUAGES, languageForPath } from '../src/engine/languages/registry';
import { Parsers } from '../src/engine/parse/parsers';
import { INDEX_PHASES, type IndexPhase, type IndexProfile } from '../src/engine/workspace/profile';
import { pythonFiles, pythonStdlib, writeResult } from './corpora';
import { median } from './stats';

const SKIP = ['site-packages', 'dist-packages'];

const cpuSeconds = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1e6;
/** Edits after the first whose re-index is timed (the median is reported). */
const ONE_CHANGED_EDITS = 11;
const WORKER_PHASES: IndexPhase[] = ['read', 'parse', 'extract', 'encode'];

/**
 * The phase split in CPU seconds: each thread's CPU time shared among its phases by their wall
 * times (which other loads on the machine stretch, but alike). Null where CPU time is unknown.
 */
function cpuSplit(p: IndexProfile | null): Record<string, number> | null {
  if (!p?.cpuMs) return null;
  const out: Record<string, number> = {};
  const share = (phases: IndexPhase[], cpu: number) => {
    const wall = phases.reduce((a, k) => a + p.ms[k], 0);
    for (const k of phases) out[k] = wall ? +((cpu * p.ms[k]) / wall / 1000).toFixed(2) : 0;
  };
  const main = INDEX_PHASES.filter((k) => !WORKER_PHASES.includes(k));
  if (p.workers) share(WORKER_PHASES, p.cpuMs.workers);
  share(p.workers ? main : [...INDEX_PHASES], p.cpuMs.main);
  return out;
}

export async function benchIndex(): Promise<Record<string, unknown>> {
  const source = pythonStdlib();
  const corpus = pythonFiles(source, SKIP);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-'));
  const root = path.join(tmp, 'tree');
  fs.cpSync(source, root, { recursive: true, filter: (p) => !SKIP.includes(path.basename(p)) && path.basename(p) !== '__pycache__' });
  // Where the CLI looks for it (the query after an edit, below, is a CLI process).
  const dbPath = path.join(root, '.nsccn', 'index.db');
  const exclude = SKIP.map((s) => `/${s}/`);

  const t0 = performance.now();
  const c0 = process.cpuUsage();
  // Opened as `nsccn index` opens it: grammars on this thread only if the run parses here.
  const engine = await Engine.open({ root, dbPath, exclude, embeddings: { model: 'none' }, grammars: 'when-parsing' });
  const cold = await engine.indexWorkspace();
  const coldSeconds = (performance.now() - t0) / 1000;
  // Every thread of the process (workers included): the figure other loads on the machine do not move.
  const coldCpuSeconds = cpuSeconds(process.cpuUsage(c0));
  const profile = engine.lastIndexProfile;
  const rssAfterCold = process.memoryUsage().rss;
  // maxRSS only grows: read now, it is the peak of the cold index (workers included).
  const peakRssColdMB = Math.round(process.resourceUsage().maxRSS / 1024);
  // The one-file re-index and the skeletons below parse on this thread (untimed here).
  await engine.loadGrammars();

  // The static vectors fill in the background on this thread after a first index: let them
  // finish (timed: the last phase of a first index), so the re-index below is timed alone.
  const tv = performance.now();
  await engine.finishEmbeddings();
  const vectorsSeconds = (performance.now() - tv) / 1000;
  const t1 = performance.now();
  const again = await engine.indexWorkspace();
  const warmSeconds = (performance.now() - t1) / 1000;

  // One file changed: a function added at the end of a mid-sized module that others import.
  const changed = path.join(root, 'json', 'decoder.py');
  fs.appendFileSync(changed, '\n\ndef _bench_added(s):\n    return JSONDecoder().decode(s)\n');
  const t2 = performance.now();
  const oneChanged = await engine.indexWorkspace();
  const oneChangedSeconds = (performance.now() - t2) / 1000;
  // The first edit is one sample; the median of more is the figure to compare. Each edit renames
  // the added function (a name leaves, one comes: what invalidation looks up), and the vectors
  // of the edit are made before the next, untimed.
  const original = fs.readFileSync(changed, 'utf8');
  const editMs: number[] = [];
  for (let i = 0; i < ONE_CHANGED_EDITS; i++) {
    await engine.finishEmbeddings();
    fs.writeFileSync(changed, original.replace('def _bench_added(', `def _bench_added_${i}(`));
    const t = performance.now();
    await engine.indexWorkspace();
    editMs.push(performance.now() - t);
  }
  fs.writeFileSync(changed, original);
  await engine.indexWorkspace();
  const stats = engine.stats();

  // Skeleton reduction over every indexed file.
  const reductions: number[] = [];
  const files = engine.store.files().map((f) => f.path);
  const ts = performance.now();
  for (const f of files) {
    try {
      const sk = engine.skeleton(f);
      if (sk.originalTokens > 0) reductions.push(1 - sk.skeletonTokens / sk.originalTokens);
    } catch {
      /* unreadable files were skipped by the index too */
    }
  }
  const skeletonSeconds = (performance.now() - ts) / 1000;
  const medianReduction = reductions.length ? median(reductions) : 0;
  await engine.close();

  // A CLI query right after one file changed: a new process re-indexes the file first, and the
  // first change a process makes reads the whole symbol model from the index.
  fs.appendFileSync(changed, '\n\ndef _bench_cli_added(s):\n    return JSONDecoder().decode(s)\n');
  const cli = path.join(__dirname, '..', 'src', 'cli', 'main.js');
  const tq = performance.now();
  const query = spawnSync(process.execPath, [cli, 'trace', 'func:json/decoder.py:_bench_cli_added', '--root', root], { encoding: 'utf8', env: { ...process.env, NSCCN_TIMING: '1' } });
  const cliTraceAfterEditSeconds = (performance.now() - tq) / 1000;
  if (query.status !== 0 || !query.stdout.includes('decode')) throw new Error(`nsccn trace after an edit failed: ${query.stderr}`);
  const timing = /nsccn-timing: (\{.*\})/.exec(query.stderr);
  const cliFreshMs = timing ? (JSON.parse(timing[1]) as { steps: Record<string, number> }).steps.fresh ?? null : null;

  let ctagsSeconds: number | null = null;
  try {
    const tc = performance.now();
    execFileSync('ctags', ['-R', '--languages=Python', ...SKIP.map((s) => `--exclude=${s}`), '-f', path.join(tmp, 'tags'), root], { stdio: 'ignore' });
    ctagsSeconds = (performance.now() - tc) / 1000;
  } catch {
    ctagsSeconds = null;
  }
  // The floor under everything: tree-sitter alone, one core, no extraction or storage.
  const parsers = new Parsers();
  await parsers.load(LANGUAGES);
  let parseBytes = 0;
  const cpu0 = process.cpuUsage();
  for (const f of files) {
    const lang = languageForPath(f);
    if (!lang) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(root, f), 'utf8');
    } catch {
      continue;
    }
    parsers.parse(lang, text).delete();
    parseBytes += Buffer.byteLength(text);
  }
  const parseCpuSeconds = cpuSeconds(process.cpuUsage(cpu0));
  const mb = corpus.bytes / 1024 / 1024;
  // Parsing alone spread perfectly over two cores: what no index of this tree can beat here.
  const parseFloorTwoCoresSeconds = parseCpuSeconds / 2;
  const result = {
    corpus: { root: source, files: corpus.files, megabytes: +mb.toFixed(1) },
    indexedFiles: cold.files,
    skipped: cold.skipped.length,
    entities: cold.entities,
    edges: cold.edges,
    entityKinds: stats.entities,
    edgeRelations: stats.edges,
    dispatchEdges: stats.dispatchEdges,
    unresolvedRefs: stats.unresolvedEdges,
    coldSeconds: +coldSeconds.toFixed(2),
    coldCpuSeconds: +coldCpuSeconds.toFixed(2),
    coldMBps: +(mb / coldSeconds).toFixed(1),
    // Phase split of the cold index in milliseconds; worker phases summed over the workers.
    coldProfile: profile,
    coldSplitCpuSeconds: cpuSplit(profile),
    vectorsSeconds: +vectorsSeconds.toFixed(2),
    reindexSeconds: +warmSeconds.toFixed(3),
    reindexPercentOfCold: +((100 * warmSeconds) / coldSeconds).toFixed(1),
    reindexParsed: again.parsed,
    reindexOneChangedSeconds: +oneChangedSeconds.toFixed(3),
    reindexOneChangedMedianMs: +median(editMs).toFixed(1),
    reindexOneChangedEdits: editMs.length,
    reindexOneChangedParsed: oneChanged.parsed,
    // The same in a new process: `nsccn trace` on the function the edit added (process start,
    // re-index, answer), and its re-index step alone.
    cliTraceAfterOneFileChangedSeconds: +cliTraceAfterEditSeconds.toFixed(2),
    cliTraceAfterOneFileChangedReindexMs: cliFreshMs === null ? null : Math.round(cliFreshMs),
    peakRssColdIndexMB: peakRssColdMB,
    peakRssWholeBenchMB: Math.round(process.resourceUsage().maxRSS / 1024),
    rssAfterColdMB: Math.round(rssAfterCold / 1024 / 1024),
    indexMB: +(stats.dbBytes / 1024 / 1024).toFixed(1),
    ctagsSeconds: ctagsSeconds === null ? null : +ctagsSeconds.toFixed(2),
    ctagsMBps: ctagsSeconds === null ? null : +(mb / ctagsSeconds).toFixed(1),
    nsccnOverCtagsTime: ctagsSeconds === null ? null : +(coldSeconds / ctagsSeconds).toFixed(1),
    parseOnlyOneCoreMBps: +(parseBytes / 1024 / 1024 / parseCpuSeconds).toFixed(1),
    parseFloorTwoCoresSeconds: +parseFloorTwoCoresSeconds.toFixed(2),
    // Ours as a share of the floor (100 % would be parsing alone on both cores).
    coldPercentOfParseFloor: +((100 * parseFloorTwoCoresSeconds) / coldSeconds).toFixed(1),
    coldCpuOverParseCpu: +(coldCpuSeconds / parseCpuSeconds).toFixed(2),
    skeletonMedianReduction: +medianReduction.toFixed(3),
    skeletonFiles: reductions.length,
    skeletonSecondsAllFiles: +skeletonSeconds.toFixed(2),
  };
  fs.rmSync(tmp, { recursive: true, force: true });
  return result;
}

if (require.main === module) {
  void benchIndex().then((r) => {
    console.table(r);
    console.log(`wrote ${writeResult('bench-index', r)}`);
  });
}
