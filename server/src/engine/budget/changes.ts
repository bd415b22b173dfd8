// A changes answer cut to a token budget: first the long caller lists are shortened (nearest
// callers stay), then whole entities go from the end of the list; the files list always stays.
import type { ChangesResponse } from '../../../../protocol';
import { finish, tokensOf, truncation } from './measure';

const CALLER_CAPS = [10, 5, 2, 0];

export function fitChanges(r: ChangesResponse, maxTokens: number): ChangesResponse {
  if (tokensOf(r) <= maxTokens) return r;
  const make = (cap: number, n: number): ChangesResponse => {
    let hidden = 0;
    const entities = r.entities.slice(0, n).map((e) => {
      hidden += Math.max(0, e.callers.length - cap);
      return e.callers.length > cap ? { ...e, callers: e.callers.slice(0, cap) } : e;
    });
    const dropped = r.entities.length - n;
    const parts = [hidden ? `${hidden} callers beyond the nearest ${cap}` : '', dropped ? `the last ${dropped} of ${r.entities.length} entities` : ''].filter(Boolean);
    return finish({ ...r, entities, truncated: truncation(maxTokens, { callers: hidden, entities: dropped }, `dropped ${parts.join(' and ')} to fit ${maxTokens} tokens`) });
  };
  let out = make(CALLER_CAPS[0], r.entities.length);
  for (const cap of CALLER_CAPS) {
    out = make(cap, r.entities.length);
    if (out.truncated!.tokens <= maxTokens) return out;
  }
  for (let n = r.entities.length - 1; n >= 0; n--) {
    out = make(0, n);
    if (out.truncated!.tokens <= maxTokens) return out;
  }
  return out;
}
