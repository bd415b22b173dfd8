// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 2.487, cosineGap: 2.487, staticRank: 0.442, staticLogRank: 0.331, lexicalRank: -0.602, lexicalLogRank: 0.412, lexicalScore: 0.454, signalsRank: 0.543, fused: 1.511, nameCover: 0.545, queryInName: 0.527, queryInBody: 0.884, queryInPath: 0.564, callers: 0.27, lines: 0.361, depth: -0.149, privatePath: -0.259, private: -0.798, dunder: -2.446, class: -2.85, method: -0.436, module: -3.737, variable: -2.337 };
