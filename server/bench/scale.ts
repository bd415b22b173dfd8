// `npm run bench -- scale`: a cold index of the machine's site-packages (130 MB of real
// third-party Python), then a re-index with nothing changed. Peak memory is the figure to watch.
// Then the index reopened, as a new process finds it, and its symbol model read whole: what the
// first change of that process waits for (`nsccn trace` right after an edit).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { pythonFiles, sitePackages } from './corpora';

export async function benchScale(): Promise<Record<string, unknown>> {
  const root = sitePackages();
  const corpus = pythonFiles(root);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-scale-'));
  const dbPath = path.join(tmp, 'index.db');
  try {
    const t0 = performance.now();
    // Opened as `nsccn index` opens it: grammars on this thread only if the run parses here.
    const engine = await Engine.open({ root, dbPath, embeddings: { model: 'none' }, grammars: 'when-parsing' });
    const cold = await engine.indexWorkspace();
    const coldSeconds = (performance.now() - t0) / 1000;
    const peakRssColdMB = Math.round(process.resourceUsage().maxRSS / 1024);
    const t1 = performance.now();
    const again = await engine.indexWorkspace();
    const warmSeconds = (performance.now() - t1) / 1000;
    const stats = engine.stats();
    await engine.close();
    const reopened = await Engine.open({ root, dbPath, embeddings: { model: 'none' }, lazy: true });
    const t2 = performance.now();
    reopened.graph.load();
    const modelReadSeconds = (performance.now() - t2) / 1000;
    await reopened.close();
    const mb = corpus.bytes / 1024 / 1024;
    return {
      corpus: { root, files: corpus.files, megabytes: +mb.toFixed(1) },
      indexedFiles: cold.files,
      skipped: cold.skipped.length,
      entities: cold.entities,
      edges: cold.edges,
      unresolvedRefs: stats.unresolvedEdges,
      coldSeconds: +coldSeconds.toFixed(1),
      coldMBps: +(mb / coldSeconds).toFixed(2),
      reindexSeconds: +warmSeconds.toFixed(2),
      reindexParsed: again.parsed,
      peakRssColdIndexMB: peakRssColdMB,
      modelReadSeconds: +modelReadSeconds.toFixed(2),
      indexMB: +(stats.dbBytes / 1024 / 1024).toFixed(1),
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
