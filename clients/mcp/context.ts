// build_context: an agent's first look at a task in one call. The best hits of the query, each
// with its signature and docstring, its direct callers and callees, and the state, config and
// errors it touches, packed under a token budget (counted as the skeleton figures are, by
// engine/skeleton/tokens.ts) and never over it.
//
// Packing is by priority, then rendered in reading order: first every hit's id and signature,
// then (hit by hit) docstrings, callees and callers, then state, config and errors. A line that
// does not fit is left out and the next smaller one is tried; the whole text is counted again
// at the end and trimmed from the least useful line while it is over the budget.
import { Methods, type SkeletonResponse, type TraceResult } from '../../protocol';
import { countTokens } from '../../server/src/engine';
import type { ToolContext } from './tools';
import { searchQuery, type RankedResult } from './query';

export const CONTEXT_DEFAULT_BUDGET = 4000;
export const CONTEXT_MIN_BUDGET = 100;
export const CONTEXT_MAX_BUDGET = 100_000;
/** Hits looked at: about one per 200 tokens of budget; past the budget the rest are never fetched. */
const hitsFor = (budget: number) => Math.min(50, Math.max(5, Math.ceil(budget / 200)));
/** Ids listed per relation line before "+N more". */
const LIST_MAX = 8;
/** Docstring lines kept per hit. */
const DOC_MAX_LINES = 6;

type Field = 'head' | 'doc' | 'calls' | 'calledBy' | 'mutates' | 'readsConfig' | 'raises';
/** Tier of each field: lower tiers are packed first. */
const TIER: Record<Field, number> = { head: 0, doc: 1, calls: 1, calledBy: 1, mutates: 2, readsConfig: 2, raises: 2 };

interface Line {
  hit: number;
  field: Field;
  order: number;
  text: string;
  /** What goes into structuredContent when the line is kept. */
  value: string | string[];
  tokens: number;
}

export interface ContextHit {
  id: string;
  file: string;
  line: number;
  endLine: number;
  signature: string;
  via?: string;
  doc?: string;
  calls?: string[];
  calledBy?: string[];
  mutates?: string[];
  readsConfig?: string[];
  raises?: string[];
}

const HEADER = '# context (hits ranked; ids work with open_surgical_window and trace_causal_path)';
const footer = (n: number) => `# ${n} more lines left out by the token budget`;

export async function buildContext(ctx: ToolContext, query: string, budget: number): Promise<{ structured: Record<string, unknown>; text: string }> {
  await ctx.progress(0, hitsFor(budget) + 1, 'searching');
  const { results, streams } = await searchQuery({ call: ctx.call.bind(ctx) }, { query, limit: hitsFor(budget), kinds: ['function', 'method', 'class'] });
  if (!results.length) {
    const text = `no hits for the query (search streams: ${streams.join(', ')}); try other words, or search_and_rank with a kind or path filter.\n`;
    return { structured: { query, budget, tokens: countTokens(text), streams, hits: [], omittedLines: 0 }, text };
  }
  const skeletons = new Map<string, Promise<SkeletonResponse | null>>();
  const lines: Line[] = [];
  // Tokens the hits' heads alone need: once they fill the budget, later hits are not fetched.
  let headTokens = countTokens(HEADER + '\n' + footer(999) + '\n');
  for (const [i, hit] of results.entries()) {
    if (headTokens >= budget) break;
    await ctx.progress(i + 1, results.length + 1, `gathering ${hit.id}`); // no final step: the answer says it is done
    const hitLines = await linesOfHit(ctx, hit, i, skeletons);
    headTokens += hitLines.filter((l) => l.field === 'head').reduce((a, l) => a + l.tokens, 0);
    lines.push(...hitLines);
  }
  const packed = pack(lines, budget);
  const text = render(packed.kept, packed.left);
  const hits = structured(results, packed.kept);
  return { structured: { query, budget, tokens: countTokens(text), streams, hits, omittedLines: packed.left }, text };
}

