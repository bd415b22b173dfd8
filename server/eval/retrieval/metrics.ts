// Ranking metrics of the retrieval eval: entity ranks (MRR@10, R@k) and file ranks (Acc@k).
export interface Metrics {
  queries: number;
  mrr10: number;
  recall1: number;
  recall5: number;
  recall10: number;
  /** The answer's file first / in the top 5 of the system's file ranking. */
  file1: number;
  file5: number;
  /** Share of queries whose top 5 hold the entity most often seen in top 5s (hub collapse). */
  hub5: number;
}

/** One query's outcome in one system: 1-based ranks, Infinity when missed. */
export interface Outcome {
  rank: number;
  fileRank: number;
  /** The system's first five answers (entity eids, or file paths for file-only systems). */
  top5: Array<number | string>;
}

export function metrics(outcomes: Outcome[]): Metrics {
  const n = outcomes.length || 1;
  const at = (k: number, f: (o: Outcome) => number) => round(outcomes.filter((o) => f(o) <= k).length / n);
  return {
    queries: outcomes.length,
    mrr10: round(outcomes.reduce((s, o) => s + (o.rank <= 10 ? 1 / o.rank : 0), 0) / n),
    recall1: at(1, (o) => o.rank),
    recall5: at(5, (o) => o.rank),
    recall10: at(10, (o) => o.rank),
    file1: at(1, (o) => o.fileRank),
    file5: at(5, (o) => o.fileRank),
    hub5: round(hubShare(outcomes.map((o) => o.top5)) / n),
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** 1-based position of the first item that is an answer, Infinity if none. */
export function firstHit<T>(items: T[], isAnswer: (t: T) => boolean): number {
  const i = items.findIndex(isAnswer);
  return i < 0 ? Infinity : i + 1;
}

/** Files in order of their first appearance in an entity ranking. */
export function filesOf(paths: Array<string | null | undefined>): string[] {
  const seen = new Set<string>();
  for (const p of paths) if (p && !seen.has(p)) seen.add(p);
  return [...seen];
}

function hubShare(tops: Array<Array<number | string>>): number {
  const seen = new Map<number | string, number>();
  for (const t of tops) for (const x of new Set(t)) seen.set(x, (seen.get(x) ?? 0) + 1);
  return Math.max(0, ...seen.values());
}
