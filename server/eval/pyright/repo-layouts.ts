// Whole repositories as people clone them, rebuilt in a temp folder from real packages of this
// machine's site-packages: the package's code placed where a layout puts it (src/, flat, a
// monorepo's packages/<x>/src, a namespace package), plus tests and examples that import the
// package by its installed name and call its API, a stray module named like the package, and a
// stray module named like a standard-library module. The tests and examples are generated from
// the package's own public functions, classes and methods (read with Python's `ast`), so each
// call in them is one pyright can follow; nothing is copied from anywhere else.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface LayoutPackage {
  /** The package's folder name in site-packages (its import name). */
  name: string;
  /** Where its folder goes in the repository, relative to the root (`src/flask`). */
  to: string;
}

export interface LayoutSpec {
  name: string;
  /** What the layout stands for, one line. */
  about: string;
  packages: LayoutPackage[];
  /** Project files (relative path → text). */
  projectFiles: Record<string, string>;
  /** Folder of the generated tests, and of the generated example app (importing the packages by name). */
  tests: string;
  examples?: string;
  /** Stray modules (relative path → text): named like a package or a standard-library module. */
  strays: Record<string, string>;
  /** pyright: folders on the import path (the declared source roots). */
  extraPaths: string[];
  /** Namespace folders (no `__init__.py`) the packages sit in: import names get this prefix. */
  namespace?: string;
}

const STRAY_BODY = '# A stray module: named like another module, imported by nobody here.\n\n\ndef dumps(obj):\n    return obj\n\n\ndef getLogger(name=None):\n    return name\n';

/** The four layouts the issue names, each from packages that call each other where they can. */
export const LAYOUTS: LayoutSpec[] = [
  {
    name: 'src',
    about: 'src/ layout (flit), tests/ and examples/ importing the package, a stray tests/fixtures/flask.py',
    packages: [{ name: 'flask', to: 'src/flask' }],
    projectFiles: { 'pyproject.toml': '[project]\nname = "flask"\n\n[build-system]\nrequires = ["flit_core"]\nbuild-backend = "flit_core.buildapi"\n' },
    tests: 'tests',
    examples: 'examples/app',
    strays: { 'tests/fixtures/flask.py': STRAY_BODY.replace('dumps', 'Flask'), 'tests/fixtures/json.py': STRAY_BODY },
    extraPaths: ['src'],
  },
  {
    name: 'flat',
    about: 'flat layout with pyproject.toml (setuptools packages), tests/, a stray scripts/typing.py and docs/conf.py',
    packages: [{ name: 'click', to: 'click' }],
    projectFiles: { 'pyproject.toml': '[project]\nname = "click"\n\n[tool.setuptools]\npackages = ["click"]\n' },
    tests: 'tests',
    strays: { 'scripts/typing.py': STRAY_BODY, 'scripts/logging.py': STRAY_BODY, 'docs/conf.py': 'project = "click"\n' },
    extraPaths: ['.'],
  },
  {
    name: 'monorepo',
    about: 'two projects under packages/<x>/src (jinja2 calls markupsafe), tests in each project',
    packages: [
      { name: 'markupsafe', to: 'packages/markupsafe/src/markupsafe' },
      { name: 'jinja2', to: 'packages/jinja/src/jinja2' },
    ],
    projectFiles: {
      'packages/markupsafe/pyproject.toml': '[project]\nname = "markupsafe"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n',
      'packages/jinja/pyproject.toml': '[project]\nname = "jinja2"\n\n[tool.hatch.build.targets.wheel]\npackages = ["src/jinja2"]\n',
    },
    tests: 'packages/jinja/tests',
    strays: { 'packages/jinja/tests/res/jinja2.py': STRAY_BODY, 'packages/markupsafe/bench/json.py': STRAY_BODY },
    extraPaths: ['packages/markupsafe/src', 'packages/jinja/src'],
  },
  {
    name: 'namespace',
    about: 'a namespace package src/acme/ (no __init__.py) holding itsdangerous and blinker, tests importing acme.*',
    packages: [
      { name: 'itsdangerous', to: 'src/acme/itsdangerous' },
      { name: 'blinker', to: 'src/acme/blinker' },
    ],
    projectFiles: { 'pyproject.toml': '[project]\nname = "acme"\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\nnamespaces = true\n' },
    tests: 'tests',
    examples: 'examples/signals',
    strays: { 'tests/helpers/itsdangerous.py': STRAY_BODY, 'examples/signals/json.py': STRAY_BODY },
    extraPaths: ['src'],
    namespace: 'acme',
  },
];

