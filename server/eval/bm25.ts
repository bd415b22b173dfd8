// Plain BM25 (k1 = 1.2, b = 0.75) over whole texts: the baseline every retrieval eval reports.
// Deliberately naive — words are lower-cased identifiers and their sub-words, no stemming, no
// stop words, no field weights — so it stands for "grep with ranking", not for NSCCN's lexical
// stream.
import { splitIdentifier } from '../src/engine/store/words';

export function plainTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    const whole = raw.toLowerCase();
    out.push(whole);
    for (const part of splitIdentifier(raw).split(' ')) if (part && part !== whole) out.push(part);
  }
  return out;
}

export class Bm25<K> {
  private readonly keys: K[] = [];
  private readonly lengths: number[] = [];
  private readonly postings = new Map<string, Array<[doc: number, tf: number]>>();
  private totalLength = 0;

  add(key: K, text: string): void {
    const doc = this.keys.length;
    const tokens = plainTokens(text);
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = []));
      p.push([doc, n]);
    }
    this.keys.push(key);
    this.lengths.push(tokens.length);
    this.totalLength += tokens.length;
  }

  search(query: string, k: number): K[] {
    const n = this.keys.length;
    const avg = this.totalLength / Math.max(1, n);
    const scores = new Map<number, number>();
    for (const t of new Set(plainTokens(query))) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = Math.log(1 + (n - p.length + 0.5) / (p.length + 0.5));
      for (const [doc, tf] of p) {
        const s = (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * this.lengths[doc]) / avg));
        scores.set(doc, (scores.get(doc) ?? 0) + s);
      }
    }
    return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k).map(([doc]) => this.keys[doc]);
  }
}