async function linesOfHit(ctx: ToolContext, hit: RankedResult, i: number, skeletons: Map<string, Promise<SkeletonResponse | null>>): Promise<Line[]> {
  if (!skeletons.has(hit.uri ?? hit.file)) {
    skeletons.set(hit.uri ?? hit.file, hit.uri ? ctx.call<SkeletonResponse>(Methods.skeleton, { uri: hit.uri }).catch(() => null) : Promise.resolve(null));
  }
  const [skeleton, up, state, errors] = await Promise.all([
    skeletons.get(hit.uri ?? hit.file)!,
    ctx.call<TraceResult>(Methods.trace, { id: hit.id, direction: 'up', depth: 1 }),
    ctx.call<TraceResult>(Methods.trace, { id: hit.id, direction: 'state', depth: 1 }),
    ctx.call<TraceResult>(Methods.trace, { id: hit.id, direction: 'errors', depth: 1 }),
  ]);
  const out: Line[] = [];
  let order = 0;
  const add = (field: Field, text: string, value: string | string[]) => out.push({ hit: i, field, order: order++, text, value, tokens: countTokens(text + '\n') });
  const via = hit.via ? `  [${hit.via}]` : '';
  add('head', `## ${i + 1}. ${hit.id}  ${hit.file}:${hit.line}-${hit.endLine}${via}\n${hit.signature}`, hit.signature);
  const doc = skeleton ? docOf(skeleton, hit.id) : '';
  if (doc) add('doc', doc, doc.trim());
  const own = (t: TraceResult) => t.adjacency[t.root] ?? [];
  const callees = own(state).filter((e) => e.relation === 'CALLS' && !e.incoming);
  const callers = own(up).filter((e) => e.incoming);
  const name = (e: { target: string; resolved: boolean }) => (e.resolved ? e.target : `?${e.target}`);
  const list = (label: string, field: Field, ids: string[]) => {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    const shown = unique.slice(0, LIST_MAX);
    const more = unique.length > shown.length ? ` +${unique.length - shown.length} more` : '';
    add(field, `${label}: ${shown.join(', ')}${more}`, shown);
  };
  list('calls', 'calls', callees.map(name));
  list('called by', 'calledBy', callers.map(name));
  list('mutates', 'mutates', own(state).filter((e) => e.relation === 'MUTATES').map(name));
  list('reads config', 'readsConfig', own(state).filter((e) => e.relation === 'READS_CONFIG').map(name));
  list('raises', 'raises', errors.escaping ?? own(errors).filter((e) => e.relation === 'PROPAGATES_ERROR').map(name));
  return out;
}

/** The docstring lines under the entity's signature in its file's skeleton. */
function docOf(s: SkeletonResponse, id: string): string {
  const at = s.entities.findIndex((e) => e.id === id);
  if (at < 0) return '';
  const start = s.entities[at].skeletonLine; // the signature line
  const next = s.entities.slice(at + 1).find((e) => e.skeletonLine > start)?.skeletonLine ?? Infinity;
  const text = s.text.split('\n');
  const body: string[] = [];
  for (let n = start; n < Math.min(next - 1, text.length) && body.length < DOC_MAX_LINES; n++) {
    const line = text[n];
    if (!line.trim() || line.trim() === '...') continue;
    if (/^\s*(def|class|async def|@)/.test(line)) break;
    body.push(line);
  }
  return body.join('\n');
}

function pack(lines: Line[], budget: number): { kept: Line[]; left: number } {
  const byPriority = [...lines].sort((a, b) => TIER[a.field] - TIER[b.field] || a.hit - b.hit || a.order - b.order);
  let used = countTokens(HEADER + '\n') + countTokens(footer(lines.length) + '\n');
  const kept: Line[] = [];
  const headed = new Set<number>(); // a hit's other lines mean nothing without its head
  for (const l of byPriority) {
    if (used + l.tokens > budget || (l.field !== 'head' && !headed.has(l.hit))) continue;
    if (l.field === 'head') headed.add(l.hit);
    kept.push(l);
    used += l.tokens;
  }
  // Pieces can merge across line joins; count the real text and drop the least useful lines.
  while (kept.length && countTokens(render(kept, lines.length - kept.length)) > budget) kept.pop();
  return { kept, left: lines.length - kept.length };
}

function render(kept: Line[], left: number): string {
  const ordered = [...kept].sort((a, b) => a.hit - b.hit || a.order - b.order);
  const parts = [HEADER, ...ordered.map((l) => l.text)];
  if (left) parts.push(footer(left));
  return parts.join('\n') + '\n';
}

function structured(results: RankedResult[], kept: Line[]): ContextHit[] {
  const hits = new Map<number, ContextHit>();
  for (const l of [...kept].sort((a, b) => a.hit - b.hit || a.order - b.order)) {
    const r = results[l.hit];
    if (!hits.has(l.hit)) {
      hits.set(l.hit, { id: r.id, file: r.file, line: r.line, endLine: r.endLine, signature: r.signature, ...(r.via ? { via: r.via } : {}) });
    }
    const h = hits.get(l.hit)!;
    if (l.field === 'doc') h.doc = l.value as string;
    else if (l.field !== 'head') h[l.field] = l.value as string[];
  }
  return [...hits.values()];
}
