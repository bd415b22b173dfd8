// Realpath confinement, checked at the moment a workspace file is read: a path from the index
// (which may have been tampered with) or a file that became a symlink since it was indexed must
// never make NSCCN read outside the workspace root.
import * as fs from 'node:fs';
import * as path from 'node:path';

export type Confined = { ok: true; real: string } | { ok: false; reason: string; deleted: boolean };

/** True when `rel` (path.relative output) leaves its base: `..` as a whole first segment. */
export function escapes(rel: string): boolean {
  return rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel);
}

/**
 * The real path of the workspace-relative `/` path `rel` when it is a file inside `realRoot`
 * now. `reason` says why not; `deleted` is true when the file is gone or links outside (the
 * index should forget it either way).
 */
export function confine(root: string, realRoot: string, rel: string): Confined {
  if (typeof rel !== 'string' || !rel || rel.includes('\0') || path.isAbsolute(rel) || rel.split(/[\\/]/).some((s) => s === '..')) {
    return { ok: false, reason: `${JSON.stringify(rel)} is not a path inside the workspace`, deleted: false };
  }
  let real: string;
  try {
    real = fs.realpathSync(path.join(root, rel));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'deleted' : `unreadable (${code ?? 'error'})`, deleted: code === 'ENOENT' };
  }
  const inside = path.relative(realRoot, real);
  if (!inside || escapes(inside)) return { ok: false, reason: 'links outside the workspace', deleted: true };
  return { ok: true, real };
}
