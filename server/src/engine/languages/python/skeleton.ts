// Telegraphic skeleton of a Python file (the "Orient" step): what an agent needs to find its
// way around a file without reading it. Kept: the module docstring, a one-line imports
// summary, module constants, `__all__`, decorators, class and function signatures as written
// (joined onto one line), docstrings, class attributes, and the if/try structure around
// definitions. Every function body becomes `...`; long values are abbreviated.
//
// Lines keep their original indentation, so the skeleton is valid-looking Python whose nesting
// matches the file. Works on whatever tree-sitter recovered from a broken file and never throws.
import type { Node, Point, Tree } from 'web-tree-sitter';
import type { DocsLevel } from '../../../../../protocol';
import type { FileExtraction, SkeletonOptions, SkeletonPart } from '../types';
import { docstringAt, ImportSummary, joinLine, shortValue } from './skeleton-text';

const STEP = '    ';
const IMPORTS = new Set(['import_statement', 'import_from_statement', 'future_import_statement']);
const DEFINITIONS = new Set(['function_definition', 'class_definition', 'decorated_definition']);
/** Block statements kept as structure lines (`if …:`, `try:`) when they define something. */
const COMPOUNDS = new Set(['if_statement', 'try_statement', 'with_statement', 'for_statement', 'while_statement']);
/** The parts of a compound statement after its first block. */
const CLAUSES = new Set(['elif_clause', 'else_clause', 'except_clause', 'finally_clause']);
/** Assignment targets that bind names (not `obj.attr = …` or `d[k] = …`). */
const PATTERNS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern']);
const INDENT_ONLY = /^[ \t]*$/;

const posKey = (p: Point): string => `${p.row}:${p.column}`;

/** Skeleton lines, with a map from source positions to the skeleton row showing them. */
class Writer {
  readonly lines: string[] = [];
  readonly anchors = new Map<string, number>();
  /** Set between top-level blocks: a blank line goes in before the next line written. */
  pendingBlank = false;
  private rows = 0;

  push(text: string): number {
    if (this.pendingBlank && this.lines.length > 0) {
      this.lines.push('');
      this.rows += 1;
    }
    this.pendingBlank = false;
    const row = this.rows;
    this.lines.push(text);
    // A kept string (docstring, default value) may span lines: rows count real lines.
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.rows += 1;
    this.rows += 1;
    return row;
  }

  /** Turns the last line (a header) into the compact `header ...` of a body with nothing kept. */
  elideLast(): void {
    this.lines[this.lines.length - 1] += ' ...';
  }

  anchor(node: Node | null, row: number): void {
    if (node) this.anchors.set(posKey(node.startPosition), row);
  }

  text(): string {
    return this.lines.length === 0 ? '' : `${this.lines.join('\n')}\n`;
  }
}

class PythonSkeleton {
  readonly w = new Writer();

  constructor(
    private readonly source: string,
    private readonly docs: DocsLevel,
  ) {}

  private slice(n: Node): string {
    return this.source.slice(n.startIndex, n.endIndex);
  }

  /** Writes a docstring at the docs level; returns whether a line was written. */
  private docstring(doc: Node, indent: string): boolean {
    const text = docstringAt(this.slice(doc), this.docs);
    if (text === null) return false;
    this.w.push(indent + text);
    return true;
  }

  /** The whitespace before `node` on its line, or `fallback` if code precedes it there. */
  private indentOf(node: Node, fallback: string): string {
    const prefix = this.source.slice(node.startIndex - node.startPosition.column, node.startIndex);
    return INDENT_ONLY.test(prefix) ? prefix : fallback;
  }

  module(root: Node, hasErrors: boolean): void {
    if (hasErrors) this.w.push('# syntax errors: this skeleton shows what the parser recovered');
    const stmts = statements(root);
    const doc = stmts.length > 0 && isDocstring(stmts[0]) ? stmts[0] : null;
    if (doc) this.docstring(doc, '');
    const imports = new ImportSummary();
    this.collectImports(root, imports);
    const summary = imports.line();
    if (summary) this.w.push(summary);
    this.statements(doc ? stmts.slice(1) : stmts, '', true);
  }

