// Text helpers of the Python skeleton: joining a multi-line construct into one line,
// shortening assignment values, and the one-line imports summary.
import type { Node } from 'web-tree-sitter';

/** Values longer than this (after joining) are abbreviated by their shape: `{...}`, `f(...)`. */
export const MAX_VALUE_CHARS = 60;
/** Assignments whose value is the point of the line and is kept whole: they list names. */
const WHOLE_VALUE_NAMES = new Set(['__all__', '__slots__']);

const OPENERS = new Set(['(', '[', '{']);
const CLOSERS = new Set([')', ']', '}']);

/**
 * The leaves of `nodes` in source order: tokens, with whole strings kept as one leaf (their
 * inside is text, not code) and comments dropped.
 */
function leaves(nodes: Node[]): Node[] {
  const out: Node[] = [];
  const stack = [...nodes].reverse();
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.type === 'comment') continue;
    if (n.childCount === 0 || n.type === 'string') {
      out.push(n);
      continue;
    }
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}

function leafText(n: Node, source: string): string {
  // A token the parser invented to recover from an error has no text: print what was missing
  // (`)`, `:`) so the line still reads as Python; a missing name prints nothing.
  if (n.isMissing) return n.isNamed ? '' : n.type;
  return source.slice(n.startIndex, n.endIndex);
}

/**
 * The source of `nodes` on one line: spacing inside a line is kept as written; a line break
 * (with its indentation and any comment) becomes one space, or nothing next to a bracket; a
 * trailing comma before a closing bracket on its own line is dropped. Strings are kept as
 * written, so a triple-quoted default value can still span lines.
 */
export function joinLine(nodes: Node[], source: string): string {
  const ls = leaves(nodes);
  let out = '';
  for (let i = 0; i < ls.length; i++) {
    const leaf = ls[i];
    const text = leafText(leaf, source);
    const next = ls[i + 1];
    if (
      text === ',' &&
      next !== undefined &&
      CLOSERS.has(leafText(next, source)) &&
      leaf.parent?.type !== 'tuple' &&
      source.slice(leaf.endIndex, next.startIndex).includes('\n')
    ) {
      continue;
    }
    if (out !== '') {
      const prev = ls[i - 1];
      const gap = source.slice(prev.endIndex, leaf.startIndex);
      if (!gap.includes('\n')) out += gap;
      else if (!OPENERS.has(out[out.length - 1]) && !CLOSERS.has(text)) out += ' ';
    }
    out += text;
  }
  return out;
}

/** The abbreviation of a value too long to keep, by the shape of the expression. */
function abbreviate(value: Node, source: string): string {
  switch (value.type) {
    case 'dictionary':
    case 'dictionary_comprehension':
    case 'set':
    case 'set_comprehension':
      return '{...}';
    case 'list':
    case 'list_comprehension':
      return '[...]';
    case 'tuple':
    case 'generator_expression':
    case 'parenthesized_expression':
      return '(...)';
    case 'call': {
      const fn = value.childForFieldName('function');
      const name = fn ? shortValue(fn, source, '') : '...';
      return name === '...' ? '...' : `${name}(...)`;
    }
    case 'string':
    case 'concatenated_string': {
      const s = value.type === 'string' ? value : value.firstNamedChild;
      const start = s?.firstChild;
      const end = s?.lastChild;
      if (start?.type === 'string_start' && end?.type === 'string_end') {
        return `${leafText(start, source)}...${leafText(end, source)}`;
      }
      return '"..."';
    }
    case 'lambda': {
      const params = value.childForFieldName('parameters');
      return params ? `lambda ${joinLine([params], source)}: ...` : 'lambda: ...';
    }
    default:
      return '...';
  }
}

/**
 * A value as it appears in a skeleton assignment: as written if short and on one line, else
 * abbreviated. `__all__` and `__slots__` keep their whole value, joined onto one line.
 */
