// The "Examine" step: an entity's source with line numbers and some context around it.
import type { Window } from '../../../protocol';
import { ErrorCodes } from '../../../protocol';
import type { EntityRow } from './api';
import { EngineError } from './errors';
import { lastRow } from './spans';

export const DEFAULT_CONTEXT = 3;
export const MAX_CONTEXT = 200;

export function sourceWindow(e: EntityRow, text: string, contextLines = DEFAULT_CONTEXT): Window {
  if (!Number.isInteger(contextLines) || contextLines < 0 || contextLines > MAX_CONTEXT) {
    throw new EngineError(ErrorCodes.InvalidParams, `contextLines must be an integer from 0 to ${MAX_CONTEXT}, got ${JSON.stringify(contextLines)}`);
  }
  if (!e.file || !e.span) throw new EngineError(ErrorCodes.InvalidParams, `${e.id} has no source (it is a ${e.kind}, not code)`);
  const lines = text.split(/\r\n|\r|\n/);
  // A file's last newline ends its last line; it does not start one more to show as context.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const entityStart = Math.min(e.span.start.row, lines.length - 1);
  const entityEnd = Math.min(lastRow(e.span), lines.length - 1);
  const start = Math.max(0, entityStart - contextLines);
  const end = Math.min(lines.length - 1, entityEnd + contextLines);
  const width = String(end + 1).length;
  const code = lines
    .slice(start, end + 1)
    .map((l, i) => `${String(start + i + 1).padStart(width)} | ${l}`)
    .join('\n');
  return { id: e.id, file: e.file, start: start + 1, end: end + 1, entityStart: entityStart + 1, entityEnd: entityEnd + 1, code };
}
