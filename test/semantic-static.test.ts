// The static code-embedding table: its words, its file format, the SVD that trains it, and the
// shipped table itself putting related code near related prose.
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeStaticTable, defaultStaticTablePath, encodeStaticTable, tableDigest } from '../server/src/engine/embed/static-asset';
import { StaticEmbedder } from '../server/src/engine/embed/static-embedder';
import { segment, staticWords, stem, wordRows } from '../server/src/engine/embed/terms';
import { embeddingText } from '../server/src/engine/embed/text';
import { staticParts } from '../server/src/engine/embed/static-embedder';
import { gaussian, randomizedSvd, symmetricEigen } from '../server/eval/static/svd';
import { firstSentence } from '../server/eval/docstrings';
import { removeDocstrings } from '../server/eval/stdlib-sample';

describe('static words', () => {
  it('splits identifiers, drops function words, and stems so prose meets code', () => {
    expect(staticWords('parseHTTPHeader max_retries of the self')).toEqual(['pars', 'http', 'header', 'max', 'retry']);
    for (const [a, b] of [['parsing', 'parse'], ['parsed', 'parses'], ['entries', 'entry'], ['running', 'run'], ['matches', 'match'], ['values', 'value']]) {
      expect(stem(a)).toBe(stem(b));
    }
    expect(stem('class')).toBe('class');
    expect(stem('status')).toBe('status');
    expect(stem('install')).toBe('install');
  });
});

describe('glued words', () => {
  const vocab = ['get', 'coroutin', 'stat', 'screen', 'width', 'read', 'until', 'ask', 'yes', 'cancel', 'http', 'tim', 'item', 'key'];
  const known = (w: string) => (vocab.includes(w) ? vocab.indexOf(w) : undefined);
  it('split into the fewest words the table has, function words dropped, digits breaking runs', () => {
    expect(segment('getcoroutinestat', known)).toEqual(['get', 'coroutin', 'stat']);
    expect(segment('screenwidth', known)).toEqual(['screen', 'width']);
    expect(segment('askyesnocancel', known)).toEqual(['ask', 'yes', 'cancel']);
    expect(segment('http2tim', known)).toEqual(['http', 'tim']);
  });
  it('stay whole when no split into known words exists, and are never split into one piece', () => {
    expect(segment('zebragiraffe', known)).toBeNull();
    expect(segment('readx', known)).toBeNull();
    expect(segment('item', known)).toBeNull();
  });
  it('are read through their pieces only when the table lacks them (training reads words the same way)', () => {
    const index = new Map(vocab.map((w, i) => [w, i]));
    expect(wordRows('read', index)).toEqual([index.get('read')]);
    expect(wordRows('readuntil', index)).toEqual([index.get('read'), index.get('until')]);
    expect(wordRows('qqq', index)).toEqual([]);
  });
});

describe('what an entity is embedded from', () => {
  const e = { kind: 'method', name: 'save', qname: 'User.save', path: 'shop/models.py', signature: 'def save(self, force=False)', docstring: 'Write the user\n  to the database.', body: 'session commit flush' };

  it('for a model: header with split name, signature, docstring on one line, body words; capped', () => {
    expect(embeddingText(e)).toBe('shop/models.py method User.save (user save)\ndef save(self, force=False)\nWrite the user to the database.\nsession commit flush');
    expect(embeddingText({ ...e, body: 'word '.repeat(1000) }).length).toBeLessThanOrEqual(1024);
  });

  it('for the static table: what the code says, the docstring left to lexical search', () => {
    const parts = staticParts(e);
    expect(parts.map(([t]) => t).join(' ')).not.toContain('database');
    expect(parts).toEqual([['shop/models.py User.save def save(self, force=False)', 2], ['session commit flush', 0.5]]);
  });

  it('for the static table: the messages its literals spell out, as much as its body words', () => {
    expect(staticParts({ ...e, literals: 'user cannot be saved twice' }).at(-1)).toEqual(['user cannot be saved twice', 0.5]);
  });
});

