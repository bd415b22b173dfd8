// Telegraphic skeleton of a TypeScript/JavaScript file: its opening comment (what the file is
// for), imports, JSDoc, signatures with their types (overloads included), interfaces, type
// aliases and enums whole, class members, short constant values; every function body becomes
// `{ … }`. Lines keep their indentation. Works on whatever tree-sitter recovered from a broken
// file and never throws.
import type { Node, Tree } from 'web-tree-sitter';
import type { DocsLevel } from '../../../../../protocol';
import type { FileExtraction, SkeletonOptions, SkeletonPart } from '../types';
import { FUNCTION_VALUES } from './syntax';

const WHOLE = new Set(['interface_declaration', 'type_alias_declaration', 'enum_declaration', 'function_signature', 'method_signature', 'abstract_method_signature', 'property_signature', 'index_signature', 'construct_signature', 'call_signature']);
const STEP = '  ';
const MAX_VALUE = 60;

class Writer {
  readonly lines: string[] = [];
  readonly entities: Array<{ id: string; skeletonRow: number }> = [];
  private row = 0;

  constructor(
    private readonly byStart: Map<number, string[]>,
    private readonly docs: DocsLevel,
  ) {}

  /** A JSDoc block at the docs level (see `jsdocAt`); nothing at `none`. */
  doc(n: Node, indent: string, source: string): void {
    const text = jsdocAt(n.text, this.docs);
    if (text !== null) this.push(text === n.text ? indented(n.text, indent, n, source) : indent + text);
  }

  push(text: string, at?: Node | null): void {
    const ids = at ? this.byStart.get(at.startIndex) : undefined;
    if (ids) {
      for (const id of ids) this.entities.push({ id, skeletonRow: this.row });
      this.byStart.delete(at!.startIndex);
    }
    this.lines.push(text);
    this.row += 1 + (text.match(/\n/g)?.length ?? 0);
  }
}

export function skeletonTypescript(tree: Tree, source: string, _file: string, ex: FileExtraction, options: SkeletonOptions = {}): SkeletonPart {
  // Entities by the byte their span starts at (spans are rows/columns: convert once).
  const lineStarts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const byStart = new Map<number, string[]>();
  for (const e of ex.entities) {
    if (e.kind === 'module') continue;
    const at = (lineStarts[e.span.start.row] ?? 0) + e.span.start.column;
    const l = byStart.get(at);
    if (l) l.push(e.id);
    else byStart.set(at, [e.id]);
  }
  const w = new Writer(byStart, options.docs ?? 'full');
  const mod = ex.entities.find((e) => e.kind === 'module');
  if (mod) w.entities.push({ id: mod.id, skeletonRow: 0 });
  try {
    const body = header(w, tree.rootNode, options.docs ?? 'full');
    for (const c of body) statement(w, c, '', source);
  } catch {
    // A tree shape this writer did not expect: keep what was written.
  }
  return { text: w.lines.length ? w.lines.join('\n') + '\n' : '', entities: w.entities };
}

/**
 * The file's opening comment (`// …` lines or a `/* … *\/` block before the first statement: what
 * the file is for, as a Python module docstring says) at the docs level; a JSDoc block there is
 * the first declaration's own. Returns the top-level nodes after it.
 */
function header(w: Writer, root: Node, level: DocsLevel): Node[] {
  const nodes = root.namedChildren.filter((c): c is Node => !!c && c.type !== 'hash_bang_line');
  let n = 0;
  while (n < nodes.length && nodes[n].type === 'comment' && !nodes[n].text.startsWith('/**')) n++;
  const comments = nodes.slice(0, n).map((c) => c.text);
  if (!comments.length || level === 'none') return nodes.slice(n);
  if (level === 'full') {
    for (const c of comments) w.push(c);
    return nodes.slice(n);
  }
  const lines = comments
    .flatMap((c) => (c.startsWith('//') ? [c.slice(2)] : c.replace(/^\/\*/, '').replace(/\*\/$/, '').split('\n')))
    .map((l) => l.replace(/^\s*\*? ?/, '').trim());
  const first = firstLine(lines);
  if (first !== null) w.push(`// ${first}`);
  return nodes.slice(n);
}

function statements(w: Writer, parent: Node, indent: string, source: string): void {
  for (const c of parent.namedChildren) if (c) statement(w, c, indent, source);
}

