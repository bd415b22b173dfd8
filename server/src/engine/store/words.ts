// Identifier → words, for the lexical index and for queries: `validateToken` → `validate token`,
// `HTTPServer` → `http server`, `shop/models_v2` → `shop models v2`.
const CAMEL = /([a-z0-9])([A-Z])|([A-Z])([A-Z][a-z])/g;

export function splitIdentifier(text: string): string {
  return text
    .replace(CAMEL, (_m, a, b, c, d) => (a ? `${a} ${b}` : `${c} ${d}`))
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase();
}