describe('table file', () => {
  it('round-trips and rejects what is not a table', () => {
    const t = { header: { dims: 2, words: 2, note: 'x' }, vocab: ['a', 'b'], idf: Float32Array.of(1, 2), scale: Float32Array.of(0.5, 0.25), vectors: Int8Array.of(1, -2, 3, 127) };
    const back = decodeStaticTable(encodeStaticTable(t));
    expect(back.header).toEqual({ ...t.header, digest: tableDigest(t) });
    expect(back.vocab).toEqual(t.vocab);
    expect([...back.idf]).toEqual([1, 2]);
    expect([...back.vectors]).toEqual([1, -2, 3, 127]);
    expect(() => decodeStaticTable(Buffer.from('hello world, not a table'))).toThrow(/bad magic/);
    expect(() => decodeStaticTable(encodeStaticTable(t).subarray(0, 30))).toThrow(/truncated/);
  });

  it('carries its digest: the embedder id a table read back has is the one its arrays hash to', () => {
    const t = { header: { dims: 2, words: 2 }, vocab: ['a', 'b'], idf: Float32Array.of(1, 2), scale: Float32Array.of(0.5, 0.25), vectors: Int8Array.of(1, -2, 3, 127) };
    const read = new StaticEmbedder(decodeStaticTable(encodeStaticTable(t)));
    expect(read.id).toBe(new StaticEmbedder(t).id); // the header's digest, or the arrays hashed when a table has none
    expect(read.id).toContain(tableDigest(t).slice(0, 12));
    // A retrained row is another digest, whatever digest the header it was given held.
    const retrained = { ...t, header: { ...t.header, digest: tableDigest(t) }, vectors: Int8Array.of(1, -2, 3, 126) };
    expect(new StaticEmbedder(decodeStaticTable(encodeStaticTable(retrained))).id).not.toBe(read.id);
    const forged = Buffer.from(encodeStaticTable(t).toString('latin1').replace(/"digest":"[0-9a-f]{64}"/, `"digest":"${'x'.repeat(64)}"`), 'latin1');
    expect(() => decodeStaticTable(forged)).toThrow(/invalid digest/);
  });

  it('the shipped table carries the digest of its arrays', () => {
    const shipped = decodeStaticTable(fs.readFileSync(defaultStaticTablePath()!));
    expect(shipped.header.digest).toBe(tableDigest(shipped));
  });

  it('carries a query side: queries are embedded with its rows, code with the code rows', async () => {
    const code = { header: { dims: 2, words: 2 }, vocab: [staticWords('parse')[0], 'socket'], idf: Float32Array.of(1, 1), scale: Float32Array.of(1, 1), vectors: Int8Array.of(1, 0, 0, 1) };
    const t = { ...code, header: { ...code.header, query: true }, query: { scale: Float32Array.of(1, 1), vectors: Int8Array.of(0, 1, 1, 0) } };
    const back = decodeStaticTable(encodeStaticTable(t));
    expect([...back.query!.vectors]).toEqual([0, 1, 1, 0]);
    expect(() => encodeStaticTable({ ...t, query: undefined })).toThrow(/query side/);
    const emb = new StaticEmbedder(back);
    expect([...emb.embedOne('parse')]).toEqual([0, 1]); // a text is a query unless said otherwise
    expect([...(await emb.embed(['parse'], 'query'))[0]]).toEqual([0, 1]);
    expect([...(await emb.embed(['parse'], 'document'))[0]]).toEqual([1, 0]);
    expect([...emb.embedEntity({ path: '', qname: 'parse', signature: '', body: '' })]).toEqual([1, 0]);
    // Either side retrained is another embedder: stored vectors are recomputed.
    const other = new StaticEmbedder(decodeStaticTable(encodeStaticTable({ ...t, query: { scale: t.query.scale, vectors: Int8Array.of(0, 1, 1, 1) } })));
    expect(other.id).not.toBe(emb.id);
    expect(new StaticEmbedder(decodeStaticTable(encodeStaticTable(code))).id).not.toBe(emb.id);
  });
});

describe('randomized SVD', () => {
  it('eigen-decomposes a symmetric matrix', () => {
    const l = 6;
    const g = gaussian(3);
    const b = Float64Array.from({ length: l * l }, g);
    const m = new Float64Array(l * l);
    for (let i = 0; i < l; i++) for (let j = 0; j < l; j++) for (let k = 0; k < l; k++) m[i * l + j] += b[i * l + k] * b[j * l + k];
    const { values, vectors } = symmetricEigen(m, l);
    for (let e = 0; e < l; e++) {
      for (let i = 0; i < l; i++) {
        let s = 0;
        for (let k = 0; k < l; k++) s += m[i * l + k] * vectors[k * l + e];
        expect(s).toBeCloseTo(values[e] * vectors[i * l + e], 6);
      }
    }
  });

  it('recovers the singular values and an orthonormal basis of a low-rank matrix', () => {
    const rows = 200;
    const cols = 50;
    const g = gaussian(5);
    // Orthonormal factors by Gram–Schmidt, so the singular values are exactly 10, 5 and 2.
    const orth = (n: number) => {
      const vs: number[][] = [];
      for (let k = 0; k < 3; k++) {
        const v = Array.from({ length: n }, g);
        for (const w of vs) {
          const d = v.reduce((s, x, i) => s + x * w[i], 0);
          for (let i = 0; i < n; i++) v[i] -= d * w[i];
        }
        const norm = Math.hypot(...v);
        vs.push(v.map((x) => x / norm));
      }
      return vs;
    };
    const u = orth(rows);
    const v = orth(cols);
    const rowStart = new Int32Array(rows + 1);
    const col: number[] = [];
    const val: number[] = [];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        col.push(j);
        val.push([10, 5, 2].reduce((s, sig, k) => s + sig * u[k][i] * v[k][j], 0));
      }
      rowStart[i + 1] = col.length;
    }
    const r = randomizedSvd({ rows, cols, rowStart, col: Int32Array.from(col), val: Float32Array.from(val) }, 3, { oversample: 5 });
    expect([...r.sigma].map((s) => Math.round(s * 100) / 100)).toEqual([10, 5, 2]);
    for (let k = 0; k < 3; k++) {
      const dotWithTruth = Math.abs(u[k].reduce((s, x, i) => s + x * r.u[i * 3 + k], 0));
      expect(dotWithTruth).toBeCloseTo(1, 3);
    }
  });
});