export function shortValue(value: Node, source: string, targetName: string): string {
  const raw = source.slice(value.startIndex, value.endIndex);
  if (WHOLE_VALUE_NAMES.has(targetName)) return joinLine([value], source);
  if (raw.length <= MAX_VALUE_CHARS && !raw.includes('\n')) return raw;
  // Joining only helps values a little over the limit because of line breaks; a huge table is
  // abbreviated without walking it.
  if (raw.length <= 4 * MAX_VALUE_CHARS) {
    const joined = joinLine([value], source);
    if (joined.length <= MAX_VALUE_CHARS && !joined.includes('\n')) return joined;
  }
  return abbreviate(value, source);
}

// ---------------------------------------------------------------------------------------------
// Imports summary

/**
 * Collects import statements into one comment line, grouping `from` imports by module in
 * order of first appearance: `# imports: os, sys as system, typing.{Optional, List}, .{x}`.
 */
export class ImportSummary {
  /** Key → members; plain `import m` entries have no members. */
  private readonly entries = new Map<string, string[] | null>();

  add(stmt: Node, source: string): void {
    if (stmt.type === 'import_statement') {
      for (const name of stmt.childrenForFieldName('name')) {
        const key = importedName(name, source);
        if (!this.entries.has(key)) this.entries.set(key, null);
      }
      return;
    }
    // `from __future__ import annotations` switches on a language feature: no dependency to list.
    if (stmt.type === 'future_import_statement') return;
    const m = stmt.childForFieldName('module_name');
    if (!m) return;
    const module = joinLine([m], source);
    const names = stmt.childrenForFieldName('name').map((n) => importedName(n, source));
    if (stmt.namedChildren.some((c) => c.type === 'wildcard_import')) names.push('*');
    const key = `from ${module}`;
    const members = this.entries.get(key) ?? [];
    for (const n of names) if (n !== '' && !members.includes(n)) members.push(n);
    this.entries.set(key, members);
  }

  /** The summary line, or null when the file imports nothing. */
  line(): string | null {
    if (this.entries.size === 0) return null;
    const items: string[] = [];
    for (const [key, members] of this.entries) {
      if (members === null) items.push(key);
      else {
        const module = key.slice('from '.length);
        const sep = module.endsWith('.') ? '' : '.';
        items.push(`${module}${sep}{${members.join(', ')}}`);
      }
    }
    return `# imports: ${items.join(', ')}`;
  }
}

/** `X as X` (the explicit re-export idiom) says no more than `X` to a reader. */
const importedName = (name: Node, source: string) => joinLine([name], source).replace(/^([\w.]+) as \1$/, '$1');

const STRING_OPEN = /^([rRuUbBfF]{0,2})("""|'''|"|')/;

/**
 * A docstring as the skeleton shows it at a docs level: `full` as written, `none` not at all
 * (null), `first-line` its first non-blank line and ` ...` when more follows, in its own quotes
 * (`"""Summary. ..."""`), so the skeleton still reads as Python.
 */
export function docstringAt(text: string, level: 'full' | 'first-line' | 'none'): string | null {
  if (level === 'none') return null;
  if (level === 'full' || !text.includes('\n')) return text;
  const open = STRING_OPEN.exec(text);
  if (!open || !text.endsWith(open[2])) return `${text.slice(0, text.indexOf('\n')).trimEnd()} ...`; // implicit concatenation
  const body = text.slice(open[0].length, text.length - open[2].length);
  const lines = body.split('\n').map((l) => l.trim());
  const first = lines.findIndex((l) => l !== '');
  if (first === -1) return `${open[0]}${open[2]}`;
  // A first line that runs on past its first sentence ("Checks X.  Null sessions are") is cut
  // at the sentence's end: the summary, not a wrapped fragment of the paragraph.
  const sentence = FIRST_SENTENCE.exec(lines[first]);
  const line = sentence ? sentence[1] : lines[first];
  const more = line !== lines[first] || lines.slice(first + 1).some((l) => l !== '');
  return `${open[0]}${line}${more ? ' ...' : ''}${open[2]}`;
}

/** Up to the first `.`, `!` or `?` followed by whitespace and more text (not `e.g. x`, `1.5`). */
const FIRST_SENTENCE = /^(.*?[a-z)`'"\]][.!?])\s+(?=[A-Z(`"'])/;
