// The small-transformer experiment's inputs (server/eval/transformer/prepare.ts): its vocabulary
// must read identifiers as their words through the real transformers.js tokenizer, and its
// starting rows must be the static table's, so that an untrained model is the static stream.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { chooseVocabulary, countPieces, initialRows } from '../server/eval/transformer/prepare';
import { tokenizerConfig, tokenizerJson } from '../server/eval/transformer/wordpiece';

describe('transformer experiment: vocabulary, tokenizer and starting rows', () => {
  const texts = Array.from({ length: 3 }, () => ['getUserName returns the user name', 'def parse_header(line): split header value', 'HTTPServer serve forever']).flat();
  const vocab = chooseVocabulary(countPieces(texts), 200);

  test('sub-words are counted bare at the start of a word and as ## continuations after it', () => {
    const counts = countPieces(['getUserName user_name']);
    expect(counts.get('get')).toBe(1);
    expect(counts.get('##user')).toBe(1);
    expect(counts.get('##name')).toBe(1);
    expect(counts.get('user')).toBe(1); // user_name: the underscore splits the word
    expect(counts.get('getusername')).toBe(1); // the whole word too, so a common identifier is one token
    expect(vocab.slice(0, 5)).toEqual(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']);
    expect(new Set(vocab).size).toBe(vocab.length);
  });

  test('the tokenizer transformers.js loads splits camelCase and snake_case identifiers into those words', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-tx-'));
    try {
      fs.mkdirSync(path.join(dir, 'm'));
      fs.writeFileSync(path.join(dir, 'm', 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
      fs.writeFileSync(path.join(dir, 'm', 'tokenizer_config.json'), JSON.stringify(tokenizerConfig(128)));
      const { AutoTokenizer, env } = await import('@huggingface/transformers');
      env.allowRemoteModels = false;
      env.localModelPath = dir;
      const tokenizer = await AutoTokenizer.from_pretrained('m');
      const tokens = (text: string) => (tokenizer.encode(text) as number[]).map((id) => vocab[id]);
      expect(tokens('getUserName')).toEqual(['[CLS]', 'getusername', '[SEP]']);
      expect(tokens('getHeaderName(line)')).toEqual(['[CLS]', 'get', '##header', '##name', '(', 'line', ')', '[SEP]']);
      expect(tokens('parse_header')).toEqual(['[CLS]', 'parse', '_', 'header', '[SEP]']);
      expect(tokens('zq')).toEqual(['[CLS]', 'z', '##q', '[SEP]']); // letters cover what the vocabulary lacks
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('each word token starts at its static-table row; specials and punctuation at zero', () => {
    const { rows, dims, covered } = initialRows(vocab);
    const row = (t: string) => rows.subarray(vocab.indexOf(t) * dims, (vocab.indexOf(t) + 1) * dims);
    const norm = (v: Float32Array) => Math.hypot(...v);
    expect(covered).toBeGreaterThan(10);
    expect(norm(row('[CLS]'))).toBe(0);
    expect(norm(row('('))).toBe(0);
    expect(norm(row('header'))).toBeGreaterThan(0);
    // A continuation piece stands for the same word as the bare one.
    expect(Array.from(row('##header'))).toEqual(Array.from(row('header')));
  });
});