  /** Imports anywhere outside function bodies, including inside `if`/`try` and class bodies. */
  private collectImports(node: Node, into: ImportSummary): void {
    for (const c of node.namedChildren) {
      if (IMPORTS.has(c.type)) into.add(c, this.source);
      else if (c.type === 'class_definition') {
        const body = c.childForFieldName('body');
        if (body) this.collectImports(body, into);
      } else if (
        c.type === 'decorated_definition' ||
        c.type === 'block' ||
        c.type === 'ERROR' ||
        COMPOUNDS.has(c.type) ||
        CLAUSES.has(c.type)
      ) {
        this.collectImports(c, into);
      }
    }
  }

  /** Writes the kept statements of a block; returns whether it wrote anything. */
  private statements(stmts: Node[], indent: string, top: boolean): boolean {
    let any = false;
    for (const s of stmts) {
      // Top-level blocks get a blank line before and after them, as in the source.
      const block = top && (DEFINITIONS.has(s.type) || COMPOUNDS.has(s.type));
      const before = this.w.pendingBlank;
      if (block) this.w.pendingBlank = true;
      const wrote = this.statement(s, indent, top);
      if (!wrote) this.w.pendingBlank = before;
      else if (block) this.w.pendingBlank = true;
      any = wrote || any;
    }
    return any;
  }

  private statement(s: Node, indent: string, top: boolean): boolean {
    switch (s.type) {
      case 'expression_statement':
        return this.assignment(s, indent);
      case 'function_definition':
      case 'class_definition':
      case 'decorated_definition':
        this.definition(s, indent);
        return true;
      case 'type_alias_statement': {
        const left = s.childForFieldName('left');
        const right = s.childForFieldName('right');
        if (!left || !right) return false;
        const row = this.w.push(`${this.indentOf(s, indent)}type ${joinLine([left], this.source)} = ${shortValue(right, this.source, '')}`);
        this.w.anchor(left, row);
        return true;
      }
      case 'ERROR':
        // Recovery can leave whole definitions inside an ERROR node: keep what is there.
        return this.statements(s.namedChildren, indent, top);
      default:
        if (COMPOUNDS.has(s.type) && definesSomething(s)) {
          this.clause(s, indent);
          return true;
        }
        return false;
    }
  }

  /** `@decorator` lines, then the `def`/`class` line, then its docstring and body. */
  private definition(s: Node, indent: string): void {
    const own = this.indentOf(s, indent);
    let def: Node | null = s;
    if (s.type === 'decorated_definition') {
      for (const d of s.namedChildren) {
        if (d.type === 'decorator') this.w.push(own + joinLine([d], this.source));
      }
      def = s.childForFieldName('definition');
      if (!def) return;
    }
    const body = def.childForFieldName('body');
    const header: Node[] = [];
    for (const c of def.children) {
      if (body && c.id === body.id) break;
      header.push(c);
    }
    let line = joinLine(header, this.source);
    if (!line.endsWith(':')) line += ':';
    const row = this.w.push(own + line);
    this.w.anchor(s, row);
    this.w.anchor(def, row);
    this.w.anchor(def.childForFieldName('name'), row);
    if (def.type === 'class_definition') this.classBody(body, own);
    else this.functionBody(body, own);
  }

  private functionBody(body: Node | null, indent: string): void {
    const stmts = body ? statements(body) : [];
    if (stmts.length === 0 || !isDocstring(stmts[0])) {
      this.w.elideLast();
      return;
    }
    const inner = this.indentOf(stmts[0], indent + STEP);
    if (!this.docstring(stmts[0], inner)) {
      this.w.elideLast();
      return;
    }
    // A body that is only a docstring has nothing to elide: `...` would claim there is code.
    if (stmts.length > 1) this.w.push(`${inner}...`);
  }

  private classBody(body: Node | null, indent: string): void {
    const stmts = body ? statements(body) : [];
    if (stmts.length === 0) {
      this.w.elideLast();
      return;
    }
    const inner = this.indentOf(stmts[0], indent + STEP);
    let any = false;
    let rest = stmts;
    if (isDocstring(stmts[0])) {
      any = this.docstring(stmts[0], inner);
      rest = stmts.slice(1);
    }
    if (!this.statements(rest, inner, false) && !any) this.w.elideLast();
  }

