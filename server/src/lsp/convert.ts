// Engine rows ↔ LSP types. Engine spans and LSP ranges share their units (0-based rows, UTF-16
// columns), so conversion is a rename; what needs care is the containment LSP demands
// (selectionRange inside range) and turning workspace-relative files into URIs.
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as path from 'node:path';
import {
  SymbolKind,
  type CallHierarchyItem,
  type DocumentSymbol,
  type Location,
  type Range,
} from 'vscode-languageserver/node';
import { ErrorCodes, type EntityKind } from '../../../protocol';
import type { EntityRow } from '../engine';
import { EngineError } from '../engine';
import type { Span } from '../engine';

export function toRange(span: Span): Range {
  return {
    start: { line: span.start.row, character: span.start.column },
    end: { line: span.end.row, character: span.end.column },
  };
}

export function comparePositions(a: Range['start'], b: Range['start']): number {
  return a.line - b.line || a.character - b.character;
}

export function rangeContains(outer: Range, inner: Range): boolean {
  return comparePositions(outer.start, inner.start) <= 0 && comparePositions(inner.end, outer.end) <= 0;
}

export function containsPosition(range: Range, pos: Range['start']): boolean {
  return comparePositions(range.start, pos) <= 0 && comparePositions(pos, range.end) <= 0;
}

const SYMBOL_KINDS: Record<EntityKind, SymbolKind> = {
  module: SymbolKind.Module,
  class: SymbolKind.Class,
  function: SymbolKind.Function,
  method: SymbolKind.Method,
  interface: SymbolKind.Interface,
  type: SymbolKind.TypeParameter,
  enum: SymbolKind.Enum,
  namespace: SymbolKind.Namespace,
  attr: SymbolKind.Field,
  global: SymbolKind.Variable,
  config: SymbolKind.Constant,
  file: SymbolKind.File,
};

export function symbolKind(kind: EntityKind): SymbolKind {
  return SYMBOL_KINDS[kind];
}

/** Absolute path of a `file:` URI; other schemes (untitled:, git:) are not workspace files. */
export function uriToPath(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new EngineError(ErrorCodes.InvalidParams, `not a valid URI: ${JSON.stringify(uri)}`);
  }
  if (url.protocol !== 'file:') {
    throw new EngineError(ErrorCodes.OutsideWorkspace, `only file: URIs belong to a workspace (got ${uri})`);
  }
  try {
    return path.resolve(fileURLToPath(url));
  } catch (e) {
    throw new EngineError(ErrorCodes.InvalidParams, `not a valid file URI: ${uri} (${(e as Error).message})`);
  }
}

export function pathToUri(absPath: string): string {
  return pathToFileURL(absPath).href;
}

/** Entity range and a selection range guaranteed to lie inside it (LSP clients reject others). */
export function entityRanges(e: EntityRow): { range: Range; selectionRange: Range } | null {
  if (!e.span) return null;
  const range = toRange(e.span);
  const name = e.nameSpan ? toRange(e.nameSpan) : null;
  const selectionRange = name && rangeContains(range, name) ? name : { start: range.start, end: range.start };
  return { range, selectionRange };
}

export interface ItemData {
  id: string;
}

/** A call hierarchy item; `data.id` lets incoming/outgoing skip the position lookup. */
export function toCallHierarchyItem(e: EntityRow, uri: string): CallHierarchyItem | null {
  const ranges = entityRanges(e);
  if (!ranges) return null;
  const data: ItemData = { id: e.id };
  return { name: e.name, kind: symbolKind(e.kind), detail: e.signature, uri, ...ranges, data };
}

export function toDocumentSymbol(e: EntityRow): DocumentSymbol | null {
  const ranges = entityRanges(e);
  if (!ranges) return null;
  return { name: e.name, kind: symbolKind(e.kind), detail: e.signature, ...ranges, children: [] };
}

/** Location of an entity's name (where "go to" should put the cursor). */
export function entityLocation(e: EntityRow, uri: string): Location | null {
  const ranges = entityRanges(e);
  return ranges ? { uri, range: ranges.selectionRange } : null;
}

/** `User.save` → `User`; top-level names have no container inside the file. */
export function containerOf(qname: string): string | undefined {
  const dot = qname.lastIndexOf('.');
  return dot > 0 ? qname.slice(0, dot) : undefined;
}
