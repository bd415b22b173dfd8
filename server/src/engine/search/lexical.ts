// The lexical stream: the query as a phrase first, then all of its words, then any of them
// (BM25 ranks within each step; earlier steps rank first). Identifiers in the query are split
// like indexed names are, so `validateToken` finds `validate_token`. A long query (a pasted bug
// report) is not OR-ed word for word — hundreds of common words make every hub entity match —
// but cut to its rarest terms by document frequency.
import type { FtsIndex } from '../store/fts';
import { quote, type CommonTermScores } from './common-terms';
import { splitIdentifier } from '../store/words';
import { proseOf } from './query';
import type { SearchStream, StreamHit } from './types';

const STOP_WORDS = new Set(
  'a an and are as at be by for from how in into is it its of on or that the this to was what when where which who with does do get set return returns'.split(' '),
);

/** Lower-case search terms of a query, compound identifiers split into their words. */
export function queryTerms(query: string): string[] {
  // A set keeps first-seen order, and a pasted log of 20,000 distinct words is not quadratic.
  const out = new Set<string>();
  for (const raw of query.match(/[\p{L}\p{N}_]+/gu) ?? []) {
    for (const w of splitIdentifier(raw).split(/\s+/)) {
      const t = w.toLowerCase();
      if (t) out.add(t);
    }
  }
  return [...out];
}

/** Terms a long query keeps, and the share of entities above which a term is too common. */
export const LONG_QUERY_TERMS = 32;
const COMMON_SHARE = 0.05;
/**
 * From this many words, the OR step leaves the common ones out (as a long query does): each adds
 * little to BM25, and with them FTS5 scores most of the index (a 25-word report: up to 150 ms on
 * the stdlib). Shorter queries, what people type, keep every word.
 */
const OR_RARE_FROM = 12;

export class LexicalStream implements SearchStream {
  readonly name = 'lexical';

  constructor(
    private readonly fts: FtsIndex,
    /** The OR step's common words scored from memory (./common-terms.ts); without it FTS5 scores all. */
    private readonly common: CommonTermScores | null = null,
  ) {}

  async search(query: string, k: number): Promise<StreamHit[]> {
    return this.searchSync(query, k);
  }

  /** Best first: phrase hits, then AND hits, then OR hits; the score is BM25 within its step. */
  searchSync(query: string, k: number): StreamHit[] {
    const terms = queryTerms(proseOf(query));
    if (!terms.length) return [];
    const content = terms.filter((t) => !STOP_WORDS.has(t));
    const words = content.length ? content : terms;
    if (words.length > LONG_QUERY_TERMS) return this.searchLong(words, k);
    const steps: Array<() => Array<{ eid: number; score: number }>> = [];
    const fts = (match: string) => () => this.fts.search(match, k).map((h) => ({ eid: h.eid, score: -h.score }));
    const df = words.length >= OR_RARE_FROM ? this.frequencies(words) : null;
    // A long query's phrase and all-words steps rarely match, and FTS5 reads every word's rows
    // (1.5 ms on a report) to say so: first ask whether its two rarest words meet at all.
    const mayMatch = !df || this.meet(words, df);
    if (terms.length > 1 && mayMatch) steps.push(fts(quote(terms.join(' '))));
    if (mayMatch) steps.push(fts(words.map(quote).join(' AND ')));
    const any = df ? this.rarest(words, df) : words;
    if (words.length > 1 && any.length) steps.push(() => this.common?.orStep(any, k) ?? fts(any.map(quote).join(' OR '))());
    // A lone short word is likely an identifier being typed: match it as a prefix too.
    if (words.length === 1 && words[0].length >= 2) steps.push(fts(`${quote(words[0])}*`));
    const seen = new Set<number>();
    const out: StreamHit[] = [];
    for (const step of steps) {
      for (const hit of step()) {
        if (seen.has(hit.eid)) continue;
        seen.add(hit.eid);
        out.push(hit);
        if (out.length >= k) return out;
      }
    }
    return out;
  }

  /** The rarest terms that the index holds (none too common), OR-ed: BM25 weighs them by IDF. */
  private searchLong(words: string[], k: number): StreamHit[] {
    const chosen = this.rarest(words, this.frequencies(words));
    if (!chosen.length) return [];
    return this.common?.orStep(chosen, k) ?? this.fts.search(chosen.map(quote).join(' OR '), k).map((h) => ({ eid: h.eid, score: -h.score }));
  }

  /** How many entities hold each word (null: unknown), the OR step's counts when it keeps them: a report's 30 words cost 1.6 ms from FTS5's vocabulary. */
  private frequencies(words: string[]): Map<string, number | null> {
    return this.common?.documentFrequencies(words) ?? new Map(words.map((w) => [w, this.fts.documentFrequency(w)]));
  }

  /** Whether some entity holds the two rarest of `words` (none when a word is in none): else no entity holds them all. */
  private meet(words: string[], df: Map<string, number | null>): boolean {
    if (words.some((w) => df.get(w) === 0)) return false;
    const two = [...words].sort((a, b) => (df.get(a) ?? Infinity) - (df.get(b) ?? Infinity)).slice(0, 2);
    return this.fts.search(two.map(quote).join(' AND '), 1).length > 0;
  }

  /** Up to LONG_QUERY_TERMS of `words` that the index holds, rarest first, none too common unless fewer than three are not. */
  private rarest(words: string[], df: Map<string, number | null>): string[] {
    const docs = this.fts.documents();
    const known = words.filter((w) => (df.get(w) ?? 1) !== 0);
    const rare = known.filter((w) => (df.get(w) ?? 0) <= docs * COMMON_SHARE);
    const pool = rare.length >= 3 ? rare : known;
    // Stable: equal frequencies keep query order, so the same text always asks the same thing.
    return pool
      .map((w, i) => ({ w, i, df: df.get(w) ?? 0 }))
      .sort((a, b) => a.df - b.df || a.i - b.i)
      .slice(0, LONG_QUERY_TERMS)
      .map((x) => x.w);
  }
}
