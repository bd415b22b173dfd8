// Text bookkeeping an editor does for LSP: offsets ↔ positions with LSP line semantics (`\r\n`,
// `\n` and `\r` end a line; characters are UTF-16 code units) and incremental content changes
// built from string splices, so tests can edit a buffer the way VS Code does.
import { mulberry32 } from '../../server/eval/random';

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** A hierarchical document symbol as the server returns it. */
export interface DocSymbol {
  name: string;
  kind: number;
  range: LspRange;
  selectionRange: LspRange;
  children?: DocSymbol[];
}

/** A call hierarchy item as the server returns it (its entity id in `data`). */
export interface CallItem {
  name: string;
  uri: string;
  range: LspRange;
  selectionRange: LspRange;
  data: { id: string };
}

export interface Splice {
  /** Offset (UTF-16) in the text before this splice. */
  start: number;
  deleteCount: number;
  insert: string;
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (ch === 10) starts.push(i + 1);
  }
  return starts;
}

export function positionAt(text: string, offset: number): LspPosition {
  const starts = lineStarts(text);
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: offset - starts[lo] };
}

export function applySplice(text: string, s: Splice): string {
  return text.slice(0, s.start) + s.insert + text.slice(s.start + s.deleteCount);
}

/** The LSP content change of a splice, positions computed on the text before it. */
export function toContentChange(text: string, s: Splice): { range: LspRange; text: string } {
  return {
    range: { start: positionAt(text, s.start), end: positionAt(text, s.start + s.deleteCount) },
    text: s.insert,
  };
}

/** The splice that undoes `s` (to be applied to the text `s` produced). */
export function inverse(before: string, s: Splice): Splice {
  return { start: s.start, deleteCount: s.insert.length, insert: before.slice(s.start, s.start + s.deleteCount) };
}

/** Moves an offset off the middle of a `\r\n` pair or a surrogate pair (no editor puts one there). */
export function snap(text: string, offset: number): number {
  if (offset <= 0 || offset >= text.length) return Math.max(0, Math.min(offset, text.length));
  const prev = text.charCodeAt(offset - 1);
  const next = text.charCodeAt(offset);
  if (prev === 13 && next === 10) return offset + 1;
  if (prev >= 0xd800 && prev <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) return offset + 1;
  return offset;
}

/** A small deterministic PRNG (mulberry32): failures reproduce from the seed. */
export function prng(seed: number): { next: () => number; int: (n: number) => number; pick: <T>(xs: readonly T[]) => T } {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)] };
}
