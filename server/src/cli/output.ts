// Human-readable renderings of the protocol shapes for the terminal (--json prints them as is).
import type { IndexSummary, SearchResponse, StatsResponse, TraceResult } from '../../../protocol';

export function formatSummary(s: IndexSummary): string {
  const parts = [`${s.parsed} parsed`, `${s.unchanged} unchanged`, `${s.deleted} deleted`, `${s.skipped.length} skipped`];
  return `indexed ${s.files} files (${parts.join(', ')}): ${s.entities} entities, ${s.edges} edges in ${s.seconds.toFixed(2)} s`;
}

export function formatSearch(r: SearchResponse): string {
  if (!r.results.length) return `no results (streams: ${r.streams.join(', ')})`;
  const w = Math.max(...r.results.map((x) => x.id.length));
  return r.results.map((x) => `${x.score.toFixed(4)}  ${x.id.padEnd(w)}  ${x.file}:${x.line}  ${x.signature}`).join('\n');
}

export function formatSearchFiles(r: SearchResponse): string {
  const files = r.files ?? [];
  if (!files.length) return `no results (streams: ${r.streams.join(', ')})`;
  const w = Math.max(...files.map((f) => f.file.length));
  return files.map((f) => `${f.score.toFixed(4)}  ${f.file.padEnd(w)}  ${f.hits.length} hit${f.hits.length === 1 ? '' : 's'}: ${f.hits.slice(0, 3).map((id) => id.slice(id.lastIndexOf(':') + 1)).join(', ')}`).join('\n');
}

export function formatTrace(t: TraceResult): string {
  const lines: string[] = [];
  const sig = (id: string) => t.entities[id]?.signature ?? '';
  lines.push(`${t.root}  ${sig(t.root)}`);
  const seen = new Set<string>([t.root]);
  const walk = (id: string, indent: string) => {
    for (const e of t.adjacency[id] ?? []) {
      const flags = [e.resolved ? '' : 'unresolved', e.ambiguous ? 'ambiguous' : '', e.caught ? 'caught' : ''].filter(Boolean).join(', ');
      const at = e.line ? ` (line ${e.line})` : '';
      lines.push(`${indent}${e.incoming ? '←' : '→'} ${e.relation} ${e.incoming ? 'from' : 'to'} ${e.target}${at}${flags ? ` [${flags}]` : ''}`);
      if (e.resolved && !seen.has(e.target) && t.adjacency[e.target]) {
        seen.add(e.target);
        walk(e.target, indent + '  ');
      }
    }
  };
  walk(t.root, '  ');
  if (t.escaping) lines.push(`can escape: ${t.escaping.length ? t.escaping.join(', ') : 'nothing'}`);
  return lines.join('\n');
}

export function formatStats(s: StatsResponse): string {
  const rows: Array<[string, string]> = [
    ['root', s.root],
    ['files', String(s.files)],
    ...Object.entries(s.entities).sort().map(([k, n]): [string, string] => [`entities: ${k}`, String(n)]),
    ...Object.entries(s.edges).sort().map(([k, n]): [string, string] => [`edges: ${k}`, String(n)]),
    ['unresolved references', String(s.unresolvedEdges)],
    ['index size', `${(s.dbBytes / 1024 / 1024).toFixed(1)} MB`],
    ['embeddings', s.embeddings ? `${s.embeddings.model}: ${s.embeddings.done}/${s.embeddings.total}` : 'no model'],
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}
