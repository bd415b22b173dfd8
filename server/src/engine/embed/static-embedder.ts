// The embedder that needs no model: a text's vector is the IDF-weighted mean of the vectors of
// its words in the static code-embedding table (trained once on real Python code, see
// server/eval/train-static.ts), normalized. Words outside the table are ignored; a text with
// no known word gets no direction (a zero vector), which matches nothing.
import * as fs from 'node:fs';
import type { EmbeddableEntity } from '../store/vectors';
import type { Embedder, EmbedRole, UnreadWords } from './embedder';
import { decodeStaticTable, tableDigest, type StaticTable } from './static-asset';
import { splitIdentifier } from '../store/words';
import { identifiersOf, staticWords, wordRows } from './terms';

/** A piece of text and how much its words count. */
export type WeightedText = [text: string, weight: number];

/**
 * What an entity's static vector is made of: what its code says — path, qualified name and
 * signature, counted double, and body words and the messages its string literals spell out at
 * half weight. Not its docstring: lexical search already matches docstrings word for word, and
 * prose in the vectors pulls every documented entity towards every prose query. On the retrieval
 * eval (undocumented targets among documented neighbours) docstrings at even a fifth of the
 * weight cut the stream's MRR@10 by a third. Messages are few and say what went wrong where:
 * with them the stream's MRR@10 rose on every set (reports 0.456 → 0.497, 0.482 → 0.510).
 */
export function staticParts(e: Pick<EmbeddableEntity, 'path' | 'qname' | 'signature' | 'body' | 'literals'>): WeightedText[] {
  const parts: WeightedText[] = [
    [`${e.path} ${e.qname} ${e.signature}`, 2],
    [e.body, 0.5],
  ];
  if (e.literals) parts.push([e.literals, 0.5]);
  return parts;
}

/** Identifiers whose rows are remembered (a large workspace has a few hundred thousand). */
const MAX_IDENTIFIERS = 500_000;

