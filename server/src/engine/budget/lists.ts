// Search results and source windows cut to a token budget. Search: the lowest ranks go first.
// Window: context lines go first (farthest from the entity first), then the entity's last lines;
// what is kept stays one contiguous run of lines.
import type { SearchResponse, Window } from '../../../../protocol';
import { finish, tokensOf, truncation, TRUNCATION_RESERVE } from './measure';

/**
 * Keeps the longest prefix of `items` (in priority order) whose assembled answer fits: a first
 * guess from the items' own costs, then shortened until the whole answer (with its note) fits.
 */
function longestFit<T, A extends { truncated?: unknown }>(items: T[], maxTokens: number, base: number, cost: (t: T) => number, assemble: (n: number) => A): A {
  let left = maxTokens - base - TRUNCATION_RESERVE;
  let n = 0;
  while (n < items.length && cost(items[n]) <= left) left -= cost(items[n++]);
  let out = assemble(n);
  while (n > 0 && tokensOf(out) > maxTokens) out = assemble(--n);
  return out;
}

export function fitSearch<R extends SearchResponse>(r: R, maxTokens: number): R {
  if (tokensOf(r) <= maxTokens) return r;
  return longestFit(r.results, maxTokens, tokensOf({ ...r, results: [] }), (x) => tokensOf(x) + 1, (n) => {
    const dropped = r.results.length - n;
    return finish({
      ...r,
      results: r.results.slice(0, n),
      truncated: truncation(maxTokens, { results: dropped }, `dropped the last ${dropped} of ${r.results.length} results to fit ${maxTokens} tokens`),
    });
  });
}

export function fitWindow(w: Window, maxTokens: number): Window {
  if (tokensOf(w) <= maxTokens) return w;
  const lines = w.code.split('\n');
  const lineNo = (i: number) => w.start + i;
  const inEntity = (i: number) => lineNo(i) >= w.entityStart && lineNo(i) <= w.entityEnd;
  // Priority: entity lines top-down, then context nearest the entity first (before, after, ...).
  const order: number[] = [];
  for (let i = 0; i < lines.length; i++) if (inEntity(i)) order.push(i);
  const before = w.entityStart - w.start;
  const after = w.end - w.entityEnd;
  for (let d = 1; d <= Math.max(before, after); d++) {
    if (d <= before) order.push(before - d);
    if (d <= after) order.push(lines.length - after - 1 + d);
  }
  const entityLines = order.length - before - after;
  return longestFit(order, maxTokens, tokensOf({ ...w, code: '' }), (i) => tokensOf(lines[i]), (n) => {
    const idx = order.slice(0, n).sort((a, b) => a - b);
    const keptEntity = idx.filter(inEntity).length;
    const context = before + after - (idx.length - keptEntity);
    const dropped: Record<string, number> = { 'context lines': context };
    if (keptEntity < entityLines) dropped['entity lines'] = entityLines - keptEntity;
    const what = keptEntity < entityLines ? `${context} context lines and the entity's last ${entityLines - keptEntity} lines` : `${context} context lines`;
    const shown = idx.length
      ? { start: lineNo(idx[0]), end: lineNo(idx[idx.length - 1]), code: idx.map((i) => lines[i]).join('\n') }
      : { start: w.entityStart, end: w.entityStart - 1, code: '' };
    return finish({ ...w, ...shown, truncated: truncation(maxTokens, dropped, `dropped ${what} to fit ${maxTokens} tokens`) });
  });
}
