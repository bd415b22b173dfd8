// Small readers over TypeScript/JavaScript nodes: dotted paths of callees, type expressions as
// the graph resolves them, JSDoc, one-line signatures, string literals.
import type { Node } from 'web-tree-sitter';
import { CONTAINER_TYPE } from '../types';
import { keepMessage, MAX_LITERALS_CHARS } from '../literals';

/** Node types of a function value (`const f = () => …`, `x = function () {}`). */
export const FUNCTION_VALUES: ReadonlySet<string> = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

/** `a.b.c`, `this.x.m`, `super.m` as segments; null when some part is not a plain name. */
export function pathOf(n: Node | null): string[] | null {
  if (!n) return null;
  switch (n.type) {
    case 'identifier':
    case 'property_identifier':
    case 'private_property_identifier':
    case 'type_identifier':
      return [n.text];
    case 'this':
      return ['this'];
    case 'super':
      return ['super'];
    case 'member_expression': {
      const obj = pathOf(n.childForFieldName('object'));
      const prop = n.childForFieldName('property');
      return obj && prop ? [...obj, prop.text] : null;
    }
    case 'nested_identifier':
    case 'nested_type_identifier':
      return n.text.replace(/\s+/g, '').split('.');
    case 'parenthesized_expression':
    case 'non_null_expression':
      return pathOf(n.namedChild(0));
    default:
      return null;
  }
}

/** The last property name of a member expression (`m` of `f().m`), for unresolvable receivers. */
export function memberName(n: Node | null): string | null {
  if (n?.type !== 'member_expression') return null;
  return n.childForFieldName('property')?.text ?? null;
}

const NO_TYPE = new Set(['null', 'undefined', 'void', 'never']);
const WRAPPERS = new Set(['Promise', 'PromiseLike', 'Readonly', 'Awaited', 'NonNullable']);
/** Generic types whose elements a `for … of` or an array callback (`xs.map((x) => …)`) visits. */
const SEQUENCES = new Set(['Array', 'ReadonlyArray', 'Set', 'ReadonlySet', 'Iterable', 'IterableIterator', 'Generator']);

/** Generic maps: their values are what `get` returns and `values()` or `forEach` visit (`[]V`). */
const MAPS = new Set(['Map', 'ReadonlyMap', 'WeakMap']);

/**
 * The container a generic type names (`[]T`: CONTAINER_TYPE): a sequence's or set's `T`, a map's
 * values `V`; null for other generics and for element types that are not one class.
 */
function genericContainer(name: string, args: Node | null): string | null {
  const element = SEQUENCES.has(name) ? args?.namedChild(0) : MAPS.has(name) ? args?.namedChild(1) : null;
  return element ? containerOf(typeOf(element)) : null;
}

/** The container type of `new Map<K, V>()`, `new Set<T>()`, `new Array<T>()`, or null. */
export function constructedContainer(n: Node): string | null {
  return genericContainer(n.childForFieldName('constructor')?.text ?? '', n.childForFieldName('type_arguments'));
}

/** `[]T`, a container of one class, or null when `t` is no single class. */
function containerOf(t: string | null): string | null {
  return t && !t.includes('|') && !t.startsWith(CONTAINER_TYPE) ? `${CONTAINER_TYPE}${t}` : null;
}

/**
 * A type node as the graph resolves it: `User`, `models.User`, `A|B` for unions, the argument
 * of `Promise<T>`, `[]T` for an array, set or map of one class (`T[]`, `Set<T>`, `Map<K, T>`);
 * null for types that name no class (primitives, functions, literals).
 */
export function typeOf(n: Node | null): string | null {
  if (!n) return null;
  switch (n.type) {
    case 'type_annotation':
    case 'parenthesized_type':
      return typeOf(n.namedChild(0));
    case 'type_identifier':
      return n.text;
    case 'nested_type_identifier':
      return n.text.replace(/\s+/g, '');
    case 'generic_type': {
      const name = n.childForFieldName('name');
      const args = n.childForFieldName('type_arguments');
      if (name && WRAPPERS.has(name.text)) return typeOf(args?.namedChild(0) ?? null);
      if (name && (SEQUENCES.has(name.text) || MAPS.has(name.text))) return genericContainer(name.text, args);
      return typeOf(name);
    }
    case 'array_type':
      return containerOf(typeOf(n.namedChild(0)));
    case 'readonly_type':
      return typeOf(n.namedChild(0));
    case 'union_type': {
      const alts = n.namedChildren.map((c) => typeOf(c)).filter((t): t is string => !!t && !NO_TYPE.has(t));
      return alts.length ? [...new Set(alts)].join('|') : null;
    }
    default:
      return null;
  }
}

