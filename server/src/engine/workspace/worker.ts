// Worker thread body: parses and extracts the files it is sent, one batch at a time.
import * as fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { languageForPath } from '../languages/registry';
import type { LanguageSupport } from '../languages/types';
import { Parsers } from '../parse/parsers';
import { processFile, type FileJob } from './process';
import { encodeBatch } from './wire';
import { ProfileClock, threadCpuMs } from './profile';

interface WorkerInit {
  root: string;
  maxBytes: number;
}

const { root, maxBytes } = workerData as WorkerInit;
const parsers = new Parsers();
let ready: Promise<void> = Promise.resolve();

parentPort!.on('message', async (jobs: FileJob[]) => {
  // Only the grammars the files need (a parser instance holds every grammar it loaded in its
  // WASM memory, twice with the spare): a Python tree never loads TypeScript's.
  const missing = [...new Set(jobs.map((j) => languageForPath(j.path)).filter((l): l is LanguageSupport => !!l && !parsers.wants(l)))];
  if (missing.length) ready = ready.then(() => parsers.load(missing));
  await ready;
  // A clock per batch: its times travel back with the batch.
  const clock = new ProfileClock();
  const cpu0 = threadCpuMs();
  const realRoot = fs.realpathSync(root);
  const outcomes = jobs.map((job) => processFile(root, job, parsers, maxBytes, clock, realRoot));
  const batch = clock.time('encode', () => encodeBatch(outcomes));
  batch.ms = clock.ms;
  const cpu1 = threadCpuMs();
  batch.cpuMs = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
  parentPort!.postMessage(batch, [batch.ints.buffer as ArrayBuffer]);
});
