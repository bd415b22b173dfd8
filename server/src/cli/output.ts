// Human-readable renderings of the protocol shapes for the terminal (--json prints them as is).
import type { ChangesResponse, IndexSummary, SearchResponse, Skeleton, StatsResponse, TraceResult, Truncation, Window } from '../../../protocol';

export function formatSummary(s: IndexSummary): string {
  const parts = [`${s.parsed} parsed`, `${s.unchanged} unchanged`, `${s.deleted} deleted`, `${s.skipped.length} skipped`];
  const head = `indexed ${s.files} files (${parts.join(', ')}): ${s.entities} entities, ${s.edges} edges in ${s.seconds.toFixed(2)} s`;
  // Files that failed (not merely too large or ignored) are named, with why.
  const failed = s.skipped.filter((x) => !/^larger than |^symbolic link /.test(x.reason));
  const shown = failed.slice(0, 10).map((x) => `  skipped ${x.file}: ${x.reason}`);
  if (failed.length > shown.length) shown.push(`  ... and ${failed.length - shown.length} more (--json lists them)`);
  return [head, ...shown].join('\n');
}

/** The line that says what a token budget dropped (empty when nothing was). */
function truncatedLine(t: Truncation | undefined): string[] {
  return t ? [`[truncated: ${t.note}]`] : [];
}

/** The line that says a long query was read in part (empty when it was read whole). */
export function queryCutLine(r: SearchResponse): string[] {
  return r.queryCut ? [`[the query is ${r.queryCut.length.toLocaleString('en')} characters: its first and last ${(r.queryCut.read / 2).toLocaleString('en')} were read]`] : [];
}

export function formatSearch(r: SearchResponse): string {
  const incomplete = [...(r.incomplete?.length ? [`[incomplete streams: ${r.incomplete.join(', ')}; ranks may change once they are filled]`] : []), ...queryCutLine(r)];
  if (!r.results.length) return [`no results (streams: ${r.streams.join(', ')})`, ...incomplete, ...truncatedLine(r.truncated)].join('\n');
  const w = Math.max(...r.results.map((x) => x.id.length));
  return [...r.results.map((x) => `${x.score.toFixed(4)}  ${x.id.padEnd(w)}  ${x.file}:${x.line}  ${x.signature}`), ...incomplete, ...truncatedLine(r.truncated)].join('\n');
}

export function formatSkeleton(s: Skeleton): string {
  return [s.text.trimEnd(), ...truncatedLine(s.truncated)].join('\n');
}

export function formatWindow(w: Window): string {
  return [`${w.file}:${w.start}-${w.end}`, w.code, ...truncatedLine(w.truncated)].join('\n');
}

/** How many distinct unresolved names the summary line names before "…". */
const UNRESOLVED_NAMED = 6;

export function formatSearchFiles(r: SearchResponse): string {
  const files = r.files ?? [];
  if (!files.length) return `no results (streams: ${r.streams.join(', ')})`;
  const w = Math.max(...files.map((f) => f.file.length));
  return files.map((f) => `${f.score.toFixed(4)}  ${f.file.padEnd(w)}  ${f.hits.length} hit${f.hits.length === 1 ? '' : 's'}: ${f.hits.slice(0, 3).map((id) => id.slice(id.lastIndexOf(':') + 1)).join(', ')}`).join('\n');
}

/**
 * A trace as an indented tree. Unresolved names (builtins, libraries) stay in the data but are
 * one summary line here unless `unresolved` is set: they are most of a deep trace's lines and
 * rarely what the reader is after.
 */