export interface BuiltLayout {
  spec: LayoutSpec;
  root: string;
  files: number;
  /** Generated test and example files. */
  generated: string[];
}

/** Python's view of a package: per module, public functions and classes with their methods. */
interface ApiModule {
  module: string;
  functions: Array<{ name: string; args: number }>;
  classes: Array<{ name: string; args: number; methods: Array<{ name: string; args: number }> }>;
}

// Reads a package with `ast` (never imports it): top-level public functions and classes of each
// module, and the public methods of each class, with how many positional arguments they need.
const API_SCRIPT = `
import ast, json, os, sys
root, pkg = sys.argv[1], sys.argv[2]
def need(a, method):
    pos = list(a.posonlyargs) + list(a.args)
    if method and pos: pos = pos[1:]
    return max(0, len(pos) - len(a.defaults))
out = []
for dirpath, dirs, files in os.walk(os.path.join(root, pkg)):
    dirs[:] = sorted(d for d in dirs if d not in ('tests', 'test', '__pycache__'))
    for f in sorted(files):
        if not f.endswith('.py'): continue
        rel = os.path.relpath(os.path.join(dirpath, f), root)[:-3].replace(os.sep, '.')
        if rel.endswith('.__init__'): rel = rel[:-9]
        if any(p.startswith('_') and p != '__init__' for p in rel.split('.')[1:]): continue
        try: tree = ast.parse(open(os.path.join(dirpath, f), encoding='utf-8').read())
        except Exception: continue
        fns, classes = [], []
        for n in tree.body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith('_'):
                if any(isinstance(d, ast.Name) and d.id == 'overload' for d in n.decorator_list): continue
                if isinstance(n, ast.FunctionDef): fns.append({'name': n.name, 'args': need(n.args, False)})
            elif isinstance(n, ast.ClassDef) and not n.name.startswith('_'):
                init = next((m for m in n.body if isinstance(m, ast.FunctionDef) and m.name == '__init__'), None)
                ms = []
                for m in n.body:
                    if isinstance(m, ast.FunctionDef) and not m.name.startswith('_'):
                        decos = [ast.unparse(d) for d in m.decorator_list]
                        if any(d in ('property', 'staticmethod', 'classmethod', 'overload', 'typing.overload') or d.endswith('.setter') or d.endswith('.deleter') for d in decos): continue
                        ms.append({'name': m.name, 'args': need(m.args, True)})
                classes.append({'name': n.name, 'args': need(init.args, True) if init else 0, 'methods': ms})
        if fns or classes: out.append({'module': rel, 'functions': fns, 'classes': classes})
print(json.dumps(out))
`;

function readApi(parent: string, pkg: string): ApiModule[] {
  const text = execFileSync('python3', ['-c', API_SCRIPT, parent, pkg], { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 });
  return JSON.parse(text) as ApiModule[];
}

const MAX_PER_MODULE = 6;
const MAX_METHODS = 4;

const args = (n: number) => Array.from({ length: Math.min(n, 6) }, () => 'None').join(', ');

/** A test file for one module: `import pkg.mod`, `from pkg.mod import C`; calls of each. */
function testFile(m: ApiModule, prefix: string): string {
  const name = prefix + m.module;
  const lines = [`# Generated: calls the public API of ${name}, imported by its installed name.`, `import ${name}`];
  const classes = m.classes.slice(0, MAX_PER_MODULE);
  if (classes.length) lines.push(`from ${name} import ${classes.map((c) => c.name).join(', ')}`);
  lines.push('');
  for (const f of m.functions.slice(0, MAX_PER_MODULE)) {
    lines.push('', `def test_${f.name}():`, `    return ${name}.${f.name}(${args(f.args)})`, '');
  }
  for (const c of classes) {
    lines.push('', `def test_${c.name}():`, `    obj = ${c.name}(${args(c.args)})`);
    for (const meth of c.methods.slice(0, MAX_METHODS)) lines.push(`    obj.${meth.name}(${args(meth.args)})`);
    lines.push('    return obj', '');
  }
  return lines.join('\n') + '\n';
}

