// Words of code and prose for the static code-embedding table: identifiers split into their
// sub-words (`parseHTTPHeader` → parse http header, `max_retries` → max retri), English
// function words dropped, and a light suffix stemmer so that "parses", "parsing" and `parse`
// meet. Training (server/eval/train-static.ts) and lookup use this one function, so the table
// and the queries always agree on what a word is.
import { splitIdentifier } from '../store/words';

const STOP = new Set(
  (
    'a an and are as at be been but by can could do does for from has have how if in into is it its ' +
    'may might must no not of on or should so such than that the their then there these this those to ' +
    'was we were what when where which while who will with would you your self cls none true false'
  ).split(' '),
);

/** Light English suffix stemming (a small subset of Porter's rules, enough for code words). */
export function stem(w: string): string {
  if (w.length <= 3) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = s.slice(0, -3) + 'y';
  else if (/(ss|us|is)$/.test(s)) {
    /* keep: class, status, analysis */
  } else if (/(ch|sh|x|z)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith('s')) s = s.slice(0, -1);
  for (const suffix of ['ing', 'ed']) {
    if (s.endsWith(suffix) && s.length - suffix.length >= 3 && /[aeiouy]/.test(s.slice(0, -suffix.length))) {
      s = s.slice(0, -suffix.length);
      // running → run, stopped → stop; but keep -ll, -ss, -zz (install, pass, buzz)
      if (/([^aeiouylsz])\1$/.test(s)) s = s.slice(0, -1);
      break;
    }
  }
  if (s.endsWith('e') && s.length > 3) s = s.slice(0, -1); // parse/parsing, value/values
  return s;
}

/**
 * Stemmed sub-words of a text, in order, duplicates kept (callers weight by occurrence).
 * `memo` keeps each identifier's words: a search's candidates repeat most of theirs (`self`,
 * `value`, `return`), and splitting and stemming them again was most of the reranker's time.
 */
export function staticWords(text: string, memo?: Map<string, readonly string[]>): string[] {
  const out: string[] = [];
  for (const raw of identifiersOf(text)) {
    let words = memo?.get(raw);
    if (!words) {
      words = identifierWords(raw);
      memo?.set(raw, words);
    }
    for (const w of words) out.push(w);
  }
  return out;
}

/** The identifiers (and plain words) of a text, in order: what `staticWords` splits one by one. */
export function identifiersOf(text: string): string[] {
  return text.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? [];
}

function identifierWords(raw: string): string[] {
  const out: string[] = [];
  for (const w of splitIdentifier(raw).split(' ')) {
    if (w.length < 2 || STOP.has(w) || /^\d+$/.test(w)) continue;
    out.push(stem(w));
  }
  return out;
}

const SHORT_PIECES = new Set(['is', 'to', 'as', 'at', 'by', 'in', 'of', 'on', 'or', 'io', 'os', 'ip', 'id', 'fd', 'ew', 'ui']);

/**
 * A word the table does not hold, as words it does: `getcoroutinestat` → get coroutin stat,
 * `screenwidth` → screen width, `http2tim` → http tim. Names glued without `_` or capitals are
 * common in Python (`getuser`, `readuntil`, `iterdump`); unsplit, they would add nothing to a
 * vector. The fewest pieces win, then the most common ones (lowest summed IDF); every piece is a
 * word of the table (itself or its stem), at least three letters unless a known short word;
 * English function words among them are dropped. null when no such split exists.
 */
export function segment(word: string, known: (w: string) => number | undefined): string[] | null {
  const runs = word.split(/\d+/).filter(Boolean);
  if (runs.length > 1) {
    const out: string[] = [];
    for (const r of runs) {
      const i = known(r);
      if (i !== undefined) out.push(r);
      else out.push(...(segment(r, known) ?? []));
    }
    return out.length ? out : null;
  }
  const n = word.length;
  if (n < 5) return null;
  const pieceOf = (p: string): { w: string; i: number } | null => {
    if (p.length >= 2 && STOP.has(p)) return { w: '', i: -1 };
    if (p.length < 3 && !SHORT_PIECES.has(p)) return null;
    for (const w of [p, stem(p)]) {
      const i = known(w);
      if (i !== undefined) return { w, i };
    }
    return null;
  };
  // best[j]: the best split of word[0..j): [pieces, cost]; a piece costs 1000 + its IDF rank.
  const best: Array<{ pieces: string[]; cost: number } | null> = new Array(n + 1).fill(null);
  best[0] = { pieces: [], cost: 0 };
  for (let j = 1; j <= n; j++) {
    for (let i = Math.max(0, j - 24); i < j; i++) {
      const prev = best[i];
      if (!prev) continue;
      const p = pieceOf(word.slice(i, j));
      if (!p) continue;
      const cost = prev.cost + 1000 + (p.i < 0 ? 0 : p.i / 1e4);
      if (!best[j] || cost < best[j]!.cost) best[j] = { pieces: p.w ? [...prev.pieces, p.w] : prev.pieces, cost };
    }
  }
  const b = best[n];
  return b && b.pieces.length > 0 && b.cost >= 2000 ? b.pieces : null;
}

/**
 * The table rows a word stands for: its own row, or its pieces' rows when it is glued (see
 * `segment`); [] when neither. Training and the embedder both read words through this, so the
 * table is trained on the rows it is later asked for. `cache` remembers splits (bounded).
 */
export function wordRows(word: string, index: ReadonlyMap<string, number>, cache?: Map<string, number[]>): number[] {
  const i = index.get(word);
  if (i !== undefined) return [i];
  let rows = cache?.get(word);
  if (!rows) {
    rows = (segment(word, (w) => index.get(w)) ?? []).map((w) => index.get(w)!);
    if (cache) {
      if (cache.size > 100_000) cache.clear();
      cache.set(word, rows);
    }
  }
  return rows;
}
