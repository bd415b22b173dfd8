// The first sentence of a docstring: what a developer would type to find the function.
// Stops at the first blank line or at a period (?, !) followed by white space or the end, but
// not at abbreviations like "e.g." or dotted names like "os.path".

const ABBREVIATIONS = /(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|resp|incl|no|ca)|\b[A-Za-z])\.$/i;

export function firstSentence(doc: string | null | undefined): string {
  if (!doc) return '';
  const para = doc.trim().split(/\n\s*\n/)[0].replace(/\s+/g, ' ').trim();
  const re = /[.?!](?=\s|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(para))) {
    const upto = para.slice(0, m.index + 1);
    if (ABBREVIATIONS.test(upto)) continue;
    return upto.trim();
  }
  return para;
}

/** A sentence as a dedup key: lower case, words only. */
export function sentenceKey(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}
