// Turns a language's skeleton part into the protocol's `Skeleton`: token counts of the source
// and of the skeleton, and each entity with its 1-based line in both. Language-neutral.
import type { Skeleton, SkeletonEntity } from '../../../../protocol';
import type { EntityRow } from '../api';
import type { SkeletonPart, Span } from '../languages/types';
import { countTokens } from './tokens';

/** What a skeleton needs of a file's entity row: who it is and where its definition starts. */
export type ComposeEntity = Pick<EntityRow, 'id' | 'kind' | 'name'> & { span: Span };

export function composeSkeleton(file: string, source: string, part: SkeletonPart, entities: ComposeEntity[]): Skeleton {
  const byId = new Map(entities.map((e) => [e.id, e]));
  const shown: SkeletonEntity[] = [];
  for (const { id, skeletonRow } of part.entities) {
    // An entity the part knows but the caller does not (stale cache, renamed file) has no
    // source line to point at: leave it out rather than invent one.
    const e = byId.get(id);
    if (!e) continue;
    shown.push({ id, kind: e.kind, name: e.name, skeletonLine: skeletonRow + 1, sourceLine: e.span.start.row + 1 });
  }
  shown.sort((a, b) => a.skeletonLine - b.skeletonLine || a.sourceLine - b.sourceLine);
  return {
    file,
    text: part.text,
    originalTokens: countTokens(source),
    skeletonTokens: countTokens(part.text),
    entities: shown,
  };
}
