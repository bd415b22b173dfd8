// The retrieval eval's questions: documented functions and methods of the Python standard
// library, found by Python's own `ast` (exact docstring positions), sampled with a fixed seed.
// The answer key is the entity id NSCCN gives each one; the question is its docstring's first
// sentence, and the eval copy of the source has that docstring replaced by `pass`.
import { execFileSync } from 'node:child_process';
import { firstSentence } from './docstrings';
import { mulberry32 } from './random';

export interface DocumentedFunction {
  /** Path relative to the stdlib root, `/`-separated. */
  path: string;
  /** NSCCN's qualified name: enclosing classes and functions joined with dots. */
  qname: string;
  kind: 'function' | 'method';
  /** 1-based lines of the docstring statement. */
  docStart: number;
  docEnd: number;
  query: string;
}

// Prints one JSON object per docstring statement that sits on lines of its own: of a def (kind
// function or method), a class or the module.
const LISTER = String.raw`
import ast, json, os, sys
root = sys.argv[1]
skip_dirs = set(sys.argv[2].split(','))
out = []
for d, dirs, files in os.walk(root):
    rel_dir = os.path.relpath(d, root)
    dirs[:] = sorted(x for x in dirs if x not in skip_dirs and not (rel_dir == 'idlelib' and x == 'idle_test'))
    for f in sorted(files):
        if not f.endswith('.py'):
            continue
        p = os.path.join(d, f)
        try:
            src = open(p, 'rb').read()
            tree = ast.parse(src)
        except Exception:
            continue
        lines = src.split(b'\n')
        rel = os.path.relpath(p, root).replace(os.sep, '/')
        def record(node, qname, kind):
            body0 = node.body[0] if node.body else None
            doc = ast.get_docstring(node)
            if doc and isinstance(body0, ast.Expr):
                first = lines[body0.lineno - 1]
                last = lines[body0.end_lineno - 1]
                own = first[:body0.col_offset].strip() == b'' and last[body0.end_col_offset:].strip() in (b'', b';')
                if own and (kind == 'module' or body0.lineno > node.lineno):
                    out.append({'path': rel, 'qname': qname, 'kind': kind, 'docStart': body0.lineno, 'docEnd': body0.end_lineno, 'doc': doc})
        def visit(node, names, parent_is_class):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    q = names + [child.name]
                    record(child, '.'.join(q), 'method' if parent_is_class else 'function')
                    visit(child, q, False)
                elif isinstance(child, ast.ClassDef):
                    record(child, '.'.join(names + [child.name]), 'class')
                    visit(child, names + [child.name], True)
                else:
                    visit(child, names, parent_is_class)
        record(tree, '', 'module')
        visit(tree, [], False)
json.dump(out, sys.stdout)
`;

export const SKIPPED_STDLIB_DIRS = ['test', 'tests', 'site-packages', 'dist-packages', '__pycache__'];

/** A docstring statement on lines of its own: a def's, a class's or the module's (qname ''). */
export interface Docstring {
  path: string;
  qname: string;
  kind: 'function' | 'method' | 'class' | 'module';
  docStart: number;
  docEnd: number;
  doc: string;
}

/** Every docstring under `root` (Python's own `ast`), skipping directories named in `skipDirs`. */
export function listDocstrings(root: string, skipDirs: readonly string[] = SKIPPED_STDLIB_DIRS): Docstring[] {
  const json = execFileSync('python3', ['-c', LISTER, root, skipDirs.join(',')], { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 300_000 });
  return JSON.parse(json) as Docstring[];
}

export function listDocumentedFunctions(root: string, skipDirs: readonly string[] = SKIPPED_STDLIB_DIRS): DocumentedFunction[] {
  const raw = listDocstrings(root, skipDirs).filter((r): r is Docstring & { kind: 'function' | 'method' } => r.kind === 'function' || r.kind === 'method');
  // A qualified name defined twice in a file (conditional definitions) has no single answer.
  const seen = new Map<string, number>();
  for (const r of raw) seen.set(`${r.path}:${r.qname}`, (seen.get(`${r.path}:${r.qname}`) ?? 0) + 1);
  return raw
    .filter((r) => seen.get(`${r.path}:${r.qname}`) === 1)
    .map(({ doc, ...r }) => ({ ...r, query: firstSentence(doc) }));
}

/** Questions worth asking: a real sentence, not a dunder's boilerplate. */
export function usableQuestion(f: DocumentedFunction): boolean {
  const words = f.query.split(/\s+/).filter((w) => /[A-Za-z]/.test(w));
  const last = f.qname.slice(f.qname.lastIndexOf('.') + 1);
  return words.length >= 3 && words.length <= 40 && !/^__.*__$/.test(last);
}

/** Deterministic sample: a seeded Fisher–Yates shuffle of the candidates in path order. */
export function sample<T>(items: T[], n: number, seed: number): T[] {
  const rand = mulberry32(seed);
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

/** Source with the given 1-based line ranges replaced by `pass` (same indentation, same line count). */
export function removeDocstrings(source: string, ranges: Array<{ docStart: number; docEnd: number }>): string {
  const lines = source.split('\n');
  for (const r of ranges) {
    const first = lines[r.docStart - 1];
    const indent = /^[ \t]*/.exec(first)?.[0] ?? '';
    const cr = first.endsWith('\r') ? '\r' : '';
    lines[r.docStart - 1] = `${indent}pass${cr}`;
    for (let i = r.docStart; i < r.docEnd; i++) lines[i] = cr;
  }
  return lines.join('\n');
}
