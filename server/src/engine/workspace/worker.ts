// Worker thread body: parses and extracts the files it is sent, one batch at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { LANGUAGES } from '../languages/registry';
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
const ready = parsers.load(LANGUAGES);

parentPort!.on('message', async (jobs: FileJob[]) => {
  await ready;
  // A clock per batch: its times travel back with the batch.
  const clock = new ProfileClock();
  const cpu0 = threadCpuMs();
  const outcomes = jobs.map((job) => processFile(root, job, parsers, maxBytes, clock));
  const batch = clock.time('encode', () => encodeBatch(outcomes));
  batch.ms = clock.ms;
  const cpu1 = threadCpuMs();
  batch.cpuMs = cpu0 === null || cpu1 === null ? null : cpu1 - cpu0;
  parentPort!.postMessage(batch, [batch.ints.buffer as ArrayBuffer]);
});
