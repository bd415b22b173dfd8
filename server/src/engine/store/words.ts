// Identifier → words, for the lexical index and for queries: `validateToken` → `validate token`,
// `HTTPServer` → `http server`, `shop/models_v2` → `shop models v2`. And whether a text holds a
// word whole (`hasWordOf`).
const CAMEL = /([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])/g;

export function splitIdentifier(text: string): string {
  return text
    .replace(CAMEL, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`))
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase();
}

/**
 * Does `text` hold one of `words` as a whole `\w+` word? A few words are looked for with
 * indexOf (native, no allocation); many, by splitting `text` into its words.
 */
export function hasWordOf(text: string, words: ReadonlySet<string>): boolean {
  if (words.size > 16) {
    for (const w of text.match(WORD) ?? []) if (words.has(w)) return true;
    return false;
  }
  for (const w of words) {
    if (!w) continue; // no text has the empty word (and indexOf('') would never end the loop)
    for (let i = text.indexOf(w); i >= 0; i = text.indexOf(w, i + 1)) {
      if (!isWordChar(text.charCodeAt(i - 1)) && !isWordChar(text.charCodeAt(i + w.length))) return true;
    }
  }
  return false;
}
const WORD = /\w+/g;

/** `\w` of a char code (NaN, outside the text: no). */
function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
