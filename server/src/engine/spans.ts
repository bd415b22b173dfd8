// How a span's rows read as lines. tree-sitter ends a node that takes in its trailing newline (a
// module, a body running to the end of the file) at column 0 of the row after it: that row is
// not one of its lines.
import type { Span } from './languages/types';

/** The span's last row (0-based) that holds any of its text. */
export function lastRow(span: Span): number {
  return span.end.column === 0 && span.end.row > span.start.row ? span.end.row - 1 : span.end.row;
}
