// Bare specifiers that name workspace files: tsconfig/jsconfig `paths` and `baseUrl`, the
// packages of the workspace (package.json `workspaces`, their `exports`/`main`) and the root
// package by its own name (its tests import it so). What cannot be mapped to a workspace file
// stays as written (an external package).
import type { ProjectFiles } from '../types';

const CODE_EXT = /(\.d)?\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SOURCE_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.d.ts', '.js', '.jsx', '.mjs', '.cjs'];
const CONDITIONS = ['source', 'types', 'import', 'module', 'default', 'require', 'node'];

interface TsConfig {
  /** Directory the paths are relative to (baseUrl, else the tsconfig's own directory). */
  base: string;
  hasBaseUrl: boolean;
  paths: Array<{ prefix: string; suffix: string; wildcard: boolean; targets: string[] }>;
}

interface Pkg {
  dir: string;
  exports: unknown;
  main: string | undefined;
}

export class ProjectResolver {
  private readonly configs = new Map<string, TsConfig | null>();
  private packages: Map<string, Pkg> | null = null;
  private readonly results = new Map<string, string>();
  /** Per question (config base and specifier), the paths whose presence decided its answer. */
  private readonly looked = new Map<string, string[]>();
  /** Per path looked for (without extension), the files whose imports asked: see `importersDecidedBy`. */
  private readonly askers = new Map<string, Set<string>>();
  /** The paths the question being answered looks for. */
  private looking: string[] | null = null;

  constructor(private readonly files: ProjectFiles) {}

  /** The workspace path (without extension) a bare specifier names, or null. */
  resolve(spec: string, fromFile: string): string | null {
    const config = this.configFor(dirOf(fromFile));
    const key = `${config?.base ?? ''}\0${spec}`;
    const hit = this.results.get(key);
    if (hit === undefined || !this.looked.has(key)) {
      this.looking = [];
      const found = (config && this.throughPaths(config, spec)) ?? this.throughPackages(spec);
      this.looked.set(key, this.looking);
      this.looking = null;
      // Only hits are kept: a file created later must be found the next time it is asked for.
      if (found) this.results.set(key, found);
    }
    for (const p of this.looked.get(key)!) {
      const l = this.askers.get(p);
      if (l) l.add(fromFile);
      else this.askers.set(p, new Set([fromFile]));
    }
    return this.results.get(key) ?? null;
  }

