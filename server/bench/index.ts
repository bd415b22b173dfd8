// `npm run bench -- index`: cold index of the Python standard library (no site-packages), a
// re-index with nothing changed, universal-ctags on the same tree, and skeleton reduction.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { LANGUAGES, languageForPath } from '../src/engine/languages/registry';
import { Parsers } from '../src/engine/parse/parsers';
import { pythonFiles, pythonStdlib, writeResult } from './corpora';

const SKIP = ['site-packages', 'dist-packages'];

export async function benchIndex(): Promise<Record<string, unknown>> {
  const root = pythonStdlib();
  const corpus = pythonFiles(root, SKIP);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-'));
  const dbPath = path.join(tmp, 'index.db');
  const exclude = SKIP.map((s) => `/${s}/`);

  const t0 = performance.now();
  // CPU of the whole process (worker threads included): fairer than wall time on a busy machine.
  const cpu0 = process.cpuUsage();
  const engine = await Engine.open({ root, dbPath, exclude, embeddings: { model: 'none' } });
  const cold = await engine.indexWorkspace();
  const coldSeconds = (performance.now() - t0) / 1000;
  const coldCpu = process.cpuUsage(cpu0);
  const rssAfterCold = process.memoryUsage().rss;
  // maxRSS only grows: read now, it is the peak of the cold index (workers included).
  const peakRssColdMB = Math.round(process.resourceUsage().maxRSS / 1024);

  // The static vectors fill in the background on this thread after a first index: let them
  // finish, so the re-index below is timed alone (what a later `nsccn index` meets).
  await engine.finishEmbeddings();
  const t1 = performance.now();
  const again = await engine.indexWorkspace();
  const warmSeconds = (performance.now() - t1) / 1000;
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
  reductions.sort((a, b) => a - b);
  const median = reductions.length ? reductions[Math.floor(reductions.length / 2)] : 0;
  await engine.close();

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
  const parseCpu0 = process.cpuUsage();
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
  const cpu = process.cpuUsage(parseCpu0);
  const parseCpuSeconds = (cpu.user + cpu.system) / 1e6;
  const mb = corpus.bytes / 1024 / 1024;
  const result = {
    corpus: { root, files: corpus.files, megabytes: +mb.toFixed(1) },
    indexedFiles: cold.files,
    skipped: cold.skipped.length,
    entities: cold.entities,
    edges: cold.edges,
    entityKinds: stats.entities,
    edgeRelations: stats.edges,
    dispatchEdges: stats.dispatchEdges,
    unresolvedRefs: stats.unresolvedEdges,
    coldSeconds: +coldSeconds.toFixed(2),
    coldMBps: +(mb / coldSeconds).toFixed(1),
    coldCpuSeconds: +((coldCpu.user + coldCpu.system) / 1e6).toFixed(1),
    reindexSeconds: +warmSeconds.toFixed(3),
    reindexPercentOfCold: +((100 * warmSeconds) / coldSeconds).toFixed(1),
    reindexParsed: again.parsed,
    peakRssColdIndexMB: peakRssColdMB,
    peakRssWholeBenchMB: Math.round(process.resourceUsage().maxRSS / 1024),
    rssAfterColdMB: Math.round(rssAfterCold / 1024 / 1024),
    indexMB: +(stats.dbBytes / 1024 / 1024).toFixed(1),
    ctagsSeconds: ctagsSeconds === null ? null : +ctagsSeconds.toFixed(2),
    ctagsMBps: ctagsSeconds === null ? null : +(mb / ctagsSeconds).toFixed(1),
    nsccnOverCtagsTime: ctagsSeconds === null ? null : +(coldSeconds / ctagsSeconds).toFixed(1),
    parseOnlyOneCoreMBps: +(parseBytes / 1024 / 1024 / parseCpuSeconds).toFixed(1),
    skeletonMedianReduction: +median.toFixed(3),
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
