// Compact text renderings of the tool answers: what a model reads. Ids, signatures and
// file:line, one line per item, no JSON punctuation; the full data is in structuredContent.
import type { SearchResult, Skeleton, StatusResponse, TraceResult, Window } from '../../protocol';

/** Past this many edges a trace text stops and says how to narrow it. */
export const TRACE_TEXT_MAX_EDGES = 300;

export function renderSearch(results: Array<SearchResult & { via?: string }>, streams: string[]): string {
  if (!results.length) return `no results (search streams: ${streams.join(', ')}). Try other words, or drop the kind/path filter.`;
  const lines = results.map((r) => `${r.id}  ${r.file}:${r.line}  ${r.signature}${r.via ? `  [${r.via}]` : ''}`);
  return lines.join('\n');
}

/** The skeleton with each entity line prefixed by its line in the source file. */
export function renderSkeleton(s: Skeleton): string {
  const bySkeletonLine = new Map(s.entities.map((e) => [e.skeletonLine, e.sourceLine]));
  const width = String(Math.max(1, ...s.entities.map((e) => e.sourceLine))).length;
  const body = s.text
    .trimEnd()
    .split('\n')
    .map((line, i) => {
      const src = bySkeletonLine.get(i + 1);
      return `${src === undefined ? ' '.repeat(width) : String(src).padStart(width)}| ${line}`;
    });
  const header = `${s.file} (skeleton ${s.skeletonTokens} of ${s.originalTokens} tokens; left: source line; ids are kind:${s.file}:Qualified.name)`;
  return [header, ...body].join('\n');
}

export function renderTrace(t: TraceResult): string {
  const lines: string[] = [];
  const sig = (id: string) => t.entities[id]?.signature ?? '';
  const where = (id: string) => {
    const e = t.entities[id];
    return e?.file && e.line ? ` ${e.file}:${e.line}` : '';
  };
  lines.push(`${t.root}${where(t.root)}  ${sig(t.root)}`);
  let edges = 0;
  let omitted = 0;
  const seen = new Set<string>([t.root]);
  const walk = (id: string, indent: string) => {
    for (const e of t.adjacency[id] ?? []) {
      if (edges >= TRACE_TEXT_MAX_EDGES) {
        omitted++;
        continue;
      }
      edges++;
      const flags = [e.resolved ? '' : 'unresolved', e.ambiguous ? 'ambiguous' : '', e.caught ? 'caught' : '', e.dispatch ? 'may call: override' : ''].filter(Boolean).join(', ');
      const at = e.line ? ` (line ${e.line})` : '';
      const s = e.resolved ? sig(e.target) : '';
      lines.push(`${indent}${e.incoming ? '←' : '→'} ${e.relation} ${e.target}${at}${s ? `  ${s}` : ''}${flags ? ` [${flags}]` : ''}`);
      if (e.resolved && !seen.has(e.target) && t.adjacency[e.target]) {
        seen.add(e.target);
        walk(e.target, indent + '  ');
      }
    }
  };
  walk(t.root, '  ');
  if (edges === 0) lines.push(`  (no ${t.direction === 'up' ? 'callers' : t.direction === 'down' ? 'callees' : `${t.direction} edges`} found)`);
  if (omitted) lines.push(`… ${omitted} more edges not shown; lower depth or pass relations to narrow the trace`);
  if (t.escaping) lines.push(`can escape: ${t.escaping.length ? t.escaping.join(', ') : 'nothing'}`);
  return lines.join('\n');
}

export function renderWindow(w: Window): string {
  return `${w.id}  ${w.file}:${w.entityStart}-${w.entityEnd} (shown ${w.start}-${w.end})\n${w.code.trimEnd()}`;
}

export function renderStatus(s: StatusResponse, extra: { root: string; restarts: number; progress: string | null }): string {
  const lines = [
    `${s.state === 'ready' ? 'ready' : s.checking ? 'checking the index against the disk (answers come from it meanwhile)' : `indexing${extra.progress ? ` (${extra.progress})` : ''}`}: ${s.files} files, ${s.entities} entities, ${s.edges} edges`,
    `root: ${extra.root}`,
    `search streams: ${s.streams.join(', ')}`,
  ];
  if (s.embeddings) lines.push(`embeddings: ${s.embeddings.model} ${s.embeddings.done}/${s.embeddings.total}`);
  if (extra.restarts) lines.push(`language server restarts: ${extra.restarts}`);
  lines.push(...s.notes.map((n) => `note: ${n}`));
  return lines.join('\n');
}