/** An example app: a script that uses the package's top-level API, and a runner that imports it as `app`. */
function exampleFiles(api: ApiModule[], prefix: string, pkg: string): Record<string, string> {
  const top = api.find((m) => m.module === pkg);
  const lines = [`# Generated example app: imports ${prefix}${pkg} by name.`, `import ${prefix}${pkg}`, ''];
  const calls: string[] = [];
  for (const f of top?.functions.slice(0, MAX_PER_MODULE) ?? []) calls.push(`    ${prefix}${pkg}.${f.name}(${args(f.args)})`);
  for (const c of top?.classes.slice(0, 2) ?? []) calls.push(`    ${prefix}${pkg}.${c.name}(${args(c.args)})`);
  lines.push('', 'def create_app():', ...(calls.length ? calls : ['    pass']), '    return None', '');
  return {
    'app.py': lines.join('\n') + '\n',
    'run.py': '# Run from this folder: `app` is the example beside it, not a package module.\nimport app\n\n\ndef main():\n    return app.create_app()\n',
  };
}

export function buildLayout(spec: LayoutSpec, sitePackages: string, into: string): BuiltLayout {
  const root = path.join(into, spec.name);
  let files = 0;
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  const copy = (from: string, to: string) => {
    fs.mkdirSync(to, { recursive: true });
    for (const d of fs.readdirSync(from, { withFileTypes: true })) {
      if (d.isDirectory()) {
        if (d.name !== '__pycache__' && d.name !== 'tests') copy(path.join(from, d.name), path.join(to, d.name));
      } else if (d.isFile() && (d.name.endsWith('.py') || d.name.endsWith('.pyi'))) {
        fs.copyFileSync(path.join(from, d.name), path.join(to, d.name));
        files++;
      }
    }
  };
  for (const p of spec.packages) {
    if (!fs.existsSync(path.join(sitePackages, p.name, '__init__.py'))) throw new Error(`layout ${spec.name}: package ${p.name} is not installed in ${sitePackages}`);
    copy(path.join(sitePackages, p.name), path.join(root, p.to));
  }
  for (const [rel, text] of Object.entries(spec.projectFiles)) write(rel, text);
  const generated: string[] = [];
  const prefix = spec.namespace ? `${spec.namespace}.` : '';
  for (const p of spec.packages) {
    const api = readApi(sitePackages, p.name);
    for (const m of api) {
      const rel = `${spec.tests}/test_${m.module.replace(/\./g, '_')}.py`;
      write(rel, testFile(m, prefix));
      generated.push(rel);
    }
    if (spec.examples && p === spec.packages[0]) {
      for (const [f, text] of Object.entries(exampleFiles(api, prefix, p.name))) {
        write(`${spec.examples}/${f}`, text);
        generated.push(`${spec.examples}/${f}`);
      }
    }
  }
  for (const [rel, text] of Object.entries(spec.strays)) write(rel, text);
  files += generated.length + Object.keys(spec.strays).length;
  writePyrightConfig(root, spec);
  return { spec, root, files, generated };
}

/**
 * pyright resolves as Python would with the project installed: the declared source roots on the
 * path, each test and example folder its own execution environment (its own folder first, as
 * pytest and a script's run put it), no assumed platform, no type checking.
 */
function writePyrightConfig(root: string, spec: LayoutSpec): void {
  const envs = [spec.tests, ...(spec.examples ? [spec.examples] : [])].map((r) => ({ root: r, extraPaths: [r, ...spec.extraPaths] }));
  const config = {
    pythonPlatform: 'All',
    typeCheckingMode: 'off',
    extraPaths: spec.extraPaths,
    executionEnvironments: [...envs, ...spec.extraPaths.map((r) => ({ root: r }))],
  };
  fs.writeFileSync(path.join(root, 'pyrightconfig.json'), JSON.stringify(config, null, 2) + '\n');
}

/** The part of a repository a file belongs to, for the per-part rows: package, tests, examples, other. */
export function partOf(spec: LayoutSpec, file: string): string {
  if (spec.packages.some((p) => file.startsWith(p.to + '/'))) return 'package';
  if (file.startsWith(spec.tests + '/')) return 'tests';
  if (spec.examples && file.startsWith(spec.examples + '/')) return 'examples';
  return 'other';
}
