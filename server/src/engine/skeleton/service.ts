// Skeletons on demand, cached in the index and keyed by the hash of the text they came from,
// so an edit (on disk or in a buffer) can never serve a stale one.
import { nodeCrypto } from '../digest';
import type { Tree } from 'web-tree-sitter';
import { DEFAULT_DOCS_LEVEL, type DocsLevel, type EntityKind, type Skeleton } from '../../../../protocol';
import type { LanguageSupport } from '../languages/types';
import type { Parsers } from '../parse/parsers';
import type { Store } from '../store/store';
import { composeSkeleton } from './compose';

/**
 * Bump when any language's skeleton text changes: a skeleton cached by an older NSCCN for a file
 * that has not changed since is then made again, not served as it was.
 */
export const SKELETON_FORMAT = 5; // 2: `X as X` imports shown as `X`; 3: no `__future__` imports; 4: a TypeScript/JavaScript file's opening comment; 5: JavaScript functions assigned to members (`app.init = function init() {…}`)

/** The cache holds the default docs level only; other levels are made on demand. */
export function skeletonOf(store: Store, parsers: Parsers, lang: LanguageSupport, file: string, text: string, tree?: Tree, docs: DocsLevel = DEFAULT_DOCS_LEVEL): Skeleton {
  const hash = nodeCrypto().createHash('sha256').update(text).digest('hex');
  // The cache row's key: the text's hash and the format that rendered it.
  const key = `${hash}#${SKELETON_FORMAT}`;
  const cached = docs === DEFAULT_DOCS_LEVEL ? store.skeleton(file) : undefined;
  if (cached && cached.hash === key) {
    const sk = JSON.parse(cached.json) as Skeleton;
    if (sk.docs === docs) return sk;
  }
  const own = tree ? null : parsers.parse(lang, text);
  try {
    const t = tree ?? own!;
    const ex = lang.extract(t, text, file, parsers.get(lang).grammar);
    const part = lang.skeleton(t, text, file, ex, { docs });
    const sk = composeSkeleton(file, text, part, ex.entities.map((e) => ({ id: e.id, kind: e.kind as EntityKind, name: e.name, span: e.span })));
    sk.docs = docs;
    // Cache only what matches the indexed version of the file.
    if (docs === DEFAULT_DOCS_LEVEL && store.file(file)?.hash === hash) store.putSkeleton(file, key, JSON.stringify(sk));
    return sk;
  } finally {
    own?.delete();
  }
}
