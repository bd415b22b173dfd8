// Contrastive training of the static table: pairs from JSDoc, training that pulls a text's words
// towards its code's words and is bit-for-bit reproducible, and the exclusion list honoured.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { staticWords } from '../server/src/engine/embed/terms';
import { trainContrastive, type Table } from '../server/eval/static/contrastive';
import { TRAINING_EXCLUDES } from '../server/eval/static/exclusions';
import { declarationPairs, jsDocPairs, type Pair } from '../server/eval/static/pairs';
import { commentPairs, proseComments } from '../server/eval/static/comment-pairs';
import { sentenceKey } from '../server/eval/docstrings';
import { mulberry32 } from '../server/eval/random';

function tinyTable(words: string[], dims: number, seed: number): Table {
  const rand = mulberry32(seed);
  return {
    words: words.length,
    dims,
    vectors: Float32Array.from({ length: words.length * dims }, () => rand() - 0.5),
    idf: new Float32Array(words.length).fill(1),
    index: new Map(words.map((w, i) => [w, i])),
  };
}

const cos = (t: Table, a: string, b: string) => {
  const [i, j] = [t.index.get(a)!, t.index.get(b)!];
  let dot = 0, na = 0, nb = 0;
  for (let k = 0; k < t.dims; k++) {
    const x = t.vectors[i * t.dims + k], y = t.vectors[j * t.dims + k];
    dot += x * y; na += x * x; nb += y * y;
  }
  return dot / Math.sqrt(na * nb);
};

// Four topics: the prose word of each only ever comes with its code words.
const TOPICS: Array<[string, string]> = [['remove', 'unlink rmtree'], ['fetch', 'urlopen socket'], ['compress', 'gzip zlib'], ['sort', 'bisect heapq']];
const PAIRS: Pair[] = TOPICS.flatMap(([prose, code], t) =>
  Array.from({ length: 8 }, (_, i) => ({ key: `m${t}.py:f${i}`, query: `${prose} things`, code: [[`${code} things`, 1]], source: 'docstring' as const })),
);
const WORDS = [...new Set(PAIRS.flatMap((p) => [...staticWords(p.query), ...staticWords(p.code[0][0])]))];
const OPTIONS = { epochs: 30, batch: 8, run: 2, temperature: 0.1, learningRate: 0.1, seed: 3 };

describe('contrastive training', () => {
  it('pulls prose words towards the code they describe, and the loss falls', () => {
    const t = tinyTable(WORDS, 16, 1);
    const before = cos(t, staticWords('remove')[0], staticWords('unlink')[0]);
    const r = trainContrastive(t, PAIRS, OPTIONS);
    expect(r.pairs).toBe(32);
    // Same-topic pairs in one batch are indistinguishable positives: the loss floor is about
    // log(their number), so it falls from ~1.5 towards ~1, not to 0.
    expect(Math.max(...r.loss.slice(-5))).toBeLessThan(r.loss[0] * 0.85);
    const rm = staticWords('remove')[0];
    expect(cos(t, rm, staticWords('unlink')[0])).toBeGreaterThan(before + 0.3);
    expect(cos(t, rm, staticWords('unlink')[0])).toBeGreaterThan(cos(t, rm, staticWords('urlopen')[0]));
  });

  it('is reproducible bit for bit', () => {
    const a = tinyTable(WORDS, 16, 1);
    const b = tinyTable(WORDS, 16, 1);
    trainContrastive(a, PAIRS, OPTIONS);
    trainContrastive(b, [...PAIRS].reverse(), OPTIONS); // input order does not matter either
    expect(Buffer.from(a.vectors.buffer).equals(Buffer.from(b.vectors.buffer))).toBe(true);
  });
});

