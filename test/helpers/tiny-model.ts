// Builds a tiny BERT-shaped model folder that @huggingface/transformers loads and runs through
// its real feature-extraction pipeline, with no network: a WordPiece tokenizer over a small
// vocabulary and an ONNX graph with one Gather(embedding_table, input_ids) node producing
// `last_hidden_state`. Mean pooling over that is a bag-of-words embedding.
//
// The vocabulary is grouped into *concepts*: every word of a concept gets the concept's
// direction plus a little noise, so "password" and "credential" land close together and far
// from "socket". That makes KNN assertions meaningful: if texts, rowids or vectors are mixed up
// anywhere in the plumbing, the nearest neighbour comes out wrong.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { onnx } from 'onnx-proto';
import { mulberry32 as rng } from '../../server/eval/random';
import { SPECIAL_TOKENS, tokenizerConfig, tokenizerJson } from '../../server/eval/transformer/wordpiece';

export { SPECIAL_TOKENS };

export const DEFAULT_CONCEPTS: Record<string, string[]> = {
  auth: ['password', 'credential', 'login', 'token', 'authenticate', 'user', 'secret', 'verify'],
  storage: ['database', 'query', 'sql', 'table', 'row', 'record', 'insert', 'commit'],
  files: ['file', 'path', 'directory', 'read', 'write', 'disk', 'folder', 'open'],
  network: ['http', 'socket', 'url', 'request', 'response', 'fetch', 'download', 'server'],
  maths: ['sum', 'average', 'mean', 'number', 'total', 'compute', 'statistics', 'median'],
  text: ['string', 'text', 'word', 'split', 'parse', 'format', 'char', 'line'],
};

/** Words that exist in the vocabulary but belong to no concept (random directions). */
export const DEFAULT_FILLER = ['def', 'return', 'self', 'the', 'a', 'of', 'to', 'func', 'method', 'class', 'module', 'py'];

export interface TinyModelOptions {
  /** Sub-folder name under the models root; this is the model id given to transformers.js. */
  name: string;
  dims?: number;
  concepts?: Record<string, string[]>;
  filler?: string[];
  seed?: number;
  /** Also write onnx/model_quantized.onnx (same graph) so that `dtype: 'q8'` is selected. */
  quantized?: boolean;
}

export interface TinyModel {
  /** The models root (transformers.js `localModelPath`). */
  root: string;
  /** The model folder itself. */
  dir: string;
  name: string;
  dims: number;
  vocab: string[];
}


function randomUnit(dims: number, next: () => number): Float32Array {
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    v[i] = next() * 2 - 1;
    norm += v[i] * v[i];
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i] /= norm;
  return v;
}

/** Vocabulary (ids in order) and the embedding table, row i for token i. */
function buildTable(opts: Required<Omit<TinyModelOptions, 'name' | 'quantized'>>): {
  vocab: string[];
  table: Float32Array;
} {
  const next = rng(opts.seed);
  const vocab: string[] = [...SPECIAL_TOKENS];
  const rows: Float32Array[] = SPECIAL_TOKENS.map(() => new Float32Array(opts.dims));
  const add = (word: string, vec: Float32Array) => {
    // A continuation piece (`##token`) shares the word's vector so camelCase and snake_case
    // identifiers embed like the separate words.
    for (const piece of [word, `##${word}`]) {
      vocab.push(piece);
      rows.push(vec);
    }
  };
  for (const words of Object.values(opts.concepts)) {
    const dir = randomUnit(opts.dims, next);
    for (const w of words) {
      const noise = randomUnit(opts.dims, next);
      const v = new Float32Array(opts.dims);
      for (let i = 0; i < opts.dims; i++) v[i] = dir[i] + 0.15 * noise[i];
      add(w, v);
    }
  }
  for (const w of opts.filler) add(w, Float32Array.from(randomUnit(opts.dims, next), (x) => x * 0.3));
  for (const p of ['_', '.', '(', ')', ',', ':', '-', '>', '=', '[', ']', '"', "'", '/']) {
    vocab.push(p);
    rows.push(new Float32Array(opts.dims));
  }
  const table = new Float32Array(rows.length * opts.dims);
  rows.forEach((r, i) => table.set(r, i * opts.dims));
  return { vocab, table };
}

function onnxModel(table: Float32Array, vocabSize: number, dims: number): Uint8Array {
  const T = onnx.TensorProto.DataType;
  const io = (name: string, elemType: number, shape: Array<string | number>): onnx.IValueInfoProto => ({
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: shape.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'nsccn-tests',
    opsetImport: [{ domain: '', version: 14 }],
    graph: {
      name: 'tiny',
      node: [{ opType: 'Gather', input: ['embeddings', 'input_ids'], output: ['last_hidden_state'], attribute: [] }],
      initializer: [
        {
          name: 'embeddings',
          dataType: T.FLOAT,
          dims: [vocabSize, dims],
          rawData: new Uint8Array(table.buffer, table.byteOffset, table.byteLength),
        },
      ],
      input: [io('input_ids', T.INT64, ['batch', 'sequence']), io('attention_mask', T.INT64, ['batch', 'sequence'])],
      output: [io('last_hidden_state', T.FLOAT, ['batch', 'sequence', dims])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/** Writes the model folder `<root>/<name>` and returns where it is. */
export function buildTinyModel(root: string, options: TinyModelOptions): TinyModel {
  const opts = {
    dims: options.dims ?? 32,
    concepts: options.concepts ?? DEFAULT_CONCEPTS,
    filler: options.filler ?? DEFAULT_FILLER,
    seed: options.seed ?? 7,
  };
  const { vocab, table } = buildTable(opts);
  const dir = path.join(root, options.name);
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  const graph = onnxModel(table, vocab.length, opts.dims);
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), graph);
  if (options.quantized) fs.writeFileSync(path.join(dir, 'onnx', 'model_quantized.onnx'), graph);
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ model_type: 'bert', hidden_size: opts.dims, vocab_size: vocab.length, max_position_embeddings: 512 }),
  );
  fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  fs.writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify(tokenizerConfig(512)),
  );
  return { root, dir, name: options.name, dims: opts.dims, vocab };
}
