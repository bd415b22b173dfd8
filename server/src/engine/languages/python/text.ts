// Text of Python constructs as the index shows them: signatures on one line, cleaned
// docstrings, type expressions reduced to the class they name.
import type { SyntaxNode as Node } from '../../parse/syntax-copy';
import { ELEMENT_TYPE } from '../types';
import { joinLine } from './skeleton-text';

/** `def f(a, b) -> int` / `class C(Base)`: the header up to the body, on one line. */
export function headerText(def: Node, body: Node | null, source: string): string {
  const end = body ? body.startIndex : def.endIndex;
  let text = source.slice(def.startIndex, end).trimEnd();
  if (text.includes('\n') || text.includes('#')) {
    const kids = def.children.filter((c) => !body || c.startIndex < body.startIndex);
    text = joinLine(kids, source).trimEnd();
  }
  return text.endsWith(':') ? text.slice(0, -1).trimEnd() : text;
}

const STRING_PREFIX = /^[rRuUbBfF]{0,2}/;

/** A string literal's text, prefix and quotes off (an f-string's `{…}` slots kept); null when too short to hold both quotes. */
export function stringContent(node: Node, source: string): string | null {
  const t = source.slice(node.startIndex, node.endIndex).replace(STRING_PREFIX, '');
  const q = t.startsWith('"""') || t.startsWith("'''") ? 3 : 1;
  return t.length >= 2 * q ? t.slice(q, t.length - q) : null;
}

/** The value of a string literal as a docstring: quotes and prefix gone, indentation cleaned. */
export function docstringText(node: Node, source: string): string {
  let t = source.slice(node.startIndex, node.endIndex).replace(STRING_PREFIX, '');
  const q = t.startsWith('"""') || t.startsWith("'''") ? 3 : 1;
  t = t.slice(q, t.length >= 2 * q ? t.length - q : t.length);
  return cleandoc(t);
}

/** Like Python's `inspect.cleandoc`. */
export function cleandoc(doc: string): string {
  const lines = doc.replace(/\t/g, '        ').split(/\r?\n/);
  let margin = Infinity;
  for (let i = 1; i < lines.length; i++) {
    const content = lines[i].trimStart();
    if (content) margin = Math.min(margin, lines[i].length - content.length);
  }
  const out = [lines[0].trim(), ...lines.slice(1).map((l) => (margin === Infinity ? l : l.slice(margin)).trimEnd())];
  while (out.length && !out[0]) out.shift();
  while (out.length && !out[out.length - 1]) out.pop();
  return out.join('\n');
}

/** Dotted text of a name chain (`a`, `a.b.c`), or null for any other expression. */
const PURE_CHAIN = /^[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff]*(?:\.[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff]*)*$/;

export function dotted(node: Node, source: string): string | null {
  const type = node.type;
  if (type === 'identifier') return source.slice(node.startIndex, node.endIndex);
  if (type === 'attribute') {
    // Fast path: `a.b.c` written without spaces, calls or subscripts is its own text.
    const text = source.slice(node.startIndex, node.endIndex);
    if (PURE_CHAIN.test(text)) return text;
    const obj = node.childForFieldName('object');
    const attr = node.childForFieldName('attribute');
    if (!obj || !attr) return null;
    const head = dotted(obj, source);
    return head === null ? null : `${head}.${source.slice(attr.startIndex, attr.endIndex)}`;
  }
  return null;
}

const OPTIONAL = new Set(['Optional', 'typing.Optional', 't.Optional']);
const DOTTED_NAME = /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/;

/** The class a type annotation names: `Repo`, `models.Repo`, `Optional[Repo]`, `Repo | None`, `"Repo"`. */
export function typeName(node: Node | null, source: string): string | null {
  if (!node) return null;
  switch (node.type) {
    case 'type':
      return node.namedChildCount === 1 ? typeName(node.namedChild(0), source) : null;
    case 'identifier':
    case 'attribute':
      return dotted(node, source);
    case 'string': {
      // A forward reference: `"Repo"`, `"Repo | None"`, `"Optional[Repo]"`.
      let inner = source.slice(node.startIndex, node.endIndex).replace(/^['"]+|['"]+$/g, '').trim();
      inner = inner.replace(/\s*\|\s*None$|^None\s*\|\s*/g, '');
      const opt = /^(?:typing\.|t\.)?Optional\[\s*([\w.]+)\s*\]$/.exec(inner);
      if (opt) inner = opt[1];
      return DOTTED_NAME.test(inner) ? inner : null;
    }
    case 'generic_type':
    case 'subscript': {
      const head = node.namedChild(0);
      const name = head ? dotted(head, source) : null;
      if (!name || !OPTIONAL.has(name)) return null;
      const arg = node.type === 'subscript' ? node.childForFieldName('subscript') : node.namedChild(1)?.namedChild(0) ?? null;
      return typeName(arg, source);
    }
    case 'binary_operator': {
      const l = node.childForFieldName('left');
      const r = node.childForFieldName('right');
      if (r?.type === 'none') return typeName(l, source);
      if (l?.type === 'none') return typeName(r, source);
      return null;
    }
    default:
      return null;
  }
}


/** A type without its loop-element alternatives (`elem:E`, see `ELEMENT_TYPE`); null when none is left. */
export function withoutElements(type: string | null): string | null {
  if (!type?.includes(ELEMENT_TYPE)) return type;
  const kept = type.split('|').filter((t) => !t.startsWith(ELEMENT_TYPE));
  return kept.length ? kept.join('|') : null;
}

const CONTAINERS = new Set(['list', 'List', 'set', 'Set', 'frozenset', 'FrozenSet', 'Sequence', 'MutableSequence', 'Iterable', 'Iterator', 'Collection', 'AbstractSet', 'MutableSet', 'Generator', 'deque', 'Deque']);

/** The class of the elements of a container annotation: `list[Repo]`, `Iterable["Repo"]`, `tuple[Repo, ...]`. */
export function elementTypeName(node: Node | null, source: string): string | null {
  if (!node) return null;
  if (node.type === 'type') return node.namedChildCount === 1 ? elementTypeName(node.namedChild(0), source) : null;
  if (node.type === 'string') {
    const m = /^(?:[\w.]+\.)?(\w+)\[\s*([\w.]+)\s*(?:,\s*\.\.\.\s*)?\]$/.exec(source.slice(node.startIndex, node.endIndex).replace(/^['"]+|['"]+$/g, '').trim());
    return m && (CONTAINERS.has(m[1]) || m[1] === 'tuple' || m[1] === 'Tuple') ? m[2] : null;
  }
  if (node.type !== 'generic_type' && node.type !== 'subscript') return null;
  const head = node.namedChild(0);
  const name = head ? dotted(head, source) : null;
  const last = name?.slice(name.lastIndexOf('.') + 1);
  if (!last) return null;
  const args = node.type === 'subscript' ? [node.childForFieldName('subscript')] : (node.namedChild(1)?.namedChildren ?? []);
  if (CONTAINERS.has(last)) return typeName(args[0] ?? null, source);
  // `tuple[Repo, ...]`: a tuple of any length of one class.
  if ((last === 'tuple' || last === 'Tuple') && args.length === 2 && args[1] && source.slice(args[1].startIndex, args[1].endIndex) === '...') return typeName(args[0] ?? null, source);
  return null;
}
