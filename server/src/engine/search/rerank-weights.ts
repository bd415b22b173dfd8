// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 3.005, staticRank: 0.708, staticLogRank: 0.359, lexicalRank: -0.327, lexicalLogRank: 0.036, lexicalScore: 1.162, signalsRank: 0.693, fused: 1.608, nameCover: 0.428, queryInName: -0.334, queryInBody: 0.123, queryInPath: 0.657, lexicalFile: 1.048, lexicalParent: 1.515, callers: 0.56, lines: 0.557, depth: -0.308, privatePath: -0.365, private: -1.135, dunder: -1.677, class: -2.918, method: -0.925, module: -3.816, variable: -2.148 };
