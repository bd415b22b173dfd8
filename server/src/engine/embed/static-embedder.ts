// The embedder that needs no model: a text's vector is the IDF-weighted mean of the vectors of
// its words in the static code-embedding table (trained once on real Python code, see
// server/eval/train-static.ts), normalized. Words outside the table are ignored; a text with
// no known word gets no direction (a zero vector), which matches nothing.
import * as fs from 'node:fs';
import type { EmbeddableEntity } from '../store/vectors';
import type { Embedder, EmbedRole } from './embedder';
import { decodeStaticTable, type StaticTable } from './static-asset';
import { staticWords } from './terms';

/** A piece of text and how much its words count. */
export type WeightedText = [text: string, weight: number];

/**
 * What an entity's static vector is made of: what its code says — path, qualified name and
 * signature, counted double, and body words at half weight. Not its docstring: lexical search
 * already matches docstrings word for word, and prose in the vectors pulls every documented
 * entity towards every prose query. On the retrieval eval (undocumented targets among documented
 * neighbours) docstrings at even a fifth of the weight cut the stream's MRR@10 by a third.
 */
export function staticParts(e: Pick<EmbeddableEntity, 'path' | 'qname' | 'signature' | 'body'>): WeightedText[] {
  return [
    [`${e.path} ${e.qname} ${e.signature}`, 2],
    [e.body, 0.5],
  ];
}

export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dims: number;
  private readonly index = new Map<string, number>();

  constructor(private readonly table: StaticTable) {
    this.dims = table.header.dims;
    table.vocab.forEach((w, i) => this.index.set(w, i));
    // The id changes whenever the table does, so a retrained table re-embeds the workspace.
    let h = 2166136261;
    for (let i = 0; i < table.vectors.length; i += 97) h = Math.imul(h ^ (table.vectors[i] & 0xff), 16777619);
    this.id = `static-e2-${table.header.words}x${table.header.dims}-${(h >>> 0).toString(16)}`;
  }

  static load(file: string): StaticEmbedder {
    return new StaticEmbedder(decodeStaticTable(fs.readFileSync(file)));
  }

  /** Known words of a text (after splitting and stemming), for explanations and tests. */
  known(text: string): string[] {
    return staticWords(text).filter((w) => this.index.has(w));
  }

  async embed(texts: string[], _role?: EmbedRole): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    return this.embedWeighted([[text, 1]]);
  }

  embedEntity(e: Parameters<typeof staticParts>[0]): Float32Array {
    return this.embedWeighted(staticParts(e));
  }

  embedWeighted(parts: WeightedText[]): Float32Array {
    const { dims, table } = this;
    const out = new Float32Array(dims);
    const counts = new Map<number, number>();
    for (const [text, weight] of parts) {
      if (!text || !(weight > 0)) continue;
      for (const w of staticWords(text)) {
        const i = this.index.get(w);
        if (i !== undefined) counts.set(i, (counts.get(i) ?? 0) + weight);
      }
    }
    for (const [i, n] of counts) {
      // Sub-linear term frequency: a word repeated four times is not four times the topic.
      const weight = table.idf[i] * table.scale[i] * Math.sqrt(n);
      const row = i * dims;
      for (let d = 0; d < dims; d++) out[d] += weight * table.vectors[row + d];
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += out[d] * out[d];
    norm = Math.sqrt(norm);
    if (norm > 0) for (let d = 0; d < dims; d++) out[d] /= norm;
    return out;
  }
}
