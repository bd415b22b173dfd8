// The file ranking: "which file do I open?". A file scores its best entity's score plus a
// decaying share of its next ones (a file several hits point into beats one lucky hit, but a
// file of a thousand weak matches does not beat one strong match).
import type { SearchFileResult } from '../../../../protocol';

export interface ScoredHit {
  id: string;
  file: string;
  score: number;
}

const SHARE = 0.5;
const MAX_PER_FILE = 5;

/** `hits` best first; returns at most `limit` files, best first (ties by path). */
export function rankFiles(hits: ScoredHit[], limit: number): SearchFileResult[] {
  const byFile = new Map<string, SearchFileResult>();
  for (const h of hits) {
    let f = byFile.get(h.file);
    if (!f) byFile.set(h.file, (f = { file: h.file, score: 0, hits: [] }));
    if (f.hits.length >= MAX_PER_FILE) continue;
    f.score += h.score * Math.pow(SHARE, f.hits.length);
    f.hits.push(h.id);
  }
  return [...byFile.values()]
    .sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    .slice(0, limit)
    .map((f) => ({ ...f, score: Math.round(f.score * 1e6) / 1e6 }));
}