/** The type expression of what an initialiser yields: `new C()` → `C`, `new Map<K, V>()` → `[]V`, `f()` → `f`, `await f()`. */
export function valueType(n: Node | null): string | null {
  if (!n) return null;
  switch (n.type) {
    case 'new_expression': {
      const container = constructedContainer(n);
      if (container) return container;
      const p = pathOf(n.childForFieldName('constructor'));
      return p ? p.join('.') : null;
    }
    case 'await_expression':
    case 'parenthesized_expression':
    case 'non_null_expression':
      return valueType(n.namedChild(0));
    case 'as_expression':
    case 'satisfies_expression':
      return typeOf(n.namedChild(1)) ?? valueType(n.namedChild(0));
    case 'call_expression': {
      const p = pathOf(n.childForFieldName('function'));
      return p && p[0] !== 'super' ? p.join('.') : null;
    }
    default:
      return null;
  }
}

/** Text of a string literal node (no template substitutions), or null. */
export function stringValue(n: Node | null): string | null {
  if (!n) return null;
  if (n.type === 'string') return n.text.slice(1, -1);
  if (n.type === 'template_string' && !n.namedChildren.some((c) => c?.type === 'template_substitution')) return n.text.slice(1, -1);
  return null;
}

/** The JSDoc block right before a definition (or before the export/declaration around it). */
export function jsdocOf(n: Node): string | null {
  let at: Node | null = n;
  while (at?.parent && (at.parent.type === 'export_statement' || at.parent.type === 'lexical_declaration' || at.parent.type === 'variable_declaration' || at.parent.type === 'ambient_declaration')) at = at.parent;
  const prev = at?.previousNamedSibling;
  // As TypeScript does: the JSDoc block right before, blank lines between or not.
  if (!prev || prev.type !== 'comment' || !prev.text.startsWith('/**')) return null;
  return cleanJsdoc(prev.text);
}

export function cleanJsdoc(text: string): string {
  return text
    .replace(/^\/\*\*\s?/, '')
    .replace(/\s*\*\/$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** One line: the definition's text up to its body, whitespace collapsed. */
export function signatureOf(source: string, n: Node, body: Node | null, max = 240): string {
  const end = body ? body.startIndex : n.endIndex;
  let s = source.slice(n.startIndex, end).replace(/\s+/g, ' ').trim();
  if (s.endsWith('=>')) s = s.slice(0, -2).trim() + ' =>';
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

const KEYWORDS = new Set(
  'const let var function return if else for while do switch case break continue new this super class extends implements interface type enum namespace import export from default async await yield try catch finally throw typeof instanceof in of void delete null undefined true false static public private protected readonly abstract get set declare as any string number boolean unknown never object'.split(' '),
);

// Comments or string literals, whichever starts first: a `//` inside a string is text, and an
// apostrophe inside a comment opens nothing.
const COMMENT_OR_STRING = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`/g;

/** Message-like string literals of a body (../literals.ts), '\n' between them; '' when none. */
export function literalsOf(text: string): string {
  const out: string[] = [];
  let room = MAX_LITERALS_CHARS;
  for (const m of text.matchAll(COMMENT_OR_STRING)) {
    const raw = m[1] ?? m[2] ?? m[3];
    if (raw !== undefined && (room = keepMessage(out, raw, room)) <= 0) break;
  }
  return out.join('\n');
}

/** Significant words of a body (identifiers and string words), capped: feeds lexical search. */
export function bodyWords(text: string, cap: number): string {
  const out = new Set<string>();
  for (const m of text.matchAll(/[A-Za-z_$][\w$]*/g)) {
    const w = m[0];
    if (w.length < 2 || KEYWORDS.has(w)) continue;
    out.add(w);
    if (out.size >= cap) break;
  }
  return [...out].join(' ');
}
