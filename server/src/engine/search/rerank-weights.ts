// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 3.289, staticRank: 0.715, staticLogRank: 0.268, lexicalRank: -0.521, lexicalLogRank: 0.037, lexicalScore: 0.252, signalsRank: 0.437, fused: 1.607, nameCover: 0.871, queryInName: 0.322, queryInBody: 0.826, queryInPath: -0.847, lexicalFile: 2.097, lexicalParent: 1.229, callers: 0.288, lines: 0.363, depth: -0.073, privatePath: -0.386, private: -0.896, dunder: -2.312, class: -2.944, method: -0.705, module: -3.251, variable: -2.494 };
