// Prepares the small-transformer experiment of issue 18 (train.py trains it): from the (text →
// code) pairs `npm run train-static -- --pairs-out FILE` writes, it makes
//   - a WordPiece vocabulary of the pairs' sub-words (whole words and `##` continuations, so
//     `getUserName` reads get ##user ##name after BERT's lowercasing) and the model folder's
//     tokenizer files (DIR/tokenizer), which @huggingface/transformers reads at search time;
//   - every pair tokenized by that same tokenizer (transformers.js, not a Python copy of it), so
//     training and search see the same ids;
//   - the starting token embeddings: each token's row of the shipped static table times its IDF,
//     so that the mean of a text's token rows (the pipeline's mean pooling) starts as the static
//     stream's vector of that text.
//
//   node dist/server/eval/transformer/prepare.js --pairs FILE --out DIR [--vocab 24000]
//     [--query-tokens 32] [--code-tokens 128]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeStaticTable, defaultStaticTablePath } from '../../src/engine/embed/static-asset';
import { staticWords, wordRows } from '../../src/engine/embed/terms';
import { positiveFlag, readFlags, stringFlag } from '../flags';
import { SPECIAL_TOKENS, tokenizerConfig, tokenizerJson } from './wordpiece';

const PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'];

interface PairLine {
  key: string;
  source: string;
  query: string;
  code: string;
}

/** Sub-word counts as BERT's pre-tokenizer and WordPiece would meet them: a word's first piece bare, the rest `##`. */
export function countPieces(texts: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (t: string) => counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const text of texts) {
    for (const word of text.match(/[A-Za-z0-9]+/g) ?? []) {
      const pieces = word.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [];
      pieces.forEach((p, i) => add(i ? `##${p.toLowerCase()}` : p.toLowerCase()));
      if (pieces.length > 1) add(word.toLowerCase());
    }
  }
  return counts;
}

export function chooseVocabulary(counts: Map<string, number>, size: number): string[] {
  const vocab: string[] = [...SPECIAL_TOKENS, ...PUNCTUATION];
  const have = new Set(vocab);
  const put = (t: string) => {
    if (!have.has(t)) {
      have.add(t);
      vocab.push(t);
    }
  };
  // Every letter and digit, bare and continuing: no word falls to [UNK].
  for (const c of 'abcdefghijklmnopqrstuvwxyz0123456789') {
    put(c);
    put(`##${c}`);
  }
  // A word is ranked by how often it occurs bare and continuing, and enters in both forms: a
  // word met only bare in the pairs (`header`) still reads as one piece inside `getHeader`.
  const total = new Map<string, number>();
  for (const [t, n] of counts) {
    const w = t.replace(/^##/, '');
    total.set(w, (total.get(w) ?? 0) + n);
  }
  const ranked = [...total].filter(([w, n]) => n >= 3 && w.length <= 24).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [w] of ranked) {
    if (vocab.length + 2 > size) break;
    put(w);
    put(`##${w}`);
  }
  return vocab;
}

/** Each token's static-table row (the sum of its words' rows, each times its IDF); zero for specials and punctuation. */
export function initialRows(vocab: string[]): { rows: Float32Array; dims: number; covered: number } {
  const file = defaultStaticTablePath();
  if (!file) throw new Error('the static table is not built (server/assets/static-embeddings.bin)');
  const table = decodeStaticTable(fs.readFileSync(file));
  const dims = table.header.dims;
  const index = new Map(table.vocab.map((w, i) => [w, i]));
  const rows = new Float32Array(vocab.length * dims);
  let covered = 0;
  vocab.forEach((token, t) => {
    if ((SPECIAL_TOKENS as readonly string[]).includes(token)) return;
    const word = token.replace(/^##/, '');
    const found = staticWords(word).flatMap((w) => wordRows(w, index));
    if (found.length) covered++;
    for (const r of found) {
      const s = table.scale[r] * table.idf[r];
      for (let d = 0; d < dims; d++) rows[t * dims + d] += table.vectors[r * dims + d] * s;
    }
  });
  return { rows, dims, covered };
}

async function main(): Promise<void> {
  const f = readFlags(process.argv.slice(2), { pairs: { type: 'string' }, out: { type: 'string' }, vocab: { type: 'string' }, 'query-tokens': { type: 'string' }, 'code-tokens': { type: 'string' } });
  const pairsFile = stringFlag(f.pairs);
  const out = stringFlag(f.out);
  if (!pairsFile || !out) throw new Error('usage: prepare --pairs FILE --out DIR [--vocab 24000] [--query-tokens 32] [--code-tokens 128]');
  const size = positiveFlag('vocab', f.vocab) ?? 24000;
  const queryTokens = positiveFlag('query-tokens', f['query-tokens']) ?? 32;
  const codeTokens = positiveFlag('code-tokens', f['code-tokens']) ?? 128;
  const pairs: PairLine[] = fs
    .readFileSync(pairsFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as PairLine);
  const vocab = chooseVocabulary(countPieces(pairs.flatMap((p) => [p.query, p.code])), size);
  const { rows, dims, covered } = initialRows(vocab);
  console.log(`${pairs.length} pairs, ${vocab.length} tokens (${covered} with a static row), ${dims} dims`);

  const model = path.join(out, 'tokenizer');
  fs.mkdirSync(model, { recursive: true });
  fs.writeFileSync(path.join(model, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  fs.writeFileSync(
    path.join(model, 'tokenizer_config.json'),
    JSON.stringify(tokenizerConfig(codeTokens)),
  );
  fs.writeFileSync(path.join(out, 'init.f32'), Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength));

  const { AutoTokenizer, env } = await import('@huggingface/transformers');
  env.allowRemoteModels = false;
  env.localModelPath = out;
  const tokenizer = await AutoTokenizer.from_pretrained('tokenizer');
  const encode = (texts: string[], max: number): Int32Array => {
    const ids = new Int32Array(texts.length * max);
    texts.forEach((text, i) => {
      const row = tokenizer.encode(text) as number[];
      const kept = row.length > max ? [...row.slice(0, max - 1), row[row.length - 1]] : row;
      ids.set(kept, i * max);
    });
    return ids;
  };
  const q = encode(pairs.map((p) => p.query), queryTokens);
  const c = encode(pairs.map((p) => p.code), codeTokens);
  fs.writeFileSync(path.join(out, 'query.i32'), Buffer.from(q.buffer));
  fs.writeFileSync(path.join(out, 'code.i32'), Buffer.from(c.buffer));
  const groups = pairs.map((p) => p.key.slice(0, p.key.lastIndexOf(':')));
  fs.writeFileSync(path.join(out, 'meta.json'), JSON.stringify({ pairs: pairs.length, vocab: vocab.length, dims, queryTokens, codeTokens, groups, sources: pairs.map((p) => p.source) }));
  const unk = [...c].filter((x) => x === 1).length;
  console.log(`tokenized: query ${queryTokens}, code ${codeTokens} tokens a pair; [UNK] ${unk} of code tokens; wrote ${out}`);
}

if (require.main === module) {
  main().catch((e: Error) => {
    console.error(`prepare: ${e.message}`);
    process.exit(1);
  });
}
