// What an answer costs: the estimated BPE tokens of its JSON (what nsccn/* requests and
// `--json` return; the text views print less, so an answer that fits as JSON fits as text).
import { ErrorCodes, MAX_TOKENS_MAX, MAX_TOKENS_MIN, type Truncation } from '../../../../protocol';
import { EngineError } from '../errors';
import { countTokens } from '../skeleton/tokens';

export function tokensOf(value: unknown): number {
  return countTokens(JSON.stringify(value));
}

/** `maxTokens` as given, checked against the protocol's limits (undefined: no budget). */
export function checkMaxTokens(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < MAX_TOKENS_MIN || v > MAX_TOKENS_MAX) {
    throw new EngineError(ErrorCodes.InvalidParams, `maxTokens must be an integer from ${MAX_TOKENS_MIN} to ${MAX_TOKENS_MAX}, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** Room kept for the `truncated` record itself. */
export const TRUNCATION_RESERVE = 60;

export function truncation(maxTokens: number, dropped: Record<string, number>, note: string): Truncation {
  return { maxTokens, tokens: 0, dropped, note };
}

/**
 * Fills in `truncated.tokens` once the answer is final: the count of the answer with that very
 * number in it (writing `1000` where `0` stood costs a token more).
 */
export function finish<T extends { truncated?: Truncation }>(answer: T): T {
  const t = answer.truncated;
  if (!t) return answer;
  for (let i = 0; i < 3; i++) {
    const n = tokensOf(answer);
    if (n === t.tokens) break;
    t.tokens = n;
  }
  return answer;
}
