// File discovery: which files of the workspace are indexed. Respects every .gitignore on the way
// down (compiled by gitignore.ts; each directory's patterns judge paths relative to that
// directory, the deepest matching file decides), user excludes, and directories nobody wants indexed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GitignoreFile } from './gitignore';

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

type RuleChain = ReadonlyArray<readonly [from: number, rules: GitignoreFile]>;
const NO_RULES: RuleChain = [];

/** Ignore rules of a workspace: built-ins, user excludes, and every .gitignore below the root. */
export class IgnoreRules {
  private readonly perDir = new Map<string, GitignoreFile | null>();
  /** Verdicts on directories, so a file costs one lookup per rule file, not one per ancestor. */
  private readonly dirVerdicts = new Map<string, boolean>();
  private readonly chains = new Map<string, RuleChain>();
  private readonly user: GitignoreFile;

  constructor(
    private readonly root: string,
    exclude: string[],
  ) {
    this.user = new GitignoreFile(exclude);
  }

  /** True when `rel` (a workspace-relative path) must not be indexed. */
  ignored(rel: string, isDir: boolean): boolean {
    if (rel === '' || rel === '.') return false;
    const slash = rel.lastIndexOf('/');
    // git: nothing inside an ignored directory can be re-included.
    if (slash > 0 && this.dirIgnored(rel.slice(0, slash))) return true;
    return this.ignoredItself(rel, isDir);
  }

  private dirIgnored(dir: string): boolean {
    let v = this.dirVerdicts.get(dir);
    if (v === undefined) {
      const slash = dir.lastIndexOf('/');
      v = (slash > 0 && this.dirIgnored(dir.slice(0, slash))) || this.ignoredItself(dir, true);
      this.dirVerdicts.set(dir, v);
    }
    return v;
  }

  /** The path's own verdict, its ancestors aside: the deepest .gitignore with a matching rule decides. */
  private ignoredItself(rel: string, isDir: boolean): boolean {
    if (isDir && ALWAYS_SKIPPED_DIRS.has(rel.slice(rel.lastIndexOf('/') + 1))) return true;
    if (this.user.size && this.user.verdict(rel, isDir) === true) return true;
    const slash = rel.lastIndexOf('/');
    for (const [from, rules] of this.chainOf(slash < 0 ? '' : rel.slice(0, slash))) {
      const verdict = rules.verdict(rel.slice(from), isDir);
      if (verdict !== undefined) return verdict;
    }
    return false;
  }

  /**
   * The .gitignore files that judge the entries of `dir`, deepest first, each with where the
   * path it judges starts (after its own folder). Made once per folder: a file then asks only
   * the folders that have rules (in site-packages: none of its 5,400), not every ancestor.
   */
  private chainOf(dir: string): RuleChain {
    let chain = this.chains.get(dir);
    if (chain === undefined) {
      const slash = dir.lastIndexOf('/');
      const up = dir === '' ? NO_RULES : this.chainOf(slash < 0 ? '' : dir.slice(0, slash));
      const own = this.rulesOf(dir);
      chain = own && own.size ? [[dir === '' ? 0 : dir.length + 1, own], ...up] : up;
      this.chains.set(dir, chain);
    }
    return chain;
  }

  private rulesOf(dir: string): GitignoreFile | null {
    let rules = this.perDir.get(dir);
    if (rules !== undefined) return rules;
    rules = null;
    const file = path.join(this.root, dir, '.gitignore');
    try {
      // Like git, a .gitignore that is a symbolic link is not followed (it could point outside the root).
      // (No throw for a missing one: most folders have none, and an exception each costs.)
      if (fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) rules = GitignoreFile.parse(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
    } catch {
      /* no .gitignore here */
    }
    this.perDir.set(dir, rules);
    return rules;
  }

  /**
   * What a walk read of `dir`: without a `.gitignore` entry it has no rules, known without a
   * stat (one per folder: 5,400 in site-packages). One it has is read when first asked for.
   */
  listed(dir: string, hasGitignore: boolean): void {
    if (!hasGitignore && !this.perDir.has(dir)) this.perDir.set(dir, null);
  }

  /** Forget cached .gitignore contents and verdicts (after one changed). */
  reset(): void {
    this.perDir.clear();
    this.dirVerdicts.clear();
    this.chains.clear();
  }
}

/** Walks the workspace. Never follows links out of the root; never throws for one bad entry. */
export function discover(root: string, opts: DiscoveryOptions, rules = new IgnoreRules(root, opts.exclude)): Discovery {
  const files: DiscoveredFile[] = [];
  const skipped: SkippedFile[] = [];
  const realRoot = fs.realpathSync(root);
  // Paths under the root by concatenation: path.join normalises each one (~1 µs a file).
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const stack: string[] = [''];
  while (stack.length) {
    const dir = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir ? prefix + dir : root, { withFileTypes: true });
    } catch (e) {
      skipped.push({ file: dir || '.', reason: `unreadable directory (${(e as NodeJS.ErrnoException).code ?? 'error'})` });
      continue;
    }
    let venv = false;
    let gitignore = false;
    for (const e of entries) {
      if (e.name === 'pyvenv.cfg') venv = true;
      else if (e.name === '.gitignore') gitignore = true;
    }
    if (dir && venv) continue; // a virtualenv
    rules.listed(dir, gitignore);
    for (const ent of entries) {
      const rel = dir ? `${dir}/${ent.name}` : ent.name;
      let isDir = ent.isDirectory();
      let isFile = ent.isFile();
      if (ent.isSymbolicLink()) {
        const target = resolveLink(prefix + rel, realRoot);
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
        st = fs.statSync(prefix + rel);
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
