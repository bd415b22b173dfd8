// The reranker's fitter (server/eval/fit-rerank.ts): on questions where one feature marks the
// answer and another is noise, it learns to trust the first, and ranks the answers first.
import { describe, expect, it } from 'vitest';
import { fit, reciprocalRank, type Sample } from '../server/eval/fit-rerank';
import { mulberry32 } from '../server/eval/random';

function questions(n: number, seed: number, set: string): Sample[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => {
    const answer = Math.floor(rand() * 20);
    // Feature 0: noise; feature 1: higher for the answer, most of the time.
    const x = Array.from({ length: 20 }, (_, i) => [rand(), i === answer ? 0.6 + rand() * 0.4 : rand() * 0.8]);
    return { set, split: 'train' as const, x, y: x.map((_, i) => i === answer) };
  });
}

describe('fitting the reranker', () => {
  it('weighs the feature that marks the answer, not the noise, and ranks answers first', () => {
    const w = fit([...questions(200, 1, 'a'), ...questions(50, 2, 'b')], { iterations: 300, l2: 1e-3 });
    expect(w[1]).toBeGreaterThan(1);
    expect(Math.abs(w[0])).toBeLessThan(w[1] / 4);
    const held = questions(100, 3, 'a');
    const mrr = (weights: number[]) => held.reduce((a, s) => a + reciprocalRank(weights, s), 0) / held.length;
    expect(mrr(w)).toBeGreaterThan(0.6);
    expect(mrr(w)).toBeGreaterThan(mrr([1, 0]) + 0.3);
  });

  it('weighs each set by what it is told to count: a set counted 0 changes nothing', () => {
    const a = questions(80, 7, 'a');
    // Set b's answers are marked by the noise feature: counted, it pulls weight onto feature 0.
    const b = questions(80, 8, 'b').map((s) => ({ ...s, x: s.x.map(([n, m]) => [m, n]) }));
    const alone = fit(a, { iterations: 200, l2: 1e-3 });
    expect(fit([...a, ...b], { iterations: 200, l2: 1e-3, setWeights: { b: 0 } })).toEqual(alone);
    const half = fit([...a, ...b], { iterations: 200, l2: 1e-3, setWeights: { b: 0.5 } });
    const full = fit([...a, ...b], { iterations: 200, l2: 1e-3 });
    expect(half[0]).toBeGreaterThan(alone[0]);
    expect(full[0]).toBeGreaterThan(half[0]);
  });

  it('is deterministic: the same questions give the same weights', () => {
    const a = fit(questions(60, 5, 'a'), { iterations: 100, l2: 1e-3 });
    const b = fit(questions(60, 5, 'a'), { iterations: 100, l2: 1e-3 });
    expect(a).toEqual(b);
  });
});
