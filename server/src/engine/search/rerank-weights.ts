// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 3.188, staticRank: 0.752, staticLogRank: 0.279, lexicalRank: -0.645, lexicalLogRank: 0.185, lexicalScore: 0.332, signalsRank: 0.511, fused: 1.599, nameCover: 0.749, queryInName: 0.462, queryInBody: 0.802, queryInPath: -0.801, lexicalFile: 2.324, callers: 0.282, lines: 0.371, depth: -0.104, privatePath: -0.334, private: -0.861, dunder: -2.349, class: -3.043, method: -0.629, module: -3.816, variable: -2.469 };
