// The body of the model thread. It is started with `new Worker(source, { eval: true })` from
// the text of `modelWorkerMain`, so the same code runs from the TypeScript sources under the
// test runner and from the build — no worker file to locate, no TypeScript loader needed. The
// function must therefore stay self-contained: no imports, no closures, only `require`.
//
// Protocol (all messages are plain objects):
//   worker → parent  {type:'progress'}                    while loading (download or read)
//                    {type:'ready', dims, dtype}          model loaded and probed
//                    {type:'error', message}              loading failed; the thread ends
//   parent → worker  {id, texts}
//   worker → parent  {type:'vectors', id, dims, data}     data: Float32Array, texts × dims
//                    {type:'failed', id, message}

export interface ModelWorkerData {
  transformersPath: string;
  ref: string;
  dtypes: string[];
  pooling: string;
  allowRemote: boolean;
  cacheDir: string;
}

export type FromModelWorker =
  | { type: 'progress' }
  | { type: 'ready'; dims: number; dtype: string }
  | { type: 'error'; message: string }
  | { type: 'vectors'; id: number; dims: number; data: Float32Array }
  | { type: 'failed'; id: number; message: string };

export function modelWorkerMain(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parentPort, workerData } = require('node:worker_threads');
  const w = workerData as ModelWorkerData;
  const post = (m: FromModelWorker, transfer?: ArrayBuffer[]) => parentPort.postMessage(m, transfer);
  const message = (e: unknown) => String((e as Error)?.message ?? e);
  (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const t = require(w.transformersPath);
    t.env.allowRemoteModels = w.allowRemote;
    t.env.cacheDir = w.cacheDir;
    t.env.logLevel = 40; // errors only: the library's warnings are not the user's business
    let extractor = null;
    let dtype = '';
    let lastError: unknown = null;
    for (const d of w.dtypes) {
      try {
        extractor = await t.pipeline('feature-extraction', w.ref, {
          dtype: d,
          local_files_only: !w.allowRemote,
          cache_dir: w.cacheDir,
          progress_callback: () => post({ type: 'progress' }),
        });
        dtype = d;
        break;
      } catch (e) {
        lastError = e;
        // Only a missing file is a reason to try the next dtype; anything else is final.
        if (!/not found|404|missing|could not locate/i.test(message(e))) break;
      }
    }
    if (!extractor) return post({ type: 'error', message: message(lastError) });
    const fe = extractor;
    const run = async (texts: string[]) => {
      const out = await fe(texts, { pooling: w.pooling, normalize: true });
      const dims = out.dims[out.dims.length - 1];
      return { dims, data: Float32Array.from(out.data as Float32Array) };
    };
    const probe = await run(['def probe(): pass']);
    post({ type: 'ready', dims: probe.dims, dtype });
    parentPort.on('message', async (m: { id: number; texts: string[] }) => {
      try {
        const { dims, data } = await run(m.texts);
        post({ type: 'vectors', id: m.id, dims, data }, [data.buffer]);
      } catch (e) {
        post({ type: 'failed', id: m.id, message: message(e) });
      }
    });
  })().catch((e: unknown) => post({ type: 'error', message: message(e) }));
}
