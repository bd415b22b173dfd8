// The state of one Python extraction and the small helpers every part of the walk uses: entity
// ids, class attributes and module globals, deferred references, text of nodes. The walk itself
// is layered on top: definitions.ts → statements.ts → expressions.ts → extract.ts.
import type { SyntaxNode as Node } from '../../parse/syntax-copy';
import { entityId } from '../../../../../protocol';
import type { AttrType, CallArgs, CodeKind, ExtractedEntity, ImportBinding, RawRef, Span } from '../types';
import { bindName, type Scope } from './scope';
import { docstringText, dotted, stringContent } from './text';

export const MAX_BODY_WORDS = 60;
export const TOP_DEFS = new Set(['function_definition', 'class_definition', 'decorated_definition']);

export function shift(sp: Span, delta: number): Span {
  return { start: { row: sp.start.row + delta, column: sp.start.column }, end: { row: sp.end.row + delta, column: sp.end.column } };
}

/** What a value may come from: a call (its callee as written) or a name. */
export type ValueSource = { call: string } | { name: string };

/** A reference whose receiver is decided at the end of the file. */
export interface Pending {
  scope: Scope;
  relation: 'CALLS' | 'MUTATES' | 'READS_CONFIG' | 'PROPAGATES_ERROR';
  /** Dotted target as written, first segment included. */
  path: string;
  span: Span;
  catches: string[] | undefined;
  /**
   * READS_CONFIG constant; MUTATES of a bare name only counts when it is declared global;
   * `access`: a CALLS by reading an attribute (a property getter, if it is one).
   */
  mode?: 'constant' | 'globalOnly' | 'container' | 'access';
  /** Top-level definition the reference is in (index into `sections`), or -1. */
  section: number;
  /** Set for a call on the result of calling `path`: the method called on it. */
  member?: string;
  /** CALLS: the call's argument list, typed at the end (`CallArgs.args`) if the call is kept. */
  args?: Node;
  /** Names narrowed by an enclosing `if isinstance(x, T):` of the same scope: name → type. */
  narrow?: Map<string, string>;
}

/** A pending reference, every field present from the start: one object shape for all of them. */
function pending(scope: Scope, relation: Pending['relation'], path: string, at: Span, catches: string[] | undefined, mode: Pending['mode'], section: number, member: string | undefined, narrow: Map<string, string> | undefined): Pending {
  return { scope, relation, path, span: at, catches, mode, section, member, args: undefined, narrow };
}

/** What one top-level definition contributed: reused as is when its text has not changed. */
export interface Section {
  text: string;
  row: number;
  column: number;
  entities: ExtractedEntity[];
  members: ExtractedEntity[];
  refs: RawRef[];
  attrTypes: AttrType[];
  callArgs: CallArgs[];
  globalTypes: GlobalType[];
  reusable: boolean;
}

/** A type assigned to a module global inside a function that declares it `global`. */
export interface GlobalType {
  name: string;
  type: string;
}

/**
 * Carried from one extraction of a buffer to the next: the sections of the previous text and
 * the module-level context their references were finalised in.
 */
export interface PythonReuse {
  context: string;
  sections: Map<string, Section>;
}

/** A node's span (a copy's positions are made anew on each read: no need to copy them). */
export function span(n: Node): Span {
  return { start: n.startPosition, end: n.endPosition };
}

export function headOf(path: string): string {
  const i = path.indexOf('.');
  return i < 0 ? path : path.slice(0, i);
}