describe('eval helpers', () => {
  it('takes the first sentence of a docstring, not stopping at abbreviations or dotted names', () => {
    expect(firstSentence('Return the value, e.g. 3. More text.')).toBe('Return the value, e.g. 3.');
    expect(firstSentence('Join os.path parts.\n\nDetails.')).toBe('Join os.path parts.');
    expect(firstSentence('No period here\nstill the first line\n\nnext para')).toBe('No period here still the first line');
  });

  it('replaces a docstring by pass, keeping the line count', () => {
    const src = 'def f():\n    """Doc\n    more."""\n    return 1\n';
    const out = removeDocstrings(src, [{ docStart: 2, docEnd: 3 }]);
    expect(out).toBe('def f():\n    pass\n\n    return 1\n');
  });
});

const shipped = defaultStaticTablePath();

describe.skipIf(!shipped)('the shipped static table', () => {
  it('places code near the prose that describes it', () => {
    const emb = StaticEmbedder.load(shipped!);
    expect(emb.dims).toBeGreaterThanOrEqual(64);
    const text = (name: string, signature: string, body: string) => ({ qname: name, path: 'lib/util.py', signature, body });
    const cases: Array<[string, string, string]> = [
      ['open a network connection to a remote host', text('connect', 'def connect(host, port, timeout)', 'socket create_connection settimeout sock'), text('invert', 'def invert(matrix)', 'numpy linalg inv det array')],
      ['compute the inverse of a square matrix', text('invert', 'def invert(matrix)', 'numpy linalg inv det array'), text('send_mail', 'def send_mail(to, subject, body)', 'smtp message mime header')],
      ['send an email message', text('send_mail', 'def send_mail(to, subject, body)', 'smtp message mime header'), text('connect', 'def connect(host, port, timeout)', 'socket create_connection settimeout sock')],
    ];
    const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
    for (const [query, right, wrong] of cases) {
      const q = emb.embedOne(query);
      expect(cos(q, emb.embedEntity(right)), query).toBeGreaterThan(cos(q, emb.embedEntity(wrong)));
    }
  });

  it('reads a glued name through its pieces', () => {
    const emb = StaticEmbedder.load(shipped!);
    expect(emb.known('getcoroutinestate')).toEqual(['get', 'coroutin', 'stat']);
    const q = emb.embedOne('current state of a coroutine');
    const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
    const glued = emb.embedEntity({ qname: 'getcoroutinestate', path: 'inspect.py', signature: 'def getcoroutinestate(coroutine)', body: '' });
    const other = emb.embedEntity({ qname: 'getmembers', path: 'inspect.py', signature: 'def getmembers(object, predicate)', body: '' });
    expect(cos(q, glued)).toBeGreaterThan(cos(q, other));
  });

  it('embeds a text the same however many texts came before it (the identifiers it remembers)', () => {
    const warm = StaticEmbedder.load(shipped!);
    const texts = ['def parse_header(line): return line.split(":")', 'current state of a coroutine', 'parseHeader(line) split header line'];
    for (const t of [...texts, ...texts]) warm.embedEntity({ qname: 'f', path: 'a.py', signature: t, body: t });
    for (const t of texts) {
      const e = { qname: 'f', path: 'a.py', signature: t, body: t };
      expect(warm.embedEntity(e)).toEqual(StaticEmbedder.load(shipped!).embedEntity(e));
      expect(warm.embedOne(t)).toEqual(StaticEmbedder.load(shipped!).embedOne(t));
    }
    // Once a fill is over the embedder lets go of them (their keys keep the texts alive).
    expect(warm.rememberedIdentifiers).toBeGreaterThan(5);
    warm.settled();
    expect(warm.rememberedIdentifiers).toBe(0);
    expect(warm.embedOne(texts[0])).toEqual(StaticEmbedder.load(shipped!).embedOne(texts[0]));
  });

  it('is a few MB', () => {
    expect(fs.statSync(shipped!).size).toBeLessThan(8_000_000);
  });
});
