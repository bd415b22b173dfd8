// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 3.521, staticRank: 0.449, staticLogRank: 0.397, lexicalRank: -0.579, lexicalLogRank: 0.411, lexicalScore: 0.462, signalsRank: 0.539, fused: 1.5, nameCover: 0.551, queryInName: 0.593, queryInBody: 0.893, queryInPath: 0.618, callers: 0.268, lines: 0.359, depth: -0.155, privatePath: -0.26, private: -0.8, dunder: -2.445, class: -2.851, method: -0.436, module: -3.721, variable: -2.351 };