export function formatTrace(t: TraceResult, opts: { unresolved?: boolean } = {}): string {
  if (t.paths) return formatPaths(t);
  const lines: string[] = [];
  const hidden = new Map<string, number>();
  const sig = (id: string) => t.entities[id]?.signature ?? '';
  lines.push(`${t.root}  ${sig(t.root)}`);
  const seen = new Set<string>([t.root]);
  const walk = (id: string, indent: string) => {
    for (const e of t.adjacency[id] ?? []) {
      if (!e.resolved && !opts.unresolved) {
        hidden.set(e.target, (hidden.get(e.target) ?? 0) + 1);
        continue;
      }
      const flags = [e.resolved ? '' : 'unresolved', e.ambiguous ? 'ambiguous' : '', e.caught ? 'caught' : '', e.dispatch ? 'may call: override' : ''].filter(Boolean).join(', ');
      const at = e.line ? ` (line ${e.line})` : '';
      lines.push(`${indent}${e.incoming ? '←' : '→'} ${e.relation} ${e.incoming ? 'from' : 'to'} ${e.target}${at}${flags ? ` [${flags}]` : ''}`);
      if (e.resolved && !seen.has(e.target) && t.adjacency[e.target]) {
        seen.add(e.target);
        walk(e.target, indent + '  ');
      }
    }
  };
  walk(t.root, '  ');
  if (hidden.size) {
    const total = [...hidden.values()].reduce((a, b) => a + b, 0);
    const names = [...hidden.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([n]) => n);
    const shown = names.slice(0, UNRESOLVED_NAMED).join(', ') + (names.length > UNRESOLVED_NAMED ? ', …' : '');
    lines.push(`  + ${total} unresolved (${shown}); --unresolved lists them`);
  }
  if (t.escaping) lines.push(`can escape: ${t.escaping.length ? t.escaping.join(', ') : 'nothing'}`);
  lines.push(...truncatedLine(t.truncated));
  return lines.join('\n');
}

/** `trace A --to B`: each path as its hops, with the site's file:line and code. */
function formatPaths(t: TraceResult): string {
  const paths = t.paths ?? [];
  const lines = [`${t.root} → ${t.to}: ${paths.length ? `${paths.length} path${paths.length === 1 ? '' : 's'}` : `no path within ${t.depth} hops`}`];
  paths.forEach((p, i) => {
    lines.push(`path ${i + 1} (${p.hops.length} hop${p.hops.length === 1 ? '' : 's'})`);
    lines.push(`  ${t.root}`);
    for (const h of p.hops) {
      const file = t.entities[h.from]?.file;
      const at = file ? `${file}:${h.line}` : `line ${h.line}`;
      const flags = [h.ambiguous && 'ambiguous', h.dispatch && 'may call: override'].filter(Boolean).join(', ');
      lines.push(`  → ${h.relation} ${h.to}${flags ? ` [${flags}]` : ''}`);
      lines.push(`      ${at}${h.code ? `  ${h.code}` : ''}`);
    }
  });
  lines.push(...truncatedLine(t.truncated));
  return lines.join('\n');
}

/** `nsccn changes`: each touched entity with its blast radius, files renamed or deleted first. */
export function formatChanges(r: ChangesResponse): string {
  const lines = [`changes ${r.base}: ${r.files.length} file${r.files.length === 1 ? '' : 's'}, ${r.entities.length} entit${r.entities.length === 1 ? 'y' : 'ies'}`];
  for (const f of r.files) if (f.status !== 'modified') lines.push(`${f.status.padEnd(9)} ${f.oldFile ? `${f.oldFile} → ` : ''}${f.file}`);
  const list = (label: string, ids: string[]) => {
    if (ids.length) lines.push(`    ${label}: ${ids.join(', ')}`);
  };
  for (const e of r.entities) {
    const span = e.lines.length > 1 ? `lines ${e.lines[0]}-${e.lines[e.lines.length - 1]}` : e.lines.length ? `line ${e.lines[0]}` : 'lines removed';
    lines.push(`${e.change.padEnd(9)} ${e.id}  ${e.file}:${e.line}  (${e.change === 'deleted' ? 'old ' : ''}${span})`);
    list(e.change === 'deleted' ? 'still named by' : 'callers', e.callers);
    list('mutates', e.mutates);
    list('reads config', e.readsConfig);
    list('tests', e.tests);
  }
  lines.push(...truncatedLine(r.truncated));
  return lines.join('\n');
}

export function formatStats(s: StatsResponse): string {
  const rows: Array<[string, string]> = [
    ['root', s.root],
    ['files', String(s.files)],
    ...Object.entries(s.entities).sort().map(([k, n]): [string, string] => [`entities: ${k}`, String(n)]),
    ...Object.entries(s.edges).sort().map(([k, n]): [string, string] => [`edges: ${k}`, String(n)]),
    ['edges: CALLS, dispatch (may call)', String(s.dispatchEdges)],
    ['unresolved references', String(s.unresolvedEdges)],
    ['index size', `${(s.dbBytes / 1024 / 1024).toFixed(1)} MB`],
    ['embeddings', s.embeddings ? `${s.embeddings.model}: ${s.embeddings.done}/${s.embeddings.total}` : 'no model'],
    ...(s.streamProgress ?? []).map((p): [string, string] => [`stream ${p.stream}`, `${p.done}/${p.total}${p.complete ? ' (complete)' : ' (filling)'}`]),
  ];
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}