  /**
   * The files whose bare imports were answered by whether one of `paths` (workspace files)
   * exists: when one appears or goes, they name another module now. The answers go too.
   */
  importersDecidedBy(paths: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const p of paths) for (const f of this.askers.get(p.replace(CODE_EXT, '')) ?? []) out.add(f);
    if (out.size) {
      this.results.clear();
      this.looked.clear();
    }
    return out;
  }

  private throughPaths(c: TsConfig, spec: string): string | null {
    let best: TsConfig['paths'][number] | undefined;
    for (const p of c.paths) {
      const ok = p.wildcard ? spec.startsWith(p.prefix) && spec.endsWith(p.suffix) && spec.length >= p.prefix.length + p.suffix.length : spec === p.prefix;
      if (ok && (!best || p.prefix.length > best.prefix.length)) best = p;
    }
    if (best) {
      const star = best.wildcard ? spec.slice(best.prefix.length, spec.length - best.suffix.length) : '';
      for (const t of best.targets) {
        const f = this.existing(join(c.base, t.replace('*', star)));
        if (f) return f;
      }
    }
    return c.hasBaseUrl ? this.existing(join(c.base, spec)) : null;
  }

  private throughPackages(spec: string): string | null {
    const pkgs = this.workspacePackages();
    const parts = spec.split('/');
    const nameLen = spec.startsWith('@') ? 2 : 1;
    const pkg = pkgs.get(parts.slice(0, nameLen).join('/'));
    if (!pkg) return null;
    const sub = parts.slice(nameLen).join('/');
    const target = exportTarget(pkg.exports, sub ? `./${sub}` : '.') ?? (sub ? `./${sub}` : pkg.main ?? './index');
    const path = join(pkg.dir, target);
    // A workspace package built to dist/ or lib/ is indexed as its sources.
    return this.existing(path) ?? this.existing(path.replace(/(^|\/)(dist|lib|build|out)\//, '$1src/').replace(/\.d\.ts$|\.js$/, ''));
  }

  /** `path` as a module name when some source file (or index file) is there. */
  private existing(path: string): string | null {
    const bare = path.replace(CODE_EXT, '');
    for (const cand of [bare, `${bare}/index`]) {
      this.looking?.push(cand);
      const dir = dirOf(cand);
      const names = this.listing(dir);
      const base = cand.slice(dir ? dir.length + 1 : 0);
      if (SOURCE_EXTS.some((e) => names.has(base + e))) return cand.replace(/(^|\/)index$/, '') || 'index';
    }
    return null;
  }

  private listing(dir: string): Set<string> {
    return new Set(this.files.list(dir));
  }

  /** The nearest tsconfig.json / jsconfig.json at or above `dir`, with `extends` followed once. */
  private configFor(dir: string): TsConfig | null {
    const cached = this.configs.get(dir);
    if (cached !== undefined) return cached;
    let found: TsConfig | null = null;
    for (const name of ['tsconfig.json', 'jsconfig.json']) {
      const file = dir ? `${dir}/${name}` : name;
      const opts = this.compilerOptions(file, 0);
      if (opts) {
        found = toConfig(opts.dir, opts.options);
        break;
      }
    }
    if (!found && dir) found = this.configFor(dirOf(dir));
    this.configs.set(dir, found);
    return found;
  }

  private compilerOptions(file: string, depth: number): { dir: string; options: Record<string, unknown> } | null {
    const json = parseJsonc(this.files.read(file));
    if (!json) return null;
    const dir = dirOf(file);
    let options = (json.compilerOptions ?? {}) as Record<string, unknown>;
    let optionsDir = dir;
    if (typeof json.extends === 'string' && json.extends.startsWith('.') && depth < 3) {
      const parentFile = join(dir, json.extends.endsWith('.json') ? json.extends : `${json.extends}.json`);
      const parent = this.compilerOptions(parentFile, depth + 1);
      if (parent) {
        // paths/baseUrl from the parent stay relative to the parent unless redefined here.
        if (!('paths' in options) && !('baseUrl' in options)) optionsDir = parent.dir;
        options = { ...parent.options, ...options };
      }
    }
    return { dir: optionsDir, options };
  }

  private workspacePackages(): Map<string, Pkg> {
    if (this.packages) return this.packages;
    const pkgs = new Map<string, Pkg>();
    const root = parseJsonc(this.files.read('package.json'));
    const ws = root?.workspaces;
    const patterns = Array.isArray(ws) ? ws : Array.isArray((ws as { packages?: unknown })?.packages) ? (ws as { packages: unknown[] }).packages : [];
    const dirs: string[] = [];
    for (const p of patterns) {
      if (typeof p !== 'string') continue;
      const clean = p.replace(/^\.\//, '').replace(/\/$/, '');
      if (clean.endsWith('/*')) {
        const parent = clean.slice(0, -2);
        for (const d of this.files.list(parent)) dirs.push(`${parent}/${d}`);
      } else if (!clean.includes('*')) dirs.push(clean);
    }
    const add = (dir: string, pj: Record<string, unknown> | null) => {
      if (pj && typeof pj.name === 'string' && !pkgs.has(pj.name)) pkgs.set(pj.name, { dir, exports: pj.exports, main: typeof pj.main === 'string' ? pj.main : typeof pj.module === 'string' ? pj.module : undefined });
    };
    for (const dir of dirs) add(dir, parseJsonc(this.files.read(`${dir}/package.json`)));
    // The root package by its own name: its tests and examples import it as a user would
    // (`import { z } from 'zod/v4'` inside zod), which Node and TypeScript resolve to itself.
    add('', root);
    this.packages = pkgs;
    return pkgs;
  }
}

function toConfig(dir: string, o: Record<string, unknown>): TsConfig {
  const hasBaseUrl = typeof o.baseUrl === 'string';
  const base = hasBaseUrl ? join(dir, o.baseUrl as string) : dir;
  const paths: TsConfig['paths'] = [];
  for (const [pattern, targets] of Object.entries((o.paths ?? {}) as Record<string, unknown>)) {
    if (!Array.isArray(targets)) continue;
    const star = pattern.indexOf('*');
    paths.push({ prefix: star < 0 ? pattern : pattern.slice(0, star), suffix: star < 0 ? '' : pattern.slice(star + 1), wildcard: star >= 0, targets: targets.filter((t): t is string => typeof t === 'string') });
  }
  return { base, hasBaseUrl, paths };
}

/** The target of `sub` (`.`, `./x`) in a package.json `exports` field, conditions resolved. */
function exportTarget(exports: unknown, sub: string): string | null {
  if (exports === undefined || exports === null) return null;
  if (typeof exports === 'string' || Array.isArray(exports) || !Object.keys(exports as object).some((k) => k.startsWith('.'))) {
    return sub === '.' ? condition(exports) : null;
  }
  const map = exports as Record<string, unknown>;
  if (sub in map) return condition(map[sub]);
  for (const [k, v] of Object.entries(map)) {
    const star = k.indexOf('*');
    if (star < 0) continue;
    const pre = k.slice(0, star);
    const post = k.slice(star + 1);
    if (sub.startsWith(pre) && sub.endsWith(post)) {
      const t = condition(v);
      if (t) return t.replace('*', sub.slice(pre.length, sub.length - post.length));
    }
  }
  return null;
}

function condition(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map(condition).find((x) => x) ?? null;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // A project's own condition for its sources (`@zod/source`, `my-lib:source`) first, as `source`.
    const own = Object.keys(o).filter((k) => /[@:/-]source$/.test(k));
    for (const c of [...own, ...CONDITIONS]) if (c in o) {
      const t = condition(o[c]);
      if (t) return t;
    }
  }
  return null;
}

/**
 * What `ProjectResolver` reads of a project file (`LanguageSupport.projectFileView`): of a
 * package.json its `workspaces` (the root's) and `name`, `exports`, `main`, `module` (a workspace
 * package's); of a tsconfig, jsconfig or a file one extends, `extends` and `compilerOptions`'
 * `baseUrl` and `paths` (whether present, and what). A file that does not parse is `null`, as
 * the resolver sees it. A dependency added, a compiler flag switched: the same view.
 */
export function projectFileView(rel: string, text: string): string | undefined {
  if (!rel.endsWith('.json')) return undefined;
  const json = parseJsonc(text);
  if (!json) return 'null';
  if (rel === 'package.json' || rel.endsWith('/package.json')) return JSON.stringify(['package', json.workspaces, json.name, json.exports, json.main, json.module]);
  const o = (json.compilerOptions ?? {}) as Record<string, unknown>;
  const opts = o && typeof o === 'object' ? o : {};
  return JSON.stringify(['config', json.extends, typeof json.compilerOptions, 'baseUrl' in opts, opts.baseUrl, 'paths' in opts, opts.paths]);
}

/** JSON with comments and trailing commas (tsconfig), or null. */
function parseJsonc(text: string | undefined): Record<string, unknown> | null {
  if (text === undefined) return null;
  try {
    const clean = text
      .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m, str: string | undefined) => str ?? '')
      .replace(/,(\s*[}\]])/g, '$1');
    const v: unknown = JSON.parse(clean);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function dirOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

/** Joins and normalises workspace-relative paths (`a/b` + `../c/./d` → `a/c/d`). */
function join(base: string, rel: string): string {
  const parts = base ? base.split('/') : [];
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}
