// The file ranking: "which file do I open?". Three views of the same search, fused by their ranks:
// - the ranked entities: a file scores its best entity's score plus a decaying share of its next
//   ones (a file several hits point into beats one lucky hit, but a file of a thousand weak
//   matches does not beat one strong match);
// - the lexical stream's order alone, aggregated the same way by rank: the files whose code
//   spells the query's words. The learned ranking picks the one right function; for the file,
//   plain word evidence spread over a file's entities is the stronger signal (plain BM25 over
//   whole files beat the entity view on docstring questions, F@1 0.60 against 0.53);
// - the files a report names by path outside its traceback ("the check in shutil.py"), in order.
// k = 10 was chosen on the dev halves of `npm run eval -- retrieval` (mean file Acc@1 + Acc@5
// over its four sets), the lexical view's half weight on those and the held-out reports' dev
// half (`npm run eval -- localisation`); see README.md of this folder for the figures.
import type { SearchFileResult } from '../../../../protocol';

export interface ScoredHit {
  id: string;
  file: string;
  score: number;
  /** What the search multiplied the entity's worth by: 1, or the test / declaration demotion. */
  weight?: number;
}

const SHARE = 0.5;
const MAX_PER_FILE = 5;
/** Rank offset of the lexical view's per-entity weight, 1 / (LEXICAL_K + rank). */
const LEXICAL_K = 5;
/** RRF constant of the fusion of the views' file orders. */
const FUSE_K = 10;
/**
 * The lexical view's weight in that fusion (the others count 1). At 1 it let a file of many
 * weak word matches pass the file of the search's first, right answer (held-out reports: file
 * Acc@1 0.690; at 0.5, 0.738).
 */
const LEXICAL_VIEW_WEIGHT = 0.5;

export interface FileScore {
  file: string;
  score: number;
  hits: string[];
  /** The demotion of the file's code (every entity of a file shares it). */
  weight: number;
}

/** A file's score: its hits' scores, the j-th (within the file) times SHARE^j, five at most. */
function byFile(hits: ScoredHit[]): FileScore[] {
  const files = new Map<string, FileScore>();
  for (const h of hits) {
    let f = files.get(h.file);
    if (!f) files.set(h.file, (f = { file: h.file, score: 0, hits: [], weight: h.weight ?? 1 }));
    if (f.hits.length >= MAX_PER_FILE) continue;
    f.score += h.score * Math.pow(SHARE, f.hits.length);
    f.hits.push(h.id);
  }
  return [...files.values()].sort(bestFirst);
}

/**
 * The lexical stream's hits gathered by file (or by any key put in `file`: the reranker gathers
 * them by class too, features.ts): a file scores weight / (LEXICAL_K + rank) for its first hit,
 * SHARE times that for the next, MAX_PER_FILE hits at most. Best first.
 */
export function lexicalView(lexical: ReadonlyArray<{ id: string; file: string; weight: number }>): FileScore[] {
  return byFile(lexical.map((h, i) => ({ id: h.id, file: h.file, score: h.weight / (LEXICAL_K + i + 1), weight: h.weight })));
}

const bestFirst = (a: { file: string; score: number }, b: { file: string; score: number }) => b.score - a.score || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);

/**
 * `ranked`: the search's entities best first, with their scores and demotions. `lexical`: the
 * lexical stream's entities in its order (the same filters applied; `weight` is 1, or the
 * demotion). A file named by the report keeps weight 1: the user asked for it. Returns at most
 * `limit` files, best first (ties by path); a file's hits are its best entities in the search's
 * ranking (in the lexical order when it only has those).
 */
export function rankFiles(
  ranked: ScoredHit[],
  limit: number,
  lexical: ReadonlyArray<{ id: string; file: string; weight: number }> = [],
  /** Workspace files the query names by path (`shutil.py`, `src/app/views.py`), in its order: a third view. */
  named: readonly string[] = [],
): SearchFileResult[] {
  const entityView = byFile(ranked);
  const wordView = lexicalView(lexical);
  const fused = new Map<string, FileScore>();
  const add = (view: FileScore[], weight = 1) =>
    view.forEach((f, i) => {
      const got = fused.get(f.file);
      if (got) got.score += weight / (FUSE_K + i + 1);
      else fused.set(f.file, { ...f, score: weight / (FUSE_K + i + 1) });
    });
  add(entityView);
  add(wordView, LEXICAL_VIEW_WEIGHT);
  add(named.map((file) => ({ file, score: 0, hits: [], weight: 1 })));
  // Ranks alone would let a demoted file (a test) that every view holds pass code one view
  // found: the fused score keeps the demotion.
  for (const f of fused.values()) f.score *= f.weight;
  return [...fused.values()]
    .sort(bestFirst)
    .slice(0, limit)
    .map((f) => ({ file: f.file, score: Math.round(f.score * 1e6) / 1e6, hits: f.hits }));
}
