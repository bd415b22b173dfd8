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

// Prints one JSON object per documented def whose docstring statement sits on lines of its own.
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
        def visit(node, names, parent_is_class):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    q = names + [child.name]
                    body0 = child.body[0]
                    doc = ast.get_docstring(child)
                    if doc and isinstance(body0, ast.Expr):
                        first = lines[body0.lineno - 1]
                        last = lines[body0.end_lineno - 1]
                        own = first[:body0.col_offset].strip() == b'' and last[body0.end_col_offset:].strip() in (b'', b';')
                        if own and body0.lineno > child.lineno:
                            out.append({'path': rel, 'qname': '.'.join(q), 'kind': 'method' if parent_is_class else 'function',
                                        'docStart': body0.lineno, 'docEnd': body0.end_lineno, 'doc': doc})
                    visit(child, q, False)
                elif isinstance(child, ast.ClassDef):
                    visit(child, names + [child.name], True)
                else:
                    visit(child, names, parent_is_class)
        visit(tree, [], False)
json.dump(out, sys.stdout)
`;

export const SKIPPED_STDLIB_DIRS = ['test', 'tests', 'site-packages', 'dist-packages', '__pycache__'];

export function listDocumentedFunctions(stdlib: string): DocumentedFunction[] {
  const json = execFileSync('python3', ['-c', LISTER, stdlib, SKIPPED_STDLIB_DIRS.join(',')], { encoding: 'utf8', maxBuffer: 1 << 30, timeout: 300_000 });
  const raw = JSON.parse(json) as Array<Omit<DocumentedFunction, 'query'> & { doc: string }>;
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
