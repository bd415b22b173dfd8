// How much each stream and each feature counts, by kind of query: a row of data per profile,
// tuned on the dev halves of `npm run eval -- retrieval` and checked on the test halves (the
// figures are in README.md of this folder). Streams not named count 1.
import type { QuerySignals } from './query';

export type QueryProfile = 'identifier' | 'prose' | 'report';

export const STREAM_WEIGHTS: Record<QueryProfile, Record<string, number>> = {
  // A name that exists goes first anyway (service.ts); the rest fuse evenly.
  identifier: { exact: 1, lexical: 1, signals: 1, static: 1 },
  // With the batch-512 static table, dev MRR@10 docstring / web by static weight: 1: 0.310 /
  // 0.314, 1.5: 0.316 / 0.308, 2: 0.324 / 0.307, 3: 0.327 / 0.318 (lexical 1). The earlier table
  // was best even (grid lexical ∈ {0.5..3}, static 1).
  prose: { exact: 1, lexical: 1, signals: 1, static: 3 },
  // Dev grid lexical ∈ {0.5,1,2} × signals ∈ {1,2,4} × static ∈ {0.5,1} on the bug reports.
  report: { exact: 1, lexical: 0.5, signals: 4, static: 1 },
};

// The reranker's worths (exp of a linear score) spread far wider than RRF scores: a test that
// repeats its subject's words was worth 3.5× its subject, so × 0.3 no longer put it after.
// × 0.05 (−3 in the linear score) does, and still lets a test that matches far better surface.

/** Score factor of declaration files (`.d.ts`): the implementation they describe comes first. */
export const DECLARATION_DEMOTION = 0.05;

/** Score factor of test code when the query did not ask for tests. */
export const TEST_DEMOTION = 0.05;

/**
 * Share of a linked top hit's worth passed on by graph propagation (./graph-boost.ts), by
 * profile. Measured after the learned ranking (retrieval eval, MRR@10 dev / test): reports gain
 * (0 → 0.05 → 0.15: 0.645 / 0.619 → 0.655 / 0.635 → 0.668 / 0.630), sentences do not
 * (docstrings 0.378 / 0.362 → 0.380 / 0.351 at 0.15, web 0.384 / 0.414 → 0.385 / 0.423).
 * Before the learned ranking, 0.1 lost on docstrings (−0.03) and 0.3 on everything.
 */
export const GRAPH_SHARE: Record<'prose' | 'report', number> = { prose: 0, report: 0.15 };

export function profileOf(s: QuerySignals): QueryProfile {
  if (s.identifier) return 'identifier';
  return s.long || s.frames.length ? 'report' : 'prose';
}

/**
 * A report's learned ranking is fused (RRF, this k and weight) with the plain ranking of the word
 * and meaning streams (lexical and the vector streams, RRF at equal weights). The model learned
 * mostly from sentences and from reports that name the function at fault; a tracker report names
 * the API its writer called and describes the fault, which sits in a callee. Retrieval eval,
 * MRR@10 dev / test, bug reports and issue reports (chosen with the reranker before `lexicalFile`):
 * model alone 0.683 / 0.634 and 0.437 / 0.563, plain alone 0.540 / 0.491 and 0.560 / 0.591;
 * fused k 10 × 1: 0.635 / 0.581, 0.509 / 0.580; k 10 × 0.5: 0.652 / 0.613, 0.501 / 0.606;
 * k 3 × 1: 0.641 / 0.596, 0.555 / 0.614 (R@10 0.868 → 0.895 and 0.800 → 0.825). Chosen on the
 * dev halves' sum. With the reranker fitted on equal sets (lexical locality features): model
 * alone 0.700 / 0.673 and 0.432 / 0.505, fused 0.666 / 0.635 and 0.548 / 0.620 (docstrings 0.368
 * → 0.363: a sentence of over 12 words is a report too).
 */
export const REPORT_BLEND = { k: 3, plain: 1 };