function statement(w: Writer, n: Node, indent: string, source: string, prefix = ''): void {
  switch (n.type) {
    case 'comment':
      if (n.text.startsWith('/**')) w.doc(n, indent, source);
      return;
    case 'import_statement':
      w.push(indent + oneLine(n.text));
      return;
    case 'export_statement': {
      const decl = n.childForFieldName('declaration');
      const decorators = n.namedChildren.filter((c) => c?.type === 'decorator').map((c) => c!.text).join(' ');
      const lastDecorator = n.namedChildren.filter((c) => c?.type === 'decorator').pop();
      const head = (decorators ? decorators + ' ' : '') + source.slice(lastDecorator ? lastDecorator.endIndex : n.startIndex, decl ? decl.startIndex : n.startIndex).trim() + ' ';
      if (decl) return statement(w, decl, indent, source, prefix + oneLine(head) + ' ');
      const value = n.childForFieldName('value');
      if (value && FUNCTION_VALUES.has(value.type)) return fn(w, n, value, indent, source, prefix);
      w.push(indent + prefix + short(n.text), n);
      return;
    }
    case 'function_declaration':
    case 'generator_function_declaration':
      return fn(w, n, n, indent, source, prefix);
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class':
      return cls(w, n, indent, source, prefix);
    case 'internal_module':
    case 'module': {
      const body = n.childForFieldName('body');
      w.push(indent + prefix + oneLine(source.slice(n.startIndex, body ? body.startIndex : n.endIndex)) + (body ? ' {' : ''), n);
      if (body) {
        statements(w, body, indent + STEP, source);
        w.push(indent + '}');
      }
      return;
    }
    case 'ambient_declaration':
      for (const c of n.namedChildren) if (c) statement(w, c, indent, source, prefix + 'declare ');
      return;
    case 'expression_statement': {
      const e = n.namedChild(0);
      if (e?.type === 'internal_module') return statement(w, e, indent, source, prefix);
      if (e?.type !== 'assignment_expression') return;
      const right = e.childForFieldName('right');
      const exported = /^(module\.)?exports\b/.test(e.text);
      // A function given to a member (`app.init = function init() {…}`,
      // `Router.prototype.handle = function (req, res) {…}`): how CommonJS code defines its API.
      if (right && FUNCTION_VALUES.has(right.type) && (exported || e.childForFieldName('left')?.type === 'member_expression')) return fn(w, e, right, indent, source, prefix);
      if (exported) w.push(indent + prefix + short(e.text), e);
      return;
    }
    case 'lexical_declaration':
    case 'variable_declaration': {
      const kind = n.child(0)?.text ?? 'const';
      for (const d of n.namedChildren) {
        if (d?.type !== 'variable_declarator') continue;
        const value = d.childForFieldName('value');
        const head = `${prefix}${kind} `;
        if (value && FUNCTION_VALUES.has(value.type)) fn(w, d, value, indent, source, head);
        else if (value && (value.type === 'class' || value.type === 'class_expression')) cls(w, value, indent, source, head + source.slice(d.startIndex, value.startIndex), d);
        else w.push(indent + head + short(d.text), d);
      }
      return;
    }
    default:
      if (WHOLE.has(n.type)) w.push(indented(prefix + n.text, indent, n, source), n);
  }
}

/** A function-like: its text up to the body, then `{ … }`. `owner` is the entity's node. */
function fn(w: Writer, owner: Node, value: Node, indent: string, source: string, prefix: string): void {
  const body = value.childForFieldName('body');
  const head = oneLine(source.slice(owner.startIndex, body ? body.startIndex : owner.endIndex));
  const elided = !body ? '' : body.type === 'statement_block' ? ' { … }' : ' …';
  w.push(indent + prefix + head + elided, owner);
}

function cls(w: Writer, n: Node, indent: string, source: string, prefix: string, owner: Node = n): void {
  const body = n.childForFieldName('body');
  w.push(indent + prefix + oneLine(source.slice(owner === n ? n.startIndex : n.startIndex, body ? body.startIndex : n.endIndex)) + ' {', owner);
  const inner = indent + STEP;
  for (const m of body?.namedChildren ?? []) {
    if (!m) continue;
    if (m.type === 'comment') {
      if (m.text.startsWith('/**')) w.doc(m, inner, source);
    } else if (m.type === 'method_definition') fn(w, m, m, inner, source, '');
    else if (m.type === 'public_field_definition' || m.type === 'field_definition') {
      const value = m.childForFieldName('value');
      if (value && FUNCTION_VALUES.has(value.type)) fn(w, m, value, inner, source, '');
      else w.push(inner + short(m.text), m);
    } else if (m.type === 'decorator') w.push(inner + oneLine(m.text));
    else if (WHOLE.has(m.type) || m.type.endsWith('signature')) w.push(indented(m.text, inner, m, source), m);
    else if (m.type === 'class_static_block') w.push(inner + 'static { … }');
  }
  w.push(indent + '}');
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** A declaration with a long value: the value abbreviated. */
function short(s: string): string {
  const t = oneLine(s);
  const eq = t.indexOf('=');
  if (t.length <= MAX_VALUE + 20 || eq < 0) return t;
  return t.slice(0, Math.max(eq + 2, MAX_VALUE)) + '…';
}

/** A multi-line text (JSDoc, interface) re-indented to `indent`, relative indentation kept. */
function indented(text: string, indent: string, n: Node, src: string): string {
  // The indentation of the line the node starts on (`export enum X {` starts at column 7).
  let lineStart = n.startIndex;
  while (lineStart > 0 && src[lineStart - 1] !== '\n') lineStart--;
  let base = 0;
  while (src[lineStart + base] === ' ' || src[lineStart + base] === '\t') base++;
  return text
    .split('\n')
    .map((l, i) => indent + (i === 0 ? l : l.slice(Math.min(base, l.length - l.trimStart().length))))
    .join('\n');
}

/**
 * A JSDoc block at a docs level: `full` as written, `none` not at all (null), `first-line` its
 * first sentence on one line, with ` ...` when more follows (tags count as more):
 * `/** Adds a SKU to the cart. ... *\/`.
 */
export function jsdocAt(text: string, level: DocsLevel): string | null {
  if (level === 'none') return null;
  if (level === 'full') return text;
  const lines = text
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').trim());
  const first = firstLine(lines);
  return first === null ? null : `/** ${first} */`;
}

/**
 * A comment's text lines at the `first-line` level: the first sentence of the first line that
 * has text, with ` ...` when more follows; null when no line has text.
 */
function firstLine(lines: readonly string[]): string | null {
  const first = lines.findIndex((l) => l !== '');
  if (first === -1) return null;
  const sentence = /^(.*?[a-z)`'"\]][.!?])\s+(?=[A-Z(`"'@{])/.exec(lines[first]);
  const line = sentence ? sentence[1] : lines[first];
  const more = line !== lines[first] || lines.slice(first + 1).some((l) => l !== '');
  return `${line}${more ? ' ...' : ''}`;
}
