// Files refused for their content (binary, not decodable, extraction failed) are not in the
// index, so without a record every freshness check would see them as new and start an index run
// — one per query, each loading grammars to refuse the same bytes again. They are remembered
// with the size and mtime they were refused at (in `meta`), and tried again when either changes.
import type { SkippedFile } from './discover';
import type { Store } from '../store/store';

const KEY = 'content_skips';

export interface ContentSkip {
  size: number;
  mtimeMs: number;
  reason: string;
}

export type ContentSkips = Map<string, ContentSkip>;

export function readContentSkips(store: Store): ContentSkips {
  const raw = store.meta(KEY);
  if (!raw) return new Map();
  try {
    return new Map(Object.entries(JSON.parse(raw) as Record<string, ContentSkip>));
  } catch {
    return new Map(); // unreadable: every such file is simply tried again
  }
}

export function writeContentSkips(store: Store, skips: ContentSkips): void {
  store.setMeta(KEY, skips.size ? JSON.stringify(Object.fromEntries(skips)) : null);
}

/** The remembered refusal of a file found with this size and mtime, if it still holds. */
export function stillRefused(skips: ContentSkips, f: { path: string; size: number; mtimeMs: number }): SkippedFile | null {
  const s = skips.get(f.path);
  return s && s.size === f.size && s.mtimeMs === f.mtimeMs ? { file: f.path, reason: s.reason } : null;
}
