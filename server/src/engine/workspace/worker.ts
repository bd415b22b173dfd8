// Worker thread body: parses and extracts the files it is sent, one batch at a time.
import { parentPort, workerData } from 'node:worker_threads';
import { LANGUAGES } from '../languages/registry';
import { Parsers } from '../parse/parsers';
import { processFile, type FileJob } from './process';
import { encodeBatch } from './wire';

interface WorkerInit {
  root: string;
  maxBytes: number;
}

const { root, maxBytes } = workerData as WorkerInit;
const parsers = new Parsers();
const ready = parsers.load(LANGUAGES);

parentPort!.on('message', async (jobs: FileJob[]) => {
  await ready;
  const batch = encodeBatch(jobs.map((job) => processFile(root, job, parsers, maxBytes)));
  parentPort!.postMessage(batch, [batch.ints.buffer as ArrayBuffer]);
});
