// The reranker's weights (./rerank.ts). Written by `npm run eval -- fit-rerank -- --write`
// (server/eval/fit-rerank.ts), which says what they were trained on; do not edit by hand.
import type { RerankWeights } from './rerank';

export const RERANK_WEIGHTS: RerankWeights = { cosine: 2.304, staticRank: 0.698, staticLogRank: 0.368, lexicalRank: -0.409, lexicalLogRank: -0.013, lexicalScore: 1.273, signalsRank: 0.56, fused: 1.896, nameCover: 0.368, queryInName: -0.795, queryInBody: 0.333, queryInPath: 0.592, lexicalFile: 1.415, lexicalParent: 1.522, callers: 0.574, lines: 0.678, depth: -0.321, privatePath: -0.501, private: -1.193, dunder: -1.502, class: -3.164, method: -0.982, module: -4.254, variable: -1.968 };
