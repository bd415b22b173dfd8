// Examine in standard LSP: hovering a definition's name or a reference to one shows its
// signature, docstring, where it lives and how connected it is.
import { MarkupKind, type Hover } from 'vscode-languageserver/node';
import type { Position } from '../../../protocol';
import type { EntityRow } from '../engine';
import type { Engine } from '../engine';
import { callCounts, callCountsTitle } from './callHierarchy';
import { toRange } from './convert';
import { entityAtCursor } from './cursor';
import type { Workspaces } from './workspaces';
import { languageOf as languageForPath } from '../engine';

export function hover(workspaces: Workspaces, uri: string, pos: Position): Hover | null {
  const { ws, path } = workspaces.route(uri);
  // Only names: hovering whitespace inside a body should not pop up the enclosing function.
  const target = entityAtCursor(ws.engine, path, pos, { enclosing: false });
  if (!target) return null;
  const e = target.entity;
  return {
    contents: { kind: MarkupKind.Markdown, value: hoverMarkdown(ws.engine, e) },
    ...(target.via === 'name' && e.nameSpan ? { range: toRange(e.nameSpan) } : {}),
  };
}

export function hoverMarkdown(engine: Engine, e: EntityRow): string {
  const parts: string[] = [];
  const language = e.file ? languageTag(e.file) : '';
  parts.push('```' + language + '\n' + (e.signature || e.qname) + '\n```');
  if (e.docstring) parts.push(e.docstring.trim());
  const facts: string[] = [];
  if (e.kind === 'function' || e.kind === 'method' || e.kind === 'class') facts.push(callCountsTitle(callCounts(engine, e.id)));
  if (e.file) facts.push('`' + e.file + (e.span ? `:${e.span.start.row + 1}` : '') + '`');
  if (facts.length) parts.push(facts.join(' · '));
  return parts.join('\n\n---\n\n');
}

/** The fence tag of a code block: the id of the language the file is in. */
function languageTag(file: string): string {
  return languageForPath(file)?.id ?? '';
}
