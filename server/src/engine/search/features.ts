// What the reranker (./rerank.ts) knows of a candidate, as numbers: where the streams put it,
// how close the static vectors say it is, how much of the query its name, body and path spell
// out, whether the lexical hits gather in its file or class, how much of the workspace calls
// it, and what kind of thing it is. One list of names, in the order of the weights
// (./rerank-weights.ts); the fitter (server/eval/fit-rerank.ts) reads the same vectors, so what
// is trained is what runs.
import { staticWords } from '../embed/terms';
import type { EntityDbRow } from '../store/read-rows';
import type { RankingFacts } from '../store/store';
import { proseOf } from './query';
import type { StreamHit } from './types';
import { lexicalView, type FileScore } from './files';

export const FEATURES = [
  'cosine', // the static stream's cosine (the last listed one's when not listed: at most that)
  'staticRank', // 1 / rank in the static stream (0 when not listed)
  'staticLogRank', // −ln(rank) in the static stream (−ln(depth + 1) when not listed)
  'lexicalRank',
  'lexicalLogRank',
  'lexicalScore', // BM25 over the lexical stream's best (0 when not listed, at most 1)
  'signalsRank',
  'fused', // the RRF score over every stream (model streams included), over the best one's
  'nameCover', // share of the name's words the query holds
  'queryInName', // share of the query's words in the qualified name and signature
  'queryInBody', // share of the query's words in the body
  'queryInPath', // share of the query's words in the path
  'lexicalFile', // its file's score among the files the lexical stream's hits gather in, over the best file's (0 when none)
  'lexicalParent', // 1 / rank of its parent (class, module) among the parents the lexical hits gather in (0 when none)
  'callers', // ln(1 + entities that call it)
  'lines', // ln(1 + lines)
  'depth', // folders in the path
  'privatePath', // a folder or module of its path is `_private` (`_pyio.py`, `_internal/`)
  'private', // `_name`
  'dunder', // `__name__`
  'class',
  'method',
  'module',
  'variable', // a global or attribute
] as const;

export type Feature = (typeof FEATURES)[number];

/** How deep each stream is read for ranking: ranks past this count as absent. */
export const RANK_DEPTH = 60;
const ABSENT_LOG_RANK = -Math.log(RANK_DEPTH + 1);

export interface RankingContext {
  /** Stemmed content words of the query's prose. */
  terms: Set<string>;
  /** Per stream: eid → 1-based rank. */
  ranks: Record<string, Map<number, number>>;
  /** The static stream's cosine per listed eid, and the floor for the others. */
  cosine: Map<number, number>;
  cosineFloor: number;
  /** The lexical stream's BM25 per listed eid, and its best. */
  bm25: Map<number, number>;
  bm25Best: number;
  fusedBest: number;
  /** Words of each path met so far: a query's candidates share a few dozen files. */
  pathWords: Map<string, string[]>;
  /** Words of each identifier met so far in this search's candidates (see `staticWords`). */
  identifierWords: Map<string, readonly string[]>;
  /** The lexical stream's hits gathered by file (path → score over the best file's) and by parent (id → 1-based rank). */
  lexicalFiles: Map<string, number>;
  lexicalParents: Map<string, number>;
}

/**
 * `identifierWords`: a memo of identifier → words that outlives the search (a server's bodies
 * repeat the same identifiers across queries; splitting and stemming them was a sixth of a search).
 */
export function rankingContext(
  query: string,
  perStream: Record<string, StreamHit[]>,
  fusedBest: number,
  identifierWords = new Map<string, readonly string[]>(),
  pathOf: (eid: number) => string | null | undefined = () => null,
  parentOf: (eid: number) => string | null | undefined = () => null,
): RankingContext {
  const ranks: Record<string, Map<number, number>> = {};
  for (const [name, hits] of Object.entries(perStream)) ranks[name] = tiedRanks(hits.slice(0, RANK_DEPTH));
  const listed = (perStream.static ?? []).slice(0, RANK_DEPTH);
  const cosine = new Map(listed.map((h) => [h.eid, h.score]));
  const lexical = (perStream.lexical ?? []).slice(0, RANK_DEPTH);
  return {
    terms: new Set(staticWords(proseOf(query))),
    ranks,
    cosine,
    cosineFloor: listed.length ? listed[listed.length - 1].score : 0,
    bm25: new Map(lexical.map((h) => [h.eid, h.score])),
    bm25Best: lexical.length ? lexical[0].score : 0,
    fusedBest: fusedBest || 1,
    pathWords: new Map(),
    identifierWords,
    lexicalFiles: new Map(gathered(lexical, pathOf).map((f, _, all) => [f.file, f.score / all[0].score])),
    lexicalParents: new Map(gathered(lexical, parentOf).map((f, i) => [f.file, i + 1])),
  };
}