  /** A compound statement or one of its clauses: the header line, the kept block, the clauses. */
  private clause(node: Node, indent: string): void {
    const own = this.indentOf(node, indent);
    const kids = node.children;
    const at = kids.findIndex((c) => c.type === 'block');
    const header = (at === -1 ? kids : kids.slice(0, at)).filter((c) => !CLAUSES.has(c.type));
    let line = joinLine(header, this.source);
    if (!line.endsWith(':')) line += ':';
    this.w.push(own + line);
    const block = at === -1 ? null : kids[at];
    const stmts = block ? statements(block) : [];
    const inner = stmts.length > 0 ? this.indentOf(stmts[0], own + STEP) : own + STEP;
    if (!this.statements(stmts, inner, false)) this.w.elideLast();
    for (const c of kids) if (CLAUSES.has(c.type)) this.clause(c, indent);
  }

  /** `NAME = value` (value shortened), `x: T = v`, `a = b = v`, `n += v`; other targets are not kept. */
  private assignment(s: Node, indent: string): boolean {
    let cur = s.namedChildCount === 1 ? s.firstNamedChild : null;
    if (!cur || (cur.type !== 'assignment' && cur.type !== 'augmented_assignment')) return false;
    const targets: Node[] = [];
    let text = '';
    let name = '';
    while (cur) {
      const left = cur.childForFieldName('left');
      if (!left || !bindsNames(left)) return false;
      targets.push(left);
      if (!name && left.type === 'identifier') name = this.slice(left);
      text += joinLine([left], this.source);
      const right: Node | null = cur.childForFieldName('right');
      if (cur.type === 'augmented_assignment') {
        const op = cur.childForFieldName('operator');
        if (!op || !right) return false;
        text += ` ${this.slice(op)} ${shortValue(right, this.source, name)}`;
        break;
      }
      const type = cur.childForFieldName('type');
      if (type) text += `: ${joinLine([type], this.source)}`;
      if (!right) break;
      text += ' = ';
      if (right.type === 'assignment') {
        cur = right;
        continue;
      }
      text += shortValue(right, this.source, name);
      break;
    }
    const row = this.w.push(this.indentOf(s, indent) + text);
    for (const t of targets) {
      if (t.type === 'identifier') this.w.anchor(t, row);
      else for (const id of t.descendantsOfType('identifier')) this.w.anchor(id, row);
    }
    return true;
  }
}

function statements(node: Node): Node[] {
  return node.namedChildren.filter((c) => c.type !== 'comment');
}

function isDocstring(s: Node): boolean {
  if (s.type !== 'expression_statement' || s.namedChildCount !== 1) return false;
  const t = s.firstNamedChild!.type;
  return t === 'string' || t === 'concatenated_string';
}

function bindsNames(target: Node): boolean {
  if (target.type === 'identifier') return true;
  if (target.type === 'list_splat_pattern') return target.namedChildren.every(bindsNames);
  return PATTERNS.has(target.type) && target.namedChildren.every(bindsNames);
}

/** Whether a compound statement defines a function or class anywhere in its blocks. */
function definesSomething(node: Node): boolean {
  return node.descendantsOfType(['function_definition', 'class_definition']).length > 0;
}

export function skeletonPython(tree: Tree, source: string, file: string, extraction: FileExtraction, options: SkeletonOptions = {}): SkeletonPart {
  const sk = new PythonSkeleton(source, options.docs ?? 'full');
  let text: string;
  try {
    sk.module(tree.rootNode, tree.rootNode.hasError || extraction.syntaxErrors > 0);
    text = sk.w.text();
  } catch (e) {
    // A skeleton is a view: a tree shape this code did not foresee must not take the request
    // down. Say so in the text (it is what the caller shows) rather than return nothing.
    const why = e instanceof Error ? e.message : String(e);
    return {
      text: `# skeleton of ${file} unavailable: ${why.split('\n')[0]}\n`,
      entities: extraction.entities.filter((x) => x.kind === 'module').map((x) => ({ id: x.id, skeletonRow: 0 })),
    };
  }
  const entities: SkeletonPart['entities'] = [];
  for (const e of extraction.entities) {
    if (e.kind === 'module') {
      entities.push({ id: e.id, skeletonRow: 0 });
      continue;
    }
    const row = sk.w.anchors.get(posKey(e.nameSpan.start)) ?? sk.w.anchors.get(posKey(e.span.start));
    if (row !== undefined) entities.push({ id: e.id, skeletonRow: row });
  }
  return { text, entities };
}