export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  private readonly index = new Map<string, number>();
  /** Rows of words the table does not hold, by their split into words it does (`segment`). */
  private readonly pieces = new Map<string, number[]>();
  /**
   * The rows of each identifier seen (`parseHTTPHeader` → parse, http, header): code repeats
   * its identifiers, and splitting and stemming each occurrence anew was half of embedding a
   * workspace (stdlib: 3.8 s of CPU for 74K entities). Bounded, and dropped once a fill is over
   * (`settled`): its keys are slices of the texts embedded, and keep them alive (21 MB of heap
   * after embedding the stdlib).
   */
  private readonly identifiers = new Map<string, readonly number[]>();
  /** Scratch for `embedWeighted`: a weight per table row, zero between calls. */
  private readonly counts: Float64Array;

  constructor(private readonly table: StaticTable) {
    this.dims = table.header.dims;
    this.counts = new Float64Array(table.vocab.length);
    table.vocab.forEach((w, i) => this.index.set(w, i));
    // The id changes whenever the table does (either side, any row), so a retrained table
    // re-embeds the workspace; e3: a table may have a query side (queries and code embedded by
    // different rows); e4: words the table lacks are split into words it has (`segment`); e5:
    // an entity's messages (its literals) are in its vector.
    const digest = typeof table.header.digest === 'string' ? table.header.digest : tableDigest(table);
    this.id = `static-e5-${table.header.words}x${table.header.dims}${table.query ? 'q' : ''}-${digest.slice(0, 12)}`;
  }

  static load(file: string): StaticEmbedder {
    return new StaticEmbedder(decodeStaticTable(fs.readFileSync(file)));
  }

  /** Known words of a text (after splitting, stemming and segmenting), for explanations and tests. */
  known(text: string): string[] {
    return staticWords(text).flatMap((w) => this.rows(w).map((i) => this.table.vocab[i]));
  }

  /** The table rows a word stands for: its own, or those of its pieces when it is glued (`getuser`). */
  rows(word: string): number[] {
    return wordRows(word, this.index, this.pieces);
  }

  /**
   * Words of the text the table has no row for, even through pieces. The words it reads weigh
   * as their IDF would if their vectors were orthogonal (the root of the summed squares); an
   * unread word weighs the table's highest IDF: a word no training text held is rarer than
   * any it did.
   */
  unread(text: string): UnreadWords {
    const unread = new Set<string>();
    const rows = new Set<number>();
    for (const raw of identifiersOf(text)) {
      for (const sub of splitIdentifier(raw).split(' ')) {
        const words = staticWords(sub);
        const held = words.flatMap((w) => this.rows(w));
        for (const r of held) rows.add(r);
        const lower = sub.toLowerCase();
        if (words.length && !held.length) unread.add(lower);
      }
    }
    let squares = 0;
    for (const r of rows) squares += this.table.idf[r] ** 2;
    return { unread: [...unread], readWeight: Math.sqrt(squares), unreadWeight: this.maxIdf };
  }

  private get maxIdf(): number {
    if (this.maxIdf_ === undefined) {
      let m = 0;
      for (const x of this.table.idf) if (x > m) m = x;
      this.maxIdf_ = m;
    }
    return this.maxIdf_;
  }

  private maxIdf_: number | undefined;

  settled(): void {
    this.identifiers.clear();
  }

  /** Identifiers whose rows are remembered now (tests). */
  get rememberedIdentifiers(): number {
    return this.identifiers.size;
  }

  private identifierRows(raw: string): readonly number[] {
    let rows = this.identifiers.get(raw);
    if (rows === undefined) {
      if (this.identifiers.size >= MAX_IDENTIFIERS) this.identifiers.clear();
      rows = staticWords(raw).flatMap((w) => this.rows(w));
      this.identifiers.set(raw, rows);
    }
    return rows;
  }

  /** Queries through the query side of the table (when it has one), documents through the code side. */
  async embed(texts: string[], role: EmbedRole = 'document'): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t, role));
  }

  /** A text as a query (by default) or as a document. */
  embedOne(text: string, role: EmbedRole = 'query'): Float32Array {
    return this.embedWeighted([[text, 1]], role);
  }

  embedEntity(e: Parameters<typeof staticParts>[0]): Float32Array {
    return this.embedWeighted(staticParts(e));
  }

  embedWeighted(parts: WeightedText[], role: EmbedRole = 'document'): Float32Array {
    const { dims, table } = this;
    const side = role === 'query' && table.query ? table.query : table;
    const out = new Float32Array(dims);
    // Each word's summed weight, in the order words first appear (the order the vector is summed in).
    const counts = this.counts;
    const seen: number[] = [];
    for (const [text, weight] of parts) {
      if (!text || !(weight > 0)) continue;
      for (const raw of identifiersOf(text))
        for (const i of this.identifierRows(raw)) {
          if (counts[i] === 0) seen.push(i);
          counts[i] += weight;
        }
    }
    const { idf } = table;
    const { scale, vectors } = side;
    for (const i of seen) {
      // Sub-linear term frequency: a word repeated four times is not four times the topic.
      const weight = idf[i] * scale[i] * Math.sqrt(counts[i]);
      counts[i] = 0;
      const row = i * dims;
      // Four at a time (V8 does not unroll): the same sums in the same order, so the same bits,
      // in ~20 % less time; this loop is a third of a first index's vector phase.
      let d = 0;
      for (; d + 3 < dims; d += 4) {
        out[d] += weight * vectors[row + d];
        out[d + 1] += weight * vectors[row + d + 1];
        out[d + 2] += weight * vectors[row + d + 2];
        out[d + 3] += weight * vectors[row + d + 3];
      }
      for (; d < dims; d++) out[d] += weight * vectors[row + d];
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += out[d] * out[d];
    norm = Math.sqrt(norm);
    if (norm > 0) for (let d = 0; d < dims; d++) out[d] /= norm;
    return out;
  }
}
