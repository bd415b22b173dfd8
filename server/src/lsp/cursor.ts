// Which entity a cursor designates. On a definition's name: that entity. On a reference (a call,
// an imported name, a base class): what the graph resolves it to. Elsewhere, for requests that
// are about "where I am" (call hierarchy, trace, window, references), the innermost entity
// around the cursor.
import type { Position } from '../../../protocol';
import type { EntityRow } from '../engine';
import type { Engine } from '../engine';
import { containsPosition, toRange } from './convert';

export interface CursorOptions {
  /** Fall back to the innermost enclosing entity when the cursor is on no name. */
  enclosing: boolean;
  /** Only these kinds count as what the cursor designates (others fall through). */
  accept?: (e: EntityRow) => boolean;
}

export interface CursorTarget {
  entity: EntityRow;
  /** How it was found: the name under the cursor or the enclosing entity. */
  via: 'name' | 'reference' | 'enclosing';
}

export function entityAtCursor(engine: Engine, path: string, pos: Position, opts: CursorOptions): CursorTarget | null {
  const accept = opts.accept ?? (() => true);
  const inner = engine.entityAt(path, pos);
  if (inner?.nameSpan && containsPosition(toRange(inner.nameSpan), pos) && accept(inner)) {
    return { entity: inner, via: 'name' };
  }
  const defs = engine.definitionAt(path, pos).filter(accept);
  if (defs.length > 0) return { entity: defs[0], via: 'reference' };
  if (opts.enclosing && inner && accept(inner)) return { entity: inner, via: 'enclosing' };
  return null;
}
