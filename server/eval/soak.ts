// `npm run soak [-- --edits 10000 --seeds 1,2]`: the differential edit fuzz at soak size
// (edit-fuzz.ts). Prints each seed's counts, time and the process's peak RSS, writes
// bench-results/soak.json, and exits 1 with the shrunk reproduction on the first mismatch.
import * as path from 'node:path';
import { writeResult } from '../bench/corpora';
import { FuzzMismatch, runEditFuzz, type FuzzReport } from './edit-fuzz';

const REPO = path.resolve(__dirname, __dirname.split(path.sep).includes('dist') ? '../../..' : '../..');

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function main(): Promise<void> {
  const edits = Number(arg('edits', '10000'));
  const seeds = arg('seeds', '1').split(',').map(Number);
  const fixture = path.join(REPO, 'fixtures', 'python');
  const reports: FuzzReport[] = [];
  let peakRss = 0;
  const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    for (const seed of seeds) {
      let last = 0;
      const r = await runEditFuzz({
        seed,
        edits,
        fixture,
        file: 'shop/services/checkout.py',
        coldEvery: 25,
        onMismatch: (m, steps) => process.stderr.write(`seed ${seed}: mismatch after ${steps} steps, shrinking: ${m}\n`),
        onBatch: (done) => {
          if (done - last >= 1000) {
            last = done;
            process.stderr.write(`seed ${seed}: ${done}/${edits} edits, rss ${Math.round(process.memoryUsage().rss / 1e6)} MB\n`);
          }
        },
      });
      reports.push(r);
      console.log(`seed ${r.seed}: ${r.edits} edits in ${r.batches} batches (${r.wholeReplacements} whole-buffer, ${r.staleRefused} stale versions refused, ${r.coldChecks} cold checks): equal, ${r.seconds} s`);
    }
  } catch (e) {
    if (e instanceof FuzzMismatch) {
      console.error(e.message);
      process.exitCode = 1;
      return;
    }
    throw e;
  } finally {
    clearInterval(sample);
  }
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(`peak RSS ${Math.round(peakRss / 1e6)} MB`);
  console.log(`wrote ${writeResult('soak', { reports, peakRssBytes: peakRss })}`);
}

void main().catch((e) => {
  console.error(`soak failed: ${(e as Error).stack ?? e}`);
  process.exitCode = 1;
});
