// The names `import x.y` finds a workspace file under, the way Python's path would: from the
// source roots the project declares (pyproject.toml, setup.cfg, setup.py, a `src/` folder), from
// the workspace root, and from the file's basedir (the first folder up without `__init__.py`:
// what pytest's default import mode and a script's run put on sys.path). Spec: graph/README.md.
import type { ImportName, WorkspaceLayout } from '../types';
import { declaredRoots, rootsView } from './project-roots';
import { STDLIB_MODULES } from './stdlib';

const SOURCE_EXT = /\.pyi?$/;
const INITS = ['__init__.py', '__init__.pyi'];

function dirOf(file: string): string {
  const i = file.lastIndexOf('/');
  return i < 0 ? '' : file.slice(0, i);
}

function join(dir: string, rel: string): string {
  if (rel === '.' || rel === '') return dir;
  return dir ? `${dir}/${rel}` : rel;
}

function isPackage(dir: string, layout: WorkspaceLayout): boolean {
  return INITS.some((f) => layout.has(join(dir, f)));
}

/** The dotted package the workspace root is, when it is one (`site-packages/flask` → `flask`). */
function rootPackage(layout: WorkspaceLayout): string | null {
  return layout.memo('python:root-package', () => {
    const p = layout.project;
    if (!isPackage('', layout) || !p?.rootNames) return null;
    const names = p.rootNames();
    const parts = [names[0]];
    // Outer folders that are packages too (`pkg/sub` indexed alone is `pkg.sub`).
    for (let up = 1; up < names.length && INITS.some((f) => p.read(`${'../'.repeat(up)}${f}`) !== undefined); up++) parts.unshift(names[up]);
    return parts.every((n) => /^[A-Za-z_]\w*$/.test(n)) ? parts.join('.') : null;
  });
}

/** `a/b/__init__.py` → `['a', 'b']`; `a/b.py` → `['a', 'b']`. */
function modulePath(file: string): string[] {
  const parts = file.replace(SOURCE_EXT, '').split('/');
  if (parts[parts.length - 1] === '__init__') parts.pop();
  return parts;
}

export function basedir(file: string, layout: WorkspaceLayout): string {
  let dir = dirOf(file);
  return layout.memo(`python:basedir:${dir}`, () => {
    while (dir !== '' && isPackage(dir, layout)) dir = dirOf(dir);
    return dir;
  });
}

/** The source roots declared for files whose basedir is `base`: by project files in it or above, or by a `src/` convention. */
function rootsAbove(base: string, layout: WorkspaceLayout): string[] {
  return layout.memo(`python:roots:${base}`, () => {
    const out: string[] = [];
    for (let d = base; ; d = dirOf(d)) {
      out.push(...rootsOf(d, layout));
      if (d === '') break;
    }
    return out;
  });
}

/** Roots that the folder `dir` declares (its project files), or a `src` folder at the workspace root. */
function rootsOf(dir: string, layout: WorkspaceLayout): string[] {
  return layout.memo(`python:project:${dir}`, () => {
    const p = layout.project;
    const declared = p ? declaredRoots((name) => p.read(join(dir, name)), (rel) => p.list(join(dir, rel)).length > 0) : null;
    if (declared) return declared.map((r) => join(dir, r));
    // No project file: a `src/` folder at the root still holds the sources by convention.
    return dir === '' && p && p.list('src').length && !isPackage('src', layout) ? ['src'] : [];
  });
}

function under(file: string, dir: string): boolean {
  return dir === '' || file.startsWith(dir + '/');
}

export function importNames(file: string, layout: WorkspaceLayout): ImportName[] {
  if (!SOURCE_EXT.test(file)) return [];
  const parts = modulePath(file);
  const out: ImportName[] = [];
  const seen = new Set<string>();
  const add = (name: string, kind: ImportName['kind'], dir: string) => {
    if (!name || seen.has(name) || !name.split('.').every((s) => /^[A-Za-z_]\w*$/.test(s))) return;
    seen.add(name);
    out.push({ name, kind, dir });
  };
  const base = basedir(file, layout);
  for (const root of rootsAbove(base, layout)) {
    if (root !== '' && !under(file, root)) continue;
    const depth = root === '' ? 0 : root.split('/').length;
    add(parts.slice(depth).join('.'), 'declared', root);
  }
  const pkg = rootPackage(layout);
  if (pkg) {
    // The root is a package: its files are only reachable through its name.
    add(parts.length ? `${pkg}.${parts.join('.')}` : pkg, 'declared', '');
    return out;
  }
  add(parts.join('.'), 'root', '');
  if (base !== '') add(parts.slice(base.split('/').length).join('.'), 'basedir', base);
  return out;
}

/** `__init__.py` makes its folder a package; a project file moves source roots. */
export function isLayoutFile(file: string): boolean {
  const name = file.slice(file.lastIndexOf('/') + 1);
  return INITS.includes(name) || name === 'setup.py';
}

/** The project files `rootsOf` and `rootPackage` read: they move import names, nothing else. */
export function namesOnlyProjectFile(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  return name === 'pyproject.toml' || name === 'setup.cfg' || name === 'setup.py' || INITS.includes(name);
}

/**
 * What naming reads of a project file (`LanguageSupport.projectFileView`): the source-root keys
 * of a pyproject.toml, setup.cfg or setup.py (not its dependencies or tool settings), and only
 * the presence of an `__init__.py` above the root.
 */
export function projectFileView(rel: string, text: string): string | undefined {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  return INITS.includes(name) ? 'package' : rootsView(name, text);
}

/** The standard library, and what the project's virtual environment has installed. */
export function isExternalModule(top: string, layout: WorkspaceLayout): boolean {
  return STDLIB_MODULES.has(top) || installed(layout).has(top);
}

/** Top-level names in `.venv`/`venv`/`env` site-packages at the workspace root: a few directory listings. */
function installed(layout: WorkspaceLayout): ReadonlySet<string> {
  return layout.memo('python:installed', () => {
    const out = new Set<string>();
    const p = layout.project;
    if (!p) return out;
    for (const env of ['.venv', 'venv', 'env']) {
      for (const lib of ['lib', 'lib64']) {
        for (const py of p.list(`${env}/${lib}`)) {
          if (!py.startsWith('python')) continue;
          for (const entry of p.list(`${env}/${lib}/${py}/site-packages`)) {
            const m = /^([A-Za-z_]\w*)(\.py|\.pyi|(\.[\w-]+)?\.so)?$/.exec(entry);
            if (m && m[1] !== '__pycache__') out.add(m[1]);
          }
        }
      }
      for (const entry of p.list(`${env}/Lib/site-packages`)) {
        const m = /^([A-Za-z_]\w*)(\.py|\.pyi|\.pyd)?$/.exec(entry);
        if (m) out.add(m[1]);
      }
    }
    return out;
  });
}
