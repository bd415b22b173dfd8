// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 2.31, cosineGap: 2.31, staticRank: 0.171, staticLogRank: 0.433, lexicalRank: -0.608, lexicalLogRank: 0.422, lexicalScore: 0.501, signalsRank: 0.64, fused: 1.302, nameCover: 0.58, queryInName: 0.569, queryInBody: 0.868, queryInPath: 0.569, callers: 0.27, lines: 0.35, depth: -0.164, privatePath: -0.266, private: -0.794, dunder: -2.438, class: -2.798, method: -0.438, module: -3.691, variable: -2.361 };
