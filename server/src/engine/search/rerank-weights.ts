// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 2.315, cosineGap: 2.315, staticRank: 0.165, staticLogRank: 0.433, lexicalRank: -0.612, lexicalLogRank: 0.422, lexicalScore: 0.511, signalsRank: 0.654, fused: 1.3, nameCover: 0.578, queryInName: 0.567, queryInBody: 0.863, queryInPath: 0.576, callers: 0.273, lines: 0.346, depth: -0.17, private: -0.8, dunder: -2.442, class: -2.791, method: -0.436, module: -3.674, variable: -2.363 };