/**
 * 1-based ranks where equal scores share the best of their places (1, 2, 2, 4): equal evidence
 * is one feature value, not an order the stream broke its tie by (two functions raising the
 * message a report quotes score the same in the signals stream; the second was worth half).
 */
function tiedRanks(hits: readonly StreamHit[]): Map<number, number> {
  const out = new Map<number, number>();
  hits.forEach((h, i) => out.set(h.eid, i > 0 && h.score === hits[i - 1].score ? out.get(hits[i - 1].eid)! : i + 1));
  return out;
}

/** The lexical hits gathered by a key of theirs (files.ts `lexicalView`), best first; hits without one are left out. */
function gathered(lexical: StreamHit[], keyOf: (eid: number) => string | null | undefined): FileScore[] {
  return lexicalView(
    lexical.flatMap((h) => {
      const key = keyOf(h.eid);
      return key ? [{ id: String(h.eid), file: key, weight: 1 }] : [];
    }),
  );
}

export interface CandidateFacts extends RankingFacts {
  row: EntityDbRow;
  fusedScore: number;
}

/** The feature vector of one candidate, in FEATURES order. */
export function featuresOf(c: CandidateFacts, ctx: RankingContext): number[] {
  const { row } = c;
  const eid = row.eid;
  const rank = (stream: string) => ctx.ranks[stream]?.get(eid);
  const recip = (stream: string) => {
    const r = rank(stream);
    return r ? 1 / r : 0;
  };
  const logRank = (stream: string) => {
    const r = rank(stream);
    return r ? -Math.log(r) : ABSENT_LOG_RANK;
  };
  const cosine = ctx.cosine.get(eid) ?? ctx.cosineFloor;
  const share = (words: Iterable<string>) => {
    if (!ctx.terms.size) return 0;
    const held = new Set(words);
    let n = 0;
    for (const t of ctx.terms) if (held.has(t)) n++;
    return n / ctx.terms.size;
  };
  const nameWords = staticWords(row.name, ctx.identifierWords);
  const nameCover = nameWords.length ? nameWords.filter((w) => ctx.terms.has(w)).length / nameWords.length : 0;
  const lines = row.sr !== null && row.er !== null ? row.er - row.sr + 1 : 1;
  const values: Record<Feature, number> = {
    cosine,
    staticRank: recip('static'),
    staticLogRank: logRank('static'),
    lexicalRank: recip('lexical'),
    lexicalLogRank: logRank('lexical'),
    lexicalScore: ctx.bm25Best > 0 ? Math.min(1, (ctx.bm25.get(eid) ?? 0) / ctx.bm25Best) : 0,
    signalsRank: recip('signals'),
    fused: c.fusedScore / ctx.fusedBest,
    nameCover,
    queryInName: share(staticWords(`${row.qname} ${row.signature}`, ctx.identifierWords)),
    queryInBody: share(staticWords(c.body, ctx.identifierWords)),
    queryInPath: share(wordsOfPath(row.path ?? '', ctx)),
    lexicalFile: row.path ? (ctx.lexicalFiles.get(row.path) ?? 0) : 0,
    lexicalParent: row.parent && ctx.lexicalParents.has(row.parent) ? 1 / ctx.lexicalParents.get(row.parent)! : 0,
    callers: Math.log1p(c.callers),
    lines: Math.log1p(lines),
    depth: (row.path ?? '').split('/').length,
    privatePath: /(^|\/)_(?!_)/.test(row.path ?? '') ? 1 : 0,
    private: /^_(?!_)/.test(row.name) ? 1 : 0,
    dunder: /^__.*__$/.test(row.name) ? 1 : 0,
    class: row.kind === 'class' ? 1 : 0,
    method: row.kind === 'method' ? 1 : 0,
    module: row.kind === 'module' ? 1 : 0,
    variable: row.kind === 'global' || row.kind === 'attr' ? 1 : 0,
  };
  return FEATURES.map((f) => values[f]);
}

function wordsOfPath(path: string, ctx: RankingContext): string[] {
  let words = ctx.pathWords.get(path);
  if (!words) ctx.pathWords.set(path, (words = staticWords(path, ctx.identifierWords)));
  return words;
}
