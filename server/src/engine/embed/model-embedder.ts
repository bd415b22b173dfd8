// A transformer embedder (`@huggingface/transformers` feature extraction: the model's pooling,
// normalized) running in its own worker thread, so that tokenizing and inference never hold
// up requests on the engine's thread. Loading is guarded by an inactivity timeout — a download
// that stalls or a load that never answers ends the thread with a clear error — and so is each
// batch: a model thread is never waited on forever.
// Worker threads are required where one starts: the module costs ~3.5 ms, and a query starts none.
import type { Worker } from 'node:worker_threads';
import type { Embedder, EmbedRole } from './embedder';
import type { ModelPlan } from './model-settings';
import { modelWorkerMain, type FromModelWorker, type ModelWorkerData } from './model-worker';

export interface ModelTimeouts {
  /** Loading fails when no progress was reported for this long. */
  loadIdleMs: number;
  /** One batch fails (and the thread is stopped) after this long. */
  batchMs: number;
}

export const DEFAULT_TIMEOUTS: ModelTimeouts = { loadIdleMs: 60_000, batchMs: 120_000 };

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class ModelEmbedder implements Embedder {
  readonly id: string;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private dead: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    readonly plan: ModelPlan,
    readonly dims: number,
    readonly dtype: string,
    private readonly timeouts: ModelTimeouts,
  ) {
    // Anything that changes the vectors is part of the id: switching it re-embeds.
    this.id = `${plan.name}|${dtype}|${plan.pooling}|${plan.queryPrefix}`;
    worker.on('message', (m: FromModelWorker) => this.onMessage(m));
    worker.on('error', (e) => this.fail(new Error(`model thread failed: ${e.message}`)));
    worker.on('exit', (code) => this.fail(new Error(`model thread exited (code ${code})`)));
  }

  static load(plan: ModelPlan, timeouts: ModelTimeouts = DEFAULT_TIMEOUTS): Promise<ModelEmbedder> {
    const data: ModelWorkerData = {
      transformersPath: require.resolve('@huggingface/transformers'),
      ref: plan.ref,
      dtypes: plan.dtypes,
      pooling: plan.pooling,
      allowRemote: plan.allowRemote,
      cacheDir: plan.cacheDir,
    };
    return new Promise((resolve, reject) => {
      let worker: Worker;
      try {
        worker = new (require('node:worker_threads') as typeof import('node:worker_threads')).Worker(`(${modelWorkerMain.toString()})()`, { eval: true, workerData: data });
      } catch (e) {
        return reject(new Error(`cannot start the model thread: ${(e as Error).message}`));
      }
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          settle();
          void worker.terminate();
          reject(new Error(`loading ${plan.name} made no progress for ${Math.round(timeouts.loadIdleMs / 1000)} s; gave up`));
        }, timeouts.loadIdleMs);
      };
      const onMessage = (m: FromModelWorker) => {
        if (m.type === 'progress') return arm();
        settle();
        if (m.type === 'ready') {
          // The thread must not keep a finished CLI command alive; pending batches have timers that do.
          worker.unref();
          resolve(new ModelEmbedder(worker, plan, m.dims, m.dtype, timeouts));
        }
        else {
          void worker.terminate();
          reject(new Error(m.type === 'error' ? m.message : `unexpected message ${m.type} while loading`));
        }
      };
      const onError = (e: Error) => {
        settle();
        reject(new Error(`model thread failed while loading: ${e.message}`));
      };
      const onExit = (code: number) => {
        settle();
        reject(new Error(`model thread exited while loading (code ${code})`));
      };
      const settle = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      arm();
    });
  }

  embed(texts: string[], role: EmbedRole = 'document'): Promise<Float32Array[]> {
    if (this.dead) return Promise.reject(this.dead);
    if (!texts.length) return Promise.resolve([]);
    const input = role === 'query' && this.plan.queryPrefix ? texts.map((t) => this.plan.queryPrefix + t) : texts;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.fail(new Error(`embedding ${texts.length} texts took longer than ${Math.round(this.timeouts.batchMs / 1000)} s; model thread stopped`));
        void this.worker.terminate();
      }, this.timeouts.batchMs);
      this.pending.set(id, { resolve, reject, timer });
      this.worker.postMessage({ id, texts: input });
    });
  }

  /** Set once the thread is gone; every later call fails with it. */
  get error(): Error | null {
    return this.dead;
  }

  async close(): Promise<void> {
    this.fail(new Error('the model was closed'));
    await this.worker.terminate();
  }

  private onMessage(m: FromModelWorker): void {
    if (m.type !== 'vectors' && m.type !== 'failed') return;
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    if (m.type === 'failed') return p.reject(new Error(m.message));
    const out: Float32Array[] = [];
    for (let i = 0; i < m.data.length / m.dims; i++) out.push(m.data.slice(i * m.dims, (i + 1) * m.dims));
    p.resolve(out);
  }

  private fail(e: Error): void {
    if (!this.dead) this.dead = e;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(this.dead);
    }
    this.pending.clear();
  }
}
