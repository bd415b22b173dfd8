// `npm run soak [-- --edits 10000 --seeds 1,2 --langs python,typescript]`: the differential edit
// fuzz at soak size (edit-fuzz.ts), `--edits` per language and seed; a language with several
// files (TypeScript: .ts, .tsx and .js) shares its edits between them. Prints each run's counts,
// time and the process's peak RSS, writes bench-results/soak.json, and exits 1 with the shrunk
// reproduction on the first mismatch.
import * as path from 'node:path';
import { writeResult } from '../bench/corpora';
import { FuzzMismatch, PYTHON_SNIPPETS, TS_SNIPPETS, runEditFuzz, type FuzzReport } from './edit-fuzz';

const REPO = path.resolve(__dirname, __dirname.split(path.sep).includes('dist') ? '../../..' : '../..');

/** The files each language's edits go to (fixture folder, edited file) and what they insert. */
const TARGETS: Record<string, { snippets: readonly string[]; files: Array<{ fixture: string; file: string }> }> = {
  python: { snippets: PYTHON_SNIPPETS, files: [{ fixture: 'python', file: 'shop/services/checkout.py' }] },
  typescript: {
    snippets: TS_SNIPPETS,
    files: [
      { fixture: 'typescript', file: 'src/services/checkout.ts' },
      { fixture: 'typescript', file: 'src/ui/CartView.tsx' },
      { fixture: 'javascript', file: 'esm/src/main.js' },
    ],
  },
};

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function main(): Promise<void> {
  const edits = Number(arg('edits', '10000'));
  const seeds = arg('seeds', '1').split(',').map(Number);
  const langs = arg('langs', Object.keys(TARGETS).join(',')).split(',');
  const unknown = langs.filter((l) => !TARGETS[l]);
  if (unknown.length) throw new Error(`unknown --langs ${unknown.join(', ')}; known: ${Object.keys(TARGETS).join(', ')}`);
  const reports: Array<FuzzReport & { file: string }> = [];
  let peakRss = 0;
  const sample = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  try {
    for (const lang of langs) {
      const { snippets, files } = TARGETS[lang];
      for (const seed of seeds) {
        for (const [i, { fixture, file }] of files.entries()) {
          // Shares `edits` between the files, the remainder to the first.
          const share = Math.floor(edits / files.length) + (i === 0 ? edits % files.length : 0);
          let last = 0;
          const r = await runEditFuzz({
            seed,
            edits: share,
            fixture: path.join(REPO, 'fixtures', fixture),
            file,
            snippets,
            coldEvery: 25,
            onMismatch: (m, steps) => process.stderr.write(`${file} seed ${seed}: mismatch after ${steps} steps, shrinking: ${m}\n`),
            onBatch: (done) => {
              if (done - last >= 1000) {
                last = done;
                process.stderr.write(`${file} seed ${seed}: ${done}/${share} edits, rss ${Math.round(process.memoryUsage().rss / 1e6)} MB\n`);
              }
            },
          });
          reports.push({ ...r, file });
          console.log(`${file} seed ${r.seed}: ${r.edits} edits in ${r.batches} batches (${r.wholeReplacements} whole-buffer, ${r.staleRefused} stale versions refused, ${r.coldChecks} cold checks): equal, ${r.seconds} s`);
        }
      }
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