export abstract class ExtractorBase {
  protected readonly entities: ExtractedEntity[] = [];
  protected readonly members: ExtractedEntity[] = [];
  protected readonly refs: RawRef[] = [];
  protected readonly imports: ImportBinding[] = [];
  protected readonly attrTypes: AttrType[] = [];
  /** Argument types at call sites, decided with the references at the end of the file. */
  protected readonly callArgs: CallArgs[] = [];
  /** Attribute types recorded in this walk, with the scope their type expression is written in. */
  protected readonly attrScopes: Array<{ a: AttrType; scope: Scope }> = [];
  /** `global x; x = Client()` in functions: typed at the end of the file, like attribute types. */
  protected readonly globalTypes: GlobalType[] = [];
  protected readonly globalScopes: Array<{ g: GlobalType; scope: Scope }> = [];
  protected readonly pending: Pending[] = [];
  protected readonly idCounts = new Map<string, number>();
  protected readonly memberIds = new Map<string, ExtractedEntity>();
  protected readonly scopes: Scope[] = [];
  /** Handler types of the enclosing `try` bodies in the current function, outermost first. */
  protected catchStack: string[][] = [];
  /** Types caught by the enclosing `except` clauses (for bare `raise`), with their alias. */
  protected exceptStack: Array<{ types: string[]; alias: string | null }> = [];
  protected module!: Scope;
  protected readonly sections: Section[] = [];
  protected section = -1;
  /** Import aliases of stdlib names the patterns know: `system` → `os`, `env` → `os.environ`. */
  protected readonly aliases = new Map<string, string>();
  /** `if isinstance(x, T):` bodies being walked: the scope and what they narrow. */
  protected readonly narrowing: Array<{ scope: Scope; types: Map<string, string> }> = [];


  constructor(
    protected readonly source: string,
    protected readonly file: string,
    protected readonly reuse?: { state?: PythonReuse },
  ) {}