describe('JSDoc pairs', () => {
  it('pair a doc comment first sentence with the function under it, skipping vendored and held-out code', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-jsdoc-'));
    const src = `/**
 * Parse a duration like "2h 5m" into milliseconds.
 * @param {string} text
 */
export function parseDuration(text) { return text.split(' ').length; }

class Cache {
  /** Drop every entry older than the limit. */
  evictOld(limit) { this.items = []; }
}
/** Too short. */
function f() {}
`;
    for (const dir of ['lib', 'pkg/_vendor', 'requests', 'other/rich']) {
      fs.mkdirSync(path.join(root, dir), { recursive: true });
      fs.writeFileSync(path.join(root, dir, 'time.js'), src);
    }
    const pairs = jsDocPairs(root, TRAINING_EXCLUDES);
    fs.rmSync(root, { recursive: true, force: true });
    expect(pairs.map((p) => [p.key, p.query])).toEqual([
      ['lib/time.js:parseDuration', 'Parse a duration like "2h 5m" into milliseconds.'],
      ['lib/time.js:evictOld', 'Drop every entry older than the limit.'],
    ]);
    expect(pairs[0].code[0][0]).toContain('parseDuration(text)');
  });
});

describe('declaration pairs', () => {
  it('pair a JSDoc summary with the signature a type declaration gives it, once across copies', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-dts-'));
    const dts = `export interface Store {
  /** Remove every key that starts with the prefix. */
  dropPrefix?(prefix: string): number;
  /** Short. */
  size(): number;
}
/**
 * Read the whole file into a buffer.
 * @param path where it is
 */
export declare function readAll<T>(path: string): Buffer;
`;
    for (const dir of ['a', 'b/node_modules/a', 'pkg/_vendor']) {
      fs.mkdirSync(path.join(root, dir), { recursive: true });
      fs.writeFileSync(path.join(root, dir, 'index.d.ts'), dts);
      fs.writeFileSync(path.join(root, dir, 'index.ts'), dts); // not a declaration file: left to jsDocPairs
    }
    const pairs = declarationPairs(root, TRAINING_EXCLUDES);
    fs.rmSync(root, { recursive: true, force: true });
    expect(pairs.map((p) => [p.key, p.query, p.source])).toEqual([
      ['a/index.d.ts:dropPrefix', 'Remove every key that starts with the prefix.', 'declaration'],
      ['a/index.d.ts:readAll', 'Read the whole file into a buffer.', 'declaration'],
    ]);
    expect(pairs[0].code[0][0]).toContain('dropPrefix(prefix: string)');
  });
});

describe('comment pairs', () => {
  const source = `def sweep(cache, now):
    # Drop the entries whose deadline has passed.
    for key in list(cache):
        if cache[key] < now:
            del cache[key]

    # x = compute(y)
    total = 0
    # noqa: this is a directive for the linter
    pass
    # Sum what is left over in the cache.
    # (the second line belongs to the same comment)
    total = sum(cache.values())
    # A comment with no code under it at all.

    return total
`;
  it('take prose comments with the code under them, and leave commented-out code and directives', () => {
    expect(proseComments(source)).toEqual([
      { line: 2, text: 'Drop the entries whose deadline has passed.', code: ['for key in list(cache):', 'if cache[key] < now:', 'del cache[key]'] },
      { line: 11, text: 'Sum what is left over in the cache.', code: ['total = sum(cache.values())'] },
    ]);
  });

  it('key pairs by file and line, skip held-out packages and what decontamination names', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-comments-'));
    for (const dir of ['lib', 'sympy', 'x/_vendor']) {
      fs.mkdirSync(path.join(root, dir), { recursive: true });
      fs.writeFileSync(path.join(root, dir, 'sweep.py'), source);
    }
    const seen = new Set([sentenceKey('Sum what is left over in the cache.')]);
    const pairs = commentPairs(root, TRAINING_EXCLUDES, (k) => seen.has(k));
    fs.rmSync(root, { recursive: true, force: true });
    expect(pairs.map((p) => [p.key, p.query, p.source])).toEqual([['lib/sweep.py#000002', 'Drop the entries whose deadline has passed.', 'comment']]);
    expect(pairs[0].code).toEqual([['for key in list(cache):\nif cache[key] < now:\ndel cache[key]', 1]]);
  });
});
