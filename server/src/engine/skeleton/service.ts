// Skeletons on demand, cached in the index and keyed by the hash of the text they came from,
// so an edit (on disk or in a buffer) can never serve a stale one.
import { createHash } from 'node:crypto';
import type { Tree } from 'web-tree-sitter';
import type { EntityKind, Skeleton } from '../../../../protocol';
import type { LanguageSupport } from '../languages/types';
import type { Parsers } from '../parse/parsers';
import type { Store } from '../store/store';
import { composeSkeleton } from './compose';

export function skeletonOf(store: Store, parsers: Parsers, lang: LanguageSupport, file: string, text: string, tree?: Tree): Skeleton {
  const hash = createHash('sha256').update(text).digest('hex');
  const cached = store.skeleton(file);
  if (cached && cached.hash === hash) return JSON.parse(cached.json) as Skeleton;
  const own = tree ? null : parsers.parse(lang, text);
  try {
    const t = tree ?? own!;
    const ex = lang.extract(t, text, file, parsers.get(lang).grammar);
    const part = lang.skeleton(t, text, file, ex);
    const sk = composeSkeleton(file, text, part, ex.entities.map((e) => ({ id: e.id, kind: e.kind as EntityKind, name: e.name, span: e.span })));
    // Cache only what matches the indexed version of the file.
    if (store.file(file)?.hash === hash) store.putSkeleton(file, hash, JSON.stringify(sk));
    return sk;
  } finally {
    own?.delete();
  }
}