  protected uniqueId(kind: CodeKind, qname: string): string {
    const base = entityId(kind, this.file, qname);
    const n = (this.idCounts.get(base) ?? 0) + 1;
    this.idCounts.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  protected docstringOf(body: Node | null): string | null {
    if (!body) return null;
    for (const c of body.namedChildren) {
      if (!c) continue;
      if (c.type === 'comment') continue;
      if (c.type === 'expression_statement' && c.namedChildCount === 1 && c.namedChild(0)?.type === 'string') {
        return docstringText(c.namedChild(0)!, this.source);
      }
      return null;
    }
    return null;
  }

  /** A class attribute (`Cls.x`) or module global (`X`), declared once at its first binding. */
  protected member(scope: Scope, name: string, at: Node): ExtractedEntity {
    const kind: CodeKind = scope.kind === 'class' ? 'attr' : 'global';
    const qname = scope.kind === 'class' ? `${scope.ent.qname}.${name}` : name;
    const id = entityId(kind, this.file, qname);
    const known = this.memberIds.get(id);
    if (known) return known;
    const line = this.source.slice(at.startIndex, Math.min(at.endIndex, at.startIndex + 200)).split('\n')[0];
    const ent: ExtractedEntity = {
      id, kind, name, qname, parent: scope.ent.id, span: span(at), nameSpan: span(at),
      signature: line, decorators: [], docstring: null, body: '',
    };
    this.memberIds.set(id, ent);
    this.members.push(ent);
    return ent;
  }

  /**
   * The callee of the call an expression's value comes from, as written (`Repo(...)` → `Repo`,
   * `await f()` → `f`); a call on a call's result is a chain (`q.where().run()` →
   * `q.where().run`), which the graph resolves step by step. Null for anything else.
   */
  protected constructed(value: Node | null, depth = 0): string | null {
    if (value?.type === 'await') value = value.namedChild(0);
    if (!value || value.type !== 'call' || depth > 8) return null;
    const f = value.childForFieldName('function');
    if (!f) return null;
    const d = dotted(f, this.source);
    if (d) return d;
    if (f.type !== 'attribute') return null;
    const inner = this.constructed(f.childForFieldName('object'), depth + 1);
    const attr = f.childForFieldName('attribute');
    // `super().m()` is looked up by its own receiver kind, never as a name `super`.
    return inner && attr && inner !== 'super' ? `${inner}().${this.text(attr)}` : null;
  }

  /**
   * Where a value comes from, as far as its type goes: the calls and names it may be, several
   * for `a or b` and `a if c else b` (`await`, parentheses looked through).
   */
  protected sources(value: Node | null, depth = 0): ValueSource[] {
    if (!value || depth > 4) return [];
    switch (value.type) {
      case 'await':
      case 'parenthesized_expression':
        return this.sources(value.namedChild(0), depth + 1);
      case 'call': {
        const c = this.constructed(value);
        return c ? [{ call: c }] : [];
      }
      case 'identifier':
      case 'attribute': {
        const d = dotted(value, this.source);
        return d ? [{ name: d }] : [];
      }
      case 'boolean_operator': {
        // `a or b` is one of them; `a and b` is b when it is anything worth typing.
        const right = this.sources(value.childForFieldName('right'), depth + 1);
        const op = value.childForFieldName('operator');
        return op && this.text(op) === 'or' ? [...this.sources(value.childForFieldName('left'), depth + 1), ...right] : right;
      }
      case 'conditional_expression':
        return [...this.sources(value.namedChild(0), depth + 1), ...this.sources(value.namedChild(2), depth + 1)];
      default:
        return [];
    }
  }

  /**
   * The type expression of a value, as written (resolved later in its scope): callees and names
   * as alternatives (`A|B`). A name counts, in a function, when it is `self`, a local or a module
   * global of this file; in a class body, any name (`response_class = HTTPResponse`); never a function
   * passed around as a value elsewhere.
   */
  protected valueType(value: Node | null, scope: Scope): string | null {
    const types = new Set<string>();
    for (const src of this.sources(value)) {
      if ('call' in src) types.add(src.call);
      else if (this.typableName(src.name, scope)) types.add(src.name);
    }
    types.delete('');
    return types.size && types.size <= 3 ? [...types].join('|') : null;
  }

  /** The type expressions of a call's arguments (`CallArgs.args`); undefined when it passes none. */
  protected argTypes(args: Node | null, scope: Scope): string[] | undefined {
    const out: string[] = [];
    for (const a of args?.namedChildren ?? []) {
      if (!a || a.type === 'comment') continue;
      if (a.type === 'list_splat' || a.type === 'dictionary_splat') out.push('*');
      else if (a.type === 'keyword_argument') {
        const n = a.childForFieldName('name');
        if (n) out.push(`${this.text(n)}=${this.valueType(a.childForFieldName('value'), scope) ?? ''}`);
      } else out.push(this.valueType(a, scope) ?? '');
    }
    return out.length ? out : undefined;
  }

  protected typableName(name: string, scope: Scope): boolean {
    // A module global that is another name is an alias (`ExtractedEntity.alias`), not a type.
    if (scope.kind === 'module') return false;
    if (scope.kind === 'class') return true;
    const head = headOf(name);
    const b = bindName(scope, head);
    return b.kind !== 'name' || this.memberIds.has(entityId('global', this.file, head));
  }

  /**
   * A type for attribute `attr` of class `cls`, written in `scope`: made resolvable from the
   * class (locals replaced by their types) at the end of the file, when every local is known.
   */
  protected attrType(scope: Scope, cls: string, attr: string, type: string): void {
    const a: AttrType = { cls, attr, type };
    this.attrTypes.push(a);
    this.attrScopes.push({ a, scope });
  }

  protected globalType(scope: Scope, name: string, type: string): void {
    const g: GlobalType = { name, type };
    this.globalTypes.push(g);
    this.globalScopes.push({ g, scope });
  }

  protected config(scope: Scope, kind: 'env' | 'settings' | 'file', target: string, at: Node): void {
    this.refs.push({ from: scope.ent.id, relation: 'READS_CONFIG', target, configKind: kind, span: span(at) });
  }

  protected defer(scope: Scope, relation: Pending['relation'], path: string, at: Node, mode?: Pending['mode']): void {
    const catches = relation === 'CALLS' || relation === 'PROPAGATES_ERROR' ? this.catches() : undefined;
    this.pending.push(pending(scope, relation, path, span(at), catches, mode, this.section, undefined, this.narrowedIn(scope)));
  }

  /** A call on what `callee(...)` returns; the callee's own first name is bound at the end. */
  protected deferTyped(scope: Scope, callee: string, member: string, at: Node): void {
    this.pending.push(pending(scope, 'CALLS', callee, span(at), this.catches(), undefined, this.section, member, this.narrowedIn(scope)));
  }

  /** The `isinstance` narrowings in force for `scope` (innermost wins), or undefined. */
  protected narrowedIn(scope: Scope): Map<string, string> | undefined {
    let out: Map<string, string> | undefined;
    for (const n of this.narrowing) {
      if (n.scope !== scope) continue;
      out ??= new Map();
      for (const [k, v] of n.types) out.set(k, v);
    }
    return out;
  }

  /**
   * What a condition says of names' types: when it holds (`holds`), or when it fails.
   * `isinstance(x, T)` holds: x is a T (a tuple of classes gives alternatives); `a and b` holds,
   * or `a or b` fails: both parts say it; `x is None or isinstance(x, T)` holds (the `assert`
   * idiom): x, if anything, is a T; `not c` swaps holding and failing.
   */
  protected isinstanceTypes(cond: Node | null, holds: boolean): Map<string, string> {
    const out = new Map<string, string>();
    const isNone = (n: Node | null) => !!n && n.type === 'comparison_operator' && /^\w+\s+is\s+None$/.test(this.text(n));
    const visit = (n: Node | null, neg: boolean, depth: number): void => {
      if (!n || depth > 6) return;
      if (n.type === 'parenthesized_expression') return visit(n.namedChild(0), neg, depth + 1);
      if (n.type === 'not_operator') return visit(n.childForFieldName('argument'), !neg, depth + 1);
      if (n.type === 'boolean_operator') {
        const op = n.childForFieldName('operator');
        const word = op ? this.text(op) : '';
        const l = n.childForFieldName('left');
        const r = n.childForFieldName('right');
        if ((word === 'and' && !neg) || (word === 'or' && neg)) {
          visit(l, neg, depth + 1);
          visit(r, neg, depth + 1);
        } else if (word === 'or' && !neg) {
          if (isNone(l)) visit(r, neg, depth + 1);
          else if (isNone(r)) visit(l, neg, depth + 1);
        }
        return;
      }
      if (neg || n.type !== 'call') return;
      const fn = n.childForFieldName('function');
      if (!fn || fn.type !== 'identifier' || this.text(fn) !== 'isinstance') return;
      const args = n.childForFieldName('arguments')?.namedChildren.filter((a): a is Node => !!a && a.type !== 'comment') ?? [];
      if (args.length !== 2 || args[0].type !== 'identifier') return;
      const classes = args[1].type === 'tuple' ? args[1].namedChildren : [args[1]];
      const names = classes.map((c) => (c ? dotted(c, this.source) : null));
      if (!names.length || names.length > 3 || names.some((x) => !x)) return;
      out.set(this.text(args[0]), names.join('|'));
    };
    visit(cond, !holds, 0);
    return out;
  }

  protected catches(): string[] | undefined {
    if (!this.catchStack.length) return undefined;
    const out: string[] = [];
    for (let i = this.catchStack.length - 1; i >= 0; i--) out.push(...this.catchStack[i]);
    return out;
  }

  /** `system.environ` → `os.environ` when `import os as system`. */
  protected canonical(path: string): string {
    if (!this.aliases.size) return path;
    const dot = path.indexOf('.');
    const head = dot < 0 ? path : path.slice(0, dot);
    const full = this.aliases.get(head);
    return full ? full + (dot < 0 ? '' : path.slice(dot)) : path;
  }

  protected text(n: Node): string {
    return this.source.slice(n.startIndex, n.endIndex);
  }

  protected stringValue(n: Node): string | null {
    if (n.namedChildren.some((c) => c?.type === 'interpolation')) return null;
    return stringContent(n, this.source);
  }

  protected word(w: string, scope: Scope): void {
    if (scope.words.size < MAX_BODY_WORDS * 2) scope.words.add(w);
  }

  protected wordsOf(path: string, scope: Scope): void {
    // As `word` for each dotted segment, without splitting once the scope has its fill.
    for (let i = 0; scope.words.size < MAX_BODY_WORDS * 2; ) {
      const dot = path.indexOf('.', i);
      scope.words.add(dot < 0 ? path.slice(i) : path.slice(i, dot));
      if (dot < 0) return;
      i = dot + 1;
    }
  }

  protected abstract bindPattern(node: Node | null, scope: Scope): void;
  protected abstract block(node: Node, scope: Scope): void;
  protected abstract blocksOf(node: Node, scope: Scope, skipFields: string[]): void;
  protected abstract expr(node: Node | null, scope: Scope): void;
}
