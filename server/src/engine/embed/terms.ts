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

/** Stemmed sub-words of a text, in order, duplicates kept (callers weight by occurrence). */
export function staticWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? []) {
    for (const w of splitIdentifier(raw).split(' ')) {
      if (w.length < 2 || STOP.has(w) || /^\d+$/.test(w)) continue;
      out.push(stem(w));
    }
  }
  return out;
}
