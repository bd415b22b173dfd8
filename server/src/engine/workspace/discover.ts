// File discovery: which files of the workspace are indexed. Respects every .gitignore on the way
// down (the `ignore` package implements git's matching rules; we only feed it each directory's
// patterns relative to that directory), user excludes, and directories nobody wants indexed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Directory names that are never indexed, whatever .gitignore says. */
const ALWAYS_SKIPPED_DIRS = new Set([
  '.git', '.hg', '.svn', 'node_modules', '__pycache__', '.nsccn', '.venv', 'venv', '.tox', '.nox',
  '.mypy_cache', '.pytest_cache', '.ruff_cache', '.eggs', '.idea', '.vscode',
]);

export interface DiscoveredFile {
  path: string; // workspace-relative, '/'-separated
  size: number;
  mtimeMs: number;
}

export interface SkippedFile {
  file: string;
  reason: string;
}

export interface Discovery {
  files: DiscoveredFile[];
  skipped: SkippedFile[];
}

export interface DiscoveryOptions {
  extensions: ReadonlySet<string>;
  exclude: string[];
  maxFileBytes: number;
}

/** Ignore rules of a workspace: built-ins, user excludes, and every .gitignore below the root. */
export class IgnoreRules {
  private readonly perDir = new Map<string, Ignore | null>();
  private readonly user: Ignore;

  constructor(
    private readonly root: string,
    exclude: string[],
  ) {
    this.user = ignore().add(exclude);
  }

  /** True when `rel` (a workspace-relative path) must not be indexed. */
  ignored(rel: string, isDir: boolean): boolean {
    if (rel === '' || rel === '.') return false;
    const parts = rel.split('/');
    for (const p of parts.slice(0, isDir ? parts.length : parts.length - 1)) if (ALWAYS_SKIPPED_DIRS.has(p)) return true;
    const probe = isDir ? rel + '/' : rel;
    if (this.user.ignores(probe)) return true;
    // Each ancestor's .gitignore judges the path relative to that ancestor.
    for (let i = 0; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      const ig = this.rulesOf(dir);
      if (ig && ig.ignores(parts.slice(i).join('/') + (isDir ? '/' : ''))) return true;
    }
    return false;
  }

  private rulesOf(dir: string): Ignore | null {
    let ig = this.perDir.get(dir);
    if (ig !== undefined) return ig;
    ig = null;
    try {
      const text = fs.readFileSync(path.join(this.root, dir, '.gitignore'), 'utf8');
      ig = ignore().add(text);
    } catch {
      /* no .gitignore here */
    }
    this.perDir.set(dir, ig);
    return ig;
  }

  /** Forget cached .gitignore contents (after one changed). */
  reset(): void {
    this.perDir.clear();
  }
}

/** Walks the workspace. Never follows links out of the root; never throws for one bad entry. */
export function discover(root: string, opts: DiscoveryOptions, rules = new IgnoreRules(root, opts.exclude)): Discovery {
  const files: DiscoveredFile[] = [];
  const skipped: SkippedFile[] = [];
  const realRoot = fs.realpathSync(root);
  const stack: string[] = [''];
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch (e) {
      skipped.push({ file: dir || '.', reason: `unreadable directory (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
      continue;
    }
    if (dir && entries.some((e) => e.name === 'pyvenv.cfg')) continue; // a virtualenv
    for (const ent of entries) {
      const rel = dir ? `${dir}/${ent.name}` : ent.name;
      let isDir = ent.isDirectory();
      let isFile = ent.isFile();
      if (ent.isSymbolicLink()) {
        const target = resolveLink(path.join(root, rel), realRoot);
        if (!target) {
          if (hasExtension(ent.name, opts.extensions)) skipped.push({ file: rel, reason: 'symbolic link pointing outside the workspace' });
          continue;
        }
        isDir = target.isDirectory();
        isFile = target.isFile();
        if (isDir) continue; // linked directories inside the root are reached through their real path
      }
      if (isDir) {
        if (!rules.ignored(rel, true)) stack.push(rel);
        continue;
      }
      if (!isFile || !hasExtension(ent.name, opts.extensions) || rules.ignored(rel, false)) continue;
      let st: fs.Stats;
      try {
        st = fs.statSync(path.join(root, rel));
      } catch (e) {
        skipped.push({ file: rel, reason: `unreadable (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
        continue;
      }
      if (st.size > opts.maxFileBytes) {
        skipped.push({ file: rel, reason: `larger than ${opts.maxFileBytes} bytes (${st.size})` });
        continue;
      }
      files.push({ path: rel, size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, skipped };
}

function resolveLink(abs: string, realRoot: string): fs.Stats | null {
  try {
    const real = fs.realpathSync(abs);
    if (real !== realRoot && !real.startsWith(realRoot + path.sep)) return null;
    return fs.statSync(real);
  } catch {
    return null;
  }
}

function hasExtension(name: string, exts: ReadonlySet<string>): boolean {
  const dot = name.lastIndexOf('.');
  return dot > 0 && exts.has(name.slice(dot));
}
