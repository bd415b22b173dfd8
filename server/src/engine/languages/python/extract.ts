// One pass over a Python syntax tree: entities (module, classes, functions, methods, class
// attributes, module globals) and raw references (calls, bases, imports, mutations, config
// reads, raises). References are finalised at the end of the file, once every scope knows all
// of its local names (Python decides locality by any assignment in the function).
import type { Node, Tree } from 'web-tree-sitter';
import { entityId } from '../../../../../protocol';
import type { AttrType, CodeKind, ExtractedEntity, FileExtraction, ImportBinding, RawRef, Span } from '../types';
import { moduleName } from './names';
import { CONFIG_FILE, CONSTANT, ENV_CALLS, ENV_MAPPINGS, MUTATORS, SETTINGS_NAMES } from './patterns';
import { bindName, newScope, setType, type Scope } from './scope';
import { cleandoc, docstringText, dotted, headerText, typeName } from './text';

const MAX_BODY_WORDS = 60;
const TOP_DEFS = new Set(['function_definition', 'class_definition', 'decorated_definition']);

function shift(sp: Span, delta: number): Span {
  return { start: { row: sp.start.row + delta, column: sp.start.column }, end: { row: sp.end.row + delta, column: sp.end.column } };
}

/** A reference whose receiver is decided at the end of the file. */
interface Pending {
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
}

/** What one top-level definition contributed: reused as is when its text has not changed. */
interface Section {
  text: string;
  row: number;
  column: number;
  entities: ExtractedEntity[];
  members: ExtractedEntity[];
  refs: RawRef[];
  attrTypes: AttrType[];
  reusable: boolean;
}

/**
 * Carried from one extraction of a buffer to the next: the sections of the previous text and
 * the module-level context their references were finalised in.
 */
export interface PythonReuse {
  context: string;
  sections: Map<string, Section>;
}

function span(n: Node): Span {
  const s = n.startPosition;
  const e = n.endPosition;
  return { start: { row: s.row, column: s.column }, end: { row: e.row, column: e.column } };
}

function headOf(path: string): string {
  const i = path.indexOf('.');
  return i < 0 ? path : path.slice(0, i);
}

export class PythonExtractor {
  private readonly entities: ExtractedEntity[] = [];
  private readonly members: ExtractedEntity[] = [];
  private readonly refs: RawRef[] = [];
  private readonly imports: ImportBinding[] = [];
  private readonly attrTypes: AttrType[] = [];
  private readonly pending: Pending[] = [];
  private readonly idCounts = new Map<string, number>();
  private readonly memberIds = new Map<string, ExtractedEntity>();
  private readonly scopes: Scope[] = [];
  /** Handler types of the enclosing `try` bodies in the current function, outermost first. */
  private catchStack: string[][] = [];
  /** Types caught by the enclosing `except` clauses (for bare `raise`), with their alias. */
  private exceptStack: Array<{ types: string[]; alias: string | null }> = [];
  private module!: Scope;
  private readonly sections: Section[] = [];
  private section = -1;
  /** Import aliases of stdlib names the patterns know: `system` → `os`, `env` → `os.environ`. */
  private readonly aliases = new Map<string, string>();

  constructor(
    private readonly source: string,
    private readonly file: string,
    private readonly reuse?: { state?: PythonReuse },
  ) {}

  run(tree: Tree): FileExtraction {
    const root = tree.rootNode;
    const modName = moduleName(this.file);
    const name = modName ? modName.slice(modName.lastIndexOf('.') + 1) : this.file.replace(/^.*\//, '').replace(/\.\w+$/, '');
    const modEnt: ExtractedEntity = {
      id: entityId('module', this.file, name),
      kind: 'module',
      name,
      qname: name,
      parent: null,
      span: span(root),
      nameSpan: { start: { row: 0, column: 0 }, end: { row: 0, column: 0 } },
      signature: `module ${modName ?? name}`,
      decorators: [],
      docstring: this.docstringOf(root),
      body: '',
    };
    this.entities.push(modEnt);
    this.module = newScope(modEnt, 'module', null);
    this.scopes.push(this.module);
    const previous = this.reuse?.state;
    const reused: Array<{ node: Node; section: Section }> = [];
    const defs = root.namedChildren.filter((c): c is Node => !!c && TOP_DEFS.has(c.type));
    const names = defs.map((d) => this.defName(d));
    const unique = new Set(names).size === names.length;
    for (const c of root.namedChildren) {
      if (!c) continue;
      if (!TOP_DEFS.has(c.type)) {
        this.statement(c, this.module);
        continue;
      }
      const text = this.source.slice(c.startIndex, c.endIndex);
      const old = unique ? previous?.sections.get(text) : undefined;
      if (old && old.reusable && old.column === c.startPosition.column) {
        reused.push({ node: c, section: old });
        continue;
      }
      this.walkSection(c, text);
    }
    // References of a reused definition were finalised against the module context of the
    // previous text (module-level types and aliases): if that moved, extract them afresh.
    const context = this.moduleContext();
    for (const { node, section } of reused) {
      if (previous && previous.context === context) this.replay(section, node.startPosition.row - section.row);
      else this.walkSection(node, this.source.slice(node.startIndex, node.endIndex));
    }
    this.finish();
    if (this.reuse) {
      const sections = new Map<string, Section>();
      for (const sec of this.sections) sections.set(sec.text, sec);
      this.reuse.state = { context, sections };
    }
    let syntaxErrors = 0;
    if (root.hasError) syntaxErrors = Math.max(1, root.descendantsOfType('ERROR').length);
    return {
      file: this.file,
      language: 'python',
      // Members first: where a method and an attribute share a name, the method wins lookups.
      entities: [modEnt, ...this.members, ...this.entities.slice(1)],
      refs: this.refs,
      imports: this.imports,
      attrTypes: this.attrTypes,
      syntaxErrors,
    };
  }

  // --- reuse of unchanged top-level definitions ---------------------------------------------

  private defName(node: Node): string {
    const def = node.type === 'decorated_definition' ? node.childForFieldName('definition') : node;
    const n = def?.childForFieldName('name');
    return n ? this.text(n) : '';
  }

  private walkSection(node: Node, text: string): void {
    const sec: Section = { text, row: node.startPosition.row, column: node.startPosition.column, entities: [], members: [], refs: [], attrTypes: [], reusable: true };
    const marks = { e: this.entities.length, m: this.members.length, r: this.refs.length, a: this.attrTypes.length, i: this.imports.length };
    this.section = this.sections.length;
    this.sections.push(sec);
    this.statement(node, this.module);
    this.section = -1;
    sec.entities = this.entities.slice(marks.e);
    sec.members = this.members.slice(marks.m);
    sec.refs = this.refs.slice(marks.r);
    sec.attrTypes = this.attrTypes.slice(marks.a);
    // Imports inside a definition change the module's aliases: never replay those blindly.
    sec.reusable = this.imports.length === marks.i && !sec.entities.some((e) => e.id.includes('#'));
  }

  /** Puts a previous section's output in, moved `delta` rows. */
  private replay(old: Section, delta: number): void {
    const move = <T extends { span: Span }>(x: T): T => (delta ? { ...x, span: shift(x.span, delta) } : { ...x });
    const sec: Section = { ...old, row: old.row + delta, entities: [], members: [], refs: [], attrTypes: old.attrTypes };
    sec.entities = old.entities.map((e) => ({ ...move(e), nameSpan: delta ? shift(e.nameSpan, delta) : e.nameSpan }));
    sec.members = old.members.map((e) => ({ ...move(e), nameSpan: delta ? shift(e.nameSpan, delta) : e.nameSpan }));
    sec.refs = old.refs.map(move);
    for (const e of sec.entities) this.idCounts.set(e.id, 1);
    for (const m of sec.members) this.memberIds.set(m.id, m);
    this.entities.push(...sec.entities);
    this.members.push(...sec.members);
    this.refs.push(...sec.refs);
    this.attrTypes.push(...sec.attrTypes);
    this.sections.push(sec);
  }

  private moduleContext(): string {
    return JSON.stringify([[...this.module.types], [...this.aliases]]);
  }

  // --- entities ------------------------------------------------------------------------------

  private uniqueId(kind: CodeKind, qname: string): string {
    const base = entityId(kind, this.file, qname);
    const n = (this.idCounts.get(base) ?? 0) + 1;
    this.idCounts.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  private docstringOf(body: Node | null): string | null {
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
  private member(scope: Scope, name: string, at: Node): ExtractedEntity {
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

  private definition(node: Node, scope: Scope, decorators: Node[], outer: Node): void {
    const isClass = node.type === 'class_definition';
    const nameNode = node.childForFieldName('name');
    const body = node.childForFieldName('body');
    const name = nameNode ? this.source.slice(nameNode.startIndex, nameNode.endIndex) : '';
    if (!name) {
      if (body) this.block(body, scope);
      return;
    }
    const qname = scope.kind === 'module' ? name : `${scope.ent.qname}.${name}`;
    const kind: CodeKind = isClass ? 'class' : scope.kind === 'class' ? 'method' : 'function';
    const decoTexts = decorators.map((d) => {
      const e = d.namedChild(0);
      return e ? this.source.slice(e.startIndex, e.endIndex) : '';
    });
    const ent: ExtractedEntity = {
      id: this.uniqueId(kind, qname),
      kind, name, qname,
      parent: scope.ent.id,
      span: span(outer),
      nameSpan: span(nameNode!),
      signature: headerText(node, body, this.source),
      decorators: decoTexts,
      docstring: this.docstringOf(body),
      body: '',
    };
    const annotated = isClass ? null : typeName(node.childForFieldName('return_type'), this.source);
    if (annotated) ent.returns = annotated;
    this.entities.push(ent);
    // A nested def is not added to locals: name resolution finds it in its enclosing scope.
    // Decorators run in the enclosing scope; a bare `@name` is a call of `name` with the function.
    for (const d of decorators) {
      const e = d.namedChild(0);
      const path = e && (e.type === 'identifier' || e.type === 'attribute') ? dotted(e, this.source) : null;
      if (path) {
        this.wordsOf(path, scope);
        this.defer(scope, 'CALLS', path, e!.type === 'attribute' ? e!.childForFieldName('attribute')! : e!);
      } else this.expr(e, scope);
    }
    const inner = newScope(ent, isClass ? 'class' : 'function', scope);
    this.scopes.push(inner);
    if (isClass) this.classHeader(node, ent, scope, inner);
    else this.parameters(node, ent, decoTexts, scope, inner);
    const savedCatch = this.catchStack;
    const savedExcept = this.exceptStack;
    if (!isClass) {
      this.catchStack = [];
      this.exceptStack = [];
    }
    if (body) this.block(body, inner);
    this.catchStack = savedCatch;
    this.exceptStack = savedExcept;
  }

  private classHeader(node: Node, ent: ExtractedEntity, outer: Scope, inner: Scope): void {
    const bases: string[] = [];
    const sup = node.childForFieldName('superclasses');
    for (const arg of sup?.namedChildren ?? []) {
      if (!arg) continue;
      if (arg.type === 'keyword_argument') {
        this.expr(arg.childForFieldName('value'), outer);
        continue;
      }
      const head = arg.type === 'subscript' ? arg.childForFieldName('value') : arg;
      const d = head ? dotted(head, this.source) : null;
      if (d) {
        bases.push(d);
        this.refs.push({ from: ent.id, relation: 'INHERITS', target: d, span: span(arg) });
      } else this.expr(arg, outer);
    }
    ent.bases = bases;
    void inner;
  }

  private parameters(node: Node, ent: ExtractedEntity, decorators: string[], outer: Scope, inner: Scope): void {
    const params = node.childForFieldName('parameters');
    let first = true;
    for (const p of params?.namedChildren ?? []) {
      if (!p) continue;
      let name: string | null = null;
      let type: string | null = null;
      switch (p.type) {
        case 'identifier':
          name = this.text(p);
          break;
        case 'typed_parameter':
          name = p.namedChild(0)?.type === 'identifier' ? this.text(p.namedChild(0)!) : null;
          type = typeName(p.childForFieldName('type'), this.source);
          if (!name) this.bindPattern(p.namedChild(0), inner);
          break;
        case 'default_parameter':
        case 'typed_default_parameter': {
          const n = p.childForFieldName('name');
          name = n?.type === 'identifier' ? this.text(n) : null;
          type = typeName(p.childForFieldName('type'), this.source);
          this.expr(p.childForFieldName('value'), outer);
          break;
        }
        case 'list_splat_pattern':
        case 'dictionary_splat_pattern':
          this.bindPattern(p.namedChild(0), inner);
          break;
        default:
          break;
      }
      if (name) {
        inner.locals.add(name);
        if (type) setType(inner, name, type);
        if (first && ent.kind === 'method') {
          const isStatic = decorators.includes('staticmethod');
          const isClassMethod = decorators.includes('classmethod') || ['__new__', '__init_subclass__', '__class_getitem__'].includes(ent.name);
          // A helper def in a class body whose first parameter is not `self` (a decorator used
          // at class level) is not a method call target of its own class.
          if (isClassMethod) inner.clsName = name;
          else if (!isStatic && (name === 'self' || decorators.length > 0)) inner.selfName = name;
        }
      }
      if (p.type !== 'keyword_separator' && p.type !== 'positional_separator') first = false;
    }
  }

  // --- statements ----------------------------------------------------------------------------

  private block(node: Node, scope: Scope): void {
    for (const c of node.namedChildren) if (c) this.statement(c, scope);
  }

  private statement(node: Node, scope: Scope): void {
    switch (node.type) {
      case 'function_definition':
      case 'class_definition':
        this.definition(node, scope, [], node);
        return;
      case 'decorated_definition': {
        const def = node.childForFieldName('definition');
        const decos = node.namedChildren.filter((c): c is Node => !!c && c.type === 'decorator');
        if (def) this.definition(def, scope, decos, node);
        return;
      }
      case 'expression_statement':
        for (const c of node.namedChildren) if (c) this.exprStatement(c, scope);
        return;
      case 'import_statement':
      case 'import_from_statement':
      case 'future_import_statement':
        this.importStatement(node, scope);
        return;
      case 'global_statement':
      case 'nonlocal_statement':
        for (const c of node.namedChildren) if (c?.type === 'identifier') scope.globals.add(this.text(c));
        return;
      case 'delete_statement':
        for (const t of node.namedChildren) {
          if (!t) continue;
          const targets = t.type === 'expression_list' ? t.namedChildren : [t];
          for (const x of targets) if (x) this.mutationTarget(x, scope, null, true);
        }
        return;
      case 'raise_statement':
        this.raise(node, scope);
        return;
      case 'return_statement': {
        const value = node.namedChild(0);
        if (scope.kind === 'function' && value && value.type !== 'none') {
          const callee = this.constructed(value);
          if (callee) scope.returns.push({ call: callee });
          else if (value.type === 'identifier') scope.returns.push({ name: this.text(value) });
          else scope.returns.push({ other: true });
        }
        this.expr(value, scope);
        return;
      }
      case 'try_statement':
        this.tryStatement(node, scope);
        return;
      case 'for_statement':
        this.bindPattern(node.childForFieldName('left'), scope);
        this.expr(node.childForFieldName('right'), scope);
        this.blocksOf(node, scope, ['left', 'right']);
        return;
      case 'with_statement':
        for (const c of node.namedChildren) {
          if (!c) continue;
          if (c.type === 'with_clause') {
            for (const item of c.namedChildren) if (item) this.withItem(item, scope);
          } else if (c.type === 'block') this.block(c, scope);
        }
        return;
      case 'comment':
      case 'pass_statement':
      case 'break_statement':
      case 'continue_statement':
        return;
      default:
        this.blocksOf(node, scope, []);
    }
  }

  /** Compound statements (if/while/match/ERROR...): blocks as statements, the rest as expressions. */
  private blocksOf(node: Node, scope: Scope, skipFields: string[]): void {
    const skip = skipFields.map((f) => node.childForFieldName(f)?.id);
    for (const c of node.namedChildren) {
      if (!c || skip.includes(c.id)) continue;
      const t = c.type;
      if (t === 'block') this.block(c, scope);
      else if (t.endsWith('_clause') || t === 'ERROR') this.blocksOf(c, scope, []);
      else if (t.endsWith('_statement') || t.endsWith('_definition')) this.statement(c, scope);
      else if (t === 'case_pattern') continue;
      else this.exprStatement(c, scope);
    }
  }

  private exprStatement(node: Node, scope: Scope): void {
    switch (node.type) {
      case 'assignment':
        this.assignment(node, scope);
        return;
      case 'augmented_assignment': {
        const left = node.childForFieldName('left');
        this.expr(node.childForFieldName('right'), scope);
        if (left) this.mutationTarget(left, scope, null, true);
        return;
      }
      default:
        this.expr(node, scope);
    }
  }

  private assignment(node: Node, scope: Scope): void {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    const annotation = node.childForFieldName('type');
    // Chained `a = b = value`: the right side is itself an assignment.
    if (right?.type === 'assignment') this.assignment(right, scope);
    else this.expr(right, scope);
    if (!left) return;
    const rightType = typeName(annotation, this.source) ?? this.constructed(right) ?? this.nameType(right, scope);
    this.mutationTarget(left, scope, rightType, false);
    if (scope.kind === 'module' && left.type === 'identifier') {
      // What a module global is, for other files: another name, or an instance built by a call.
      const g = this.memberIds.get(entityId('global', this.file, this.text(left)));
      if (g && g.nameSpan.start.row === left.startPosition.row && g.nameSpan.start.column === left.startPosition.column) {
        const alias = right && (right.type === 'identifier' || right.type === 'attribute') ? dotted(right, this.source) : null;
        if (alias) g.alias = alias;
        else if (rightType) g.returns = rightType;
      }
    }
  }

  /** The class an expression constructs, as written (`Repo(...)` → `Repo`); null otherwise. */
  private constructed(value: Node | null): string | null {
    if (!value || value.type !== 'call') return null;
    const f = value.childForFieldName('function');
    return f ? dotted(f, this.source) : null;
  }

  /** The known type of a plain name (`self.repo = repo` where `repo: Repo` is a parameter). */
  private nameType(value: Node | null, scope: Scope): string | null {
    if (!value || value.type !== 'identifier') return null;
    const b = bindName(scope, this.text(value));
    return b.kind === 'typed' ? b.type : null;
  }

  /** An assignment/del/augmented target: binds locals, declares members, records mutations. */
  private mutationTarget(t: Node, scope: Scope, type: string | null, inPlace: boolean): void {
    switch (t.type) {
      case 'identifier': {
        const name = this.text(t);
        if (scope.kind === 'module') {
          this.member(scope, name, t);
          setType(scope, name, type);
        } else if (scope.kind === 'class') {
          this.member(scope, name, t);
          if (type) this.attrTypes.push({ cls: scope.ent.id, attr: name, type });
        } else if (scope.globals.has(name)) {
          this.defer(scope, 'MUTATES', name, t, 'globalOnly');
        } else {
          if (!inPlace) scope.locals.add(name);
          setType(scope, name, type);
        }
        return;
      }
      case 'attribute': {
        const path = dotted(t, this.source);
        if (!path) {
          this.expr(t.childForFieldName('object'), scope);
          return;
        }
        this.wordsOf(path, scope);
        const head = headOf(path);
        const b = bindName(scope, head);
        const segs = path.split('.');
        if (b.kind === 'self' && segs.length === 2 && scope.kind === 'function') {
          // `self.x = …` declares attribute x of the class (and types it when constructed).
          this.member(b.scope, segs[1], t);
          if (type) this.attrTypes.push({ cls: b.scope.ent.id, attr: segs[1], type });
        }
        if (scope.kind !== 'module' || b.kind !== 'name') this.defer(scope, 'MUTATES', path, t);
        return;
      }
      case 'subscript': {
        this.expr(t.childForFieldName('subscript'), scope);
        const value = t.childForFieldName('value');
        if (!value) return;
        this.containerMutation(value, t, scope);
        return;
      }
      case 'pattern_list':
      case 'tuple_pattern':
      case 'list_pattern':
      case 'tuple':
      case 'list':
      case 'expression_list':
        for (const c of t.namedChildren) if (c) this.mutationTarget(c, scope, null, inPlace);
        return;
      case 'list_splat_pattern':
      case 'parenthesized_expression':
        if (t.namedChild(0)) this.mutationTarget(t.namedChild(0)!, scope, null, inPlace);
        return;
      default:
        this.expr(t, scope);
    }
  }

  /** `x[k] = v`, `x.append(v)`: mutates x when x is an attribute of self/a typed object or a global. */
  private containerMutation(container: Node, site: Node, scope: Scope): void {
    if (scope.kind === 'module') {
      this.expr(container, scope);
      return;
    }
    const path = dotted(container, this.source);
    if (!path) {
      this.expr(container, scope);
      return;
    }
    this.wordsOf(path, scope);
    if (path.includes('.')) this.defer(scope, 'MUTATES', path, site);
    else this.defer(scope, 'MUTATES', path, site, 'container');
  }

  private withItem(item: Node, scope: Scope): void {
    const value = item.childForFieldName('value');
    if (value?.type === 'as_pattern') {
      const inner = value.namedChild(0);
      this.expr(inner, scope);
      const target = value.childForFieldName('alias')?.namedChild(0) ?? null;
      if (target?.type === 'identifier') {
        const name = this.text(target);
        scope.locals.add(name);
        setType(scope, name, this.constructed(inner));
      } else this.bindPattern(target, scope);
    } else this.expr(value, scope);
  }

  private tryStatement(node: Node, scope: Scope): void {
    const handlers: string[] = [];
    const clauses: Array<{ node: Node; types: string[]; alias: string | null }> = [];
    for (const c of node.namedChildren) {
      if (c?.type !== 'except_clause' && c?.type !== 'except_group_clause') continue;
      const { types, alias } = this.exceptTypes(c);
      handlers.push(...types);
      clauses.push({ node: c, types, alias });
    }
    for (const c of node.namedChildren) {
      if (!c) continue;
      if (c.type === 'block' && c.id === node.childForFieldName('body')?.id) {
        this.catchStack.push(handlers);
        this.block(c, scope);
        this.catchStack.pop();
      } else if (c.type === 'except_clause' || c.type === 'except_group_clause') {
        const info = clauses.find((x) => x.node.id === c.id)!;
        if (info.alias) scope.locals.add(info.alias);
        this.exceptStack.push({ types: info.types, alias: info.alias });
        for (const b of c.namedChildren) if (b?.type === 'block') this.block(b, scope);
        this.exceptStack.pop();
      } else this.blocksOf(c, scope, []);
    }
  }

  private exceptTypes(clause: Node): { types: string[]; alias: string | null } {
    let value: Node | null = clause.childForFieldName('value');
    if (!value) value = clause.namedChildren.find((c) => c && c.type !== 'block' && c.type !== 'comment') ?? null;
    if (!value) return { types: ['BaseException'], alias: null };
    let alias: string | null = null;
    if (value.type === 'as_pattern') {
      const a = value.childForFieldName('alias')?.namedChild(0);
      alias = a?.type === 'identifier' ? this.text(a) : null;
      value = value.namedChild(0);
    }
    const list = value?.type === 'tuple' || value?.type === 'parenthesized_expression' ? value.namedChildren : [value];
    const types = list.map((n) => (n ? dotted(n, this.source) : null)).filter((s): s is string => !!s);
    return { types: types.length ? types : ['BaseException'], alias };
  }

  private raise(node: Node, scope: Scope): void {
    const exc = node.namedChildren.find((c) => c && c.id !== node.childForFieldName('cause')?.id) ?? null;
    this.expr(node.childForFieldName('cause'), scope);
    const current = this.exceptStack[this.exceptStack.length - 1];
    if (!exc) {
      if (current) for (const t of current.types) this.refs.push({ from: scope.ent.id, relation: 'PROPAGATES_ERROR', target: t, span: span(node), catches: this.catches(), reraise: true });
      return;
    }
    const callee = exc.type === 'call' ? exc.childForFieldName('function') : exc;
    if (exc.type === 'call') this.expr(exc.childForFieldName('arguments'), scope);
    const path = callee ? dotted(callee, this.source) : null;
    if (!path) {
      this.expr(exc, scope);
      return;
    }
    this.wordsOf(path, scope);
    const aliased = this.exceptStack.slice().reverse().find((x) => x.alias === path);
    if (aliased) {
      for (const t of aliased.types) this.refs.push({ from: scope.ent.id, relation: 'PROPAGATES_ERROR', target: t, span: span(node), catches: this.catches(), reraise: true });
      return;
    }
    this.defer(scope, 'PROPAGATES_ERROR', path, node);
    if (exc.type === 'call') this.defer(scope, 'CALLS', path, callee!.type === 'attribute' ? callee!.childForFieldName('attribute')! : callee!);
  }

  private importStatement(node: Node, scope: Scope): void {
    // An import inside a function binds in that function only.
    const from = scope.kind === 'function' ? scope.ent.id : this.module.ent.id;
    const bind = (local: string | null, module: string, member: string | null, at: Node) => {
      this.imports.push({ from, local, module, member, span: span(at) });
      const full = member && member !== '*' ? `${module}.${member}` : module;
      if (local && local !== full && !module.startsWith('.')) this.aliases.set(local, full);
    };
    if (node.type === 'import_statement') {
      for (const n of node.namedChildren) {
        if (!n) continue;
        if (n.type === 'aliased_import') {
          const name = n.childForFieldName('name');
          const alias = n.childForFieldName('alias');
          if (name && alias) bind(this.text(alias), this.text(name), null, n);
        } else if (n.type === 'dotted_name') bind(this.text(n), this.text(n), null, n);
      }
      return;
    }
    if (node.type === 'future_import_statement') return;
    const modNode = node.childForFieldName('module_name');
    if (!modNode) return;
    const module = this.text(modNode).replace(/\s+/g, '');
    for (const n of node.namedChildren) {
      if (!n || n.id === modNode.id) continue;
      if (n.type === 'wildcard_import') bind(null, module, '*', n);
      else if (n.type === 'aliased_import') {
        const name = n.childForFieldName('name');
        const alias = n.childForFieldName('alias');
        if (name && alias) bind(this.text(alias), module, this.text(name), n);
      } else if (n.type === 'dotted_name') bind(this.text(n), module, this.text(n), n);
    }
  }

  // --- expressions ---------------------------------------------------------------------------

  private expr(node: Node | null, scope: Scope): void {
    if (!node) return;
    switch (node.type) {
      case 'identifier': {
        const name = this.text(node);
        this.word(name, scope);
        if (CONSTANT.test(name) && scope.kind !== 'module') this.defer(scope, 'READS_CONFIG', name, node, 'constant');
        return;
      }
      case 'attribute':
        this.attribute(node, scope);
        return;
      case 'call':
        this.call(node, scope);
        return;
      case 'subscript':
        this.subscript(node, scope);
        return;
      case 'string':
        // Only f-strings hold code: their `{...}` interpolations.
        for (const c of node.namedChildren) if (c?.type === 'interpolation') this.expr(c.namedChild(0), scope);
        return;
      case 'integer':
      case 'float':
      case 'true':
      case 'false':
      case 'none':
      case 'comment':
      case 'type':
        return;
      case 'keyword_argument':
        this.expr(node.childForFieldName('value'), scope);
        return;
      case 'lambda': {
        for (const p of node.childForFieldName('parameters')?.namedChildren ?? []) this.bindPattern(p, scope);
        this.expr(node.childForFieldName('body'), scope);
        return;
      }
      case 'named_expression': {
        const n = node.childForFieldName('name');
        if (n) scope.locals.add(this.text(n));
        this.expr(node.childForFieldName('value'), scope);
        return;
      }
      case 'for_in_clause':
        this.bindPattern(node.childForFieldName('left'), scope);
        this.expr(node.childForFieldName('right'), scope);
        return;
      case 'assignment':
      case 'augmented_assignment':
        this.exprStatement(node, scope);
        return;
      case 'function_definition':
      case 'class_definition':
      case 'decorated_definition':
        this.statement(node, scope);
        return;
      default:
        for (const c of node.namedChildren) if (c) this.expr(c, scope);
    }
  }

  private attribute(node: Node, scope: Scope): void {
    const path = dotted(node, this.source);
    if (!path) {
      const obj = node.childForFieldName('object');
      const a = node.childForFieldName('attribute');
      if (a) this.word(this.text(a), scope);
      const fn = obj?.type === 'call' ? obj.childForFieldName('function') : null;
      if (a && scope.kind === 'function' && fn?.type === 'identifier' && this.text(fn) === 'super') {
        this.refs.push({ from: scope.ent.id, relation: 'CALLS', target: this.text(a), receiver: { kind: 'super' }, span: span(a), access: true });
        this.expr(obj!.childForFieldName('arguments'), scope);
        return;
      }
      this.expr(obj, scope);
      return;
    }
    this.wordsOf(path, scope);
    const segs = path.split('.');
    const head = segs[0];
    if (SETTINGS_NAMES.has(head) && segs.length > 1) {
      this.config(scope, 'settings', path, node);
      return;
    }
    if (scope.kind !== 'module' && CONSTANT.test(segs[segs.length - 1]) && segs.length > 1) {
      this.defer(scope, 'READS_CONFIG', path, node, 'constant');
    }
    // Reading `self.name` / `obj.name` calls a getter when `name` is a property.
    if (scope.kind === 'function' && segs.length > 1) this.defer(scope, 'CALLS', path, node.childForFieldName('attribute') ?? node, 'access');
  }

  private subscript(node: Node, scope: Scope): void {
    const value = node.childForFieldName('value');
    const index = node.childForFieldName('subscript');
    const path = value ? dotted(value, this.source) : null;
    const key = index?.type === 'string' ? this.stringValue(index) : null;
    if (path && key !== null) {
      if (ENV_MAPPINGS.has(this.canonical(path))) {
        this.config(scope, 'env', key, node);
        return;
      }
      const last = path.slice(path.lastIndexOf('.') + 1);
      if (SETTINGS_NAMES.has(last)) {
        this.config(scope, 'settings', `${last}.${key}`, node);
        return;
      }
    }
    this.expr(value, scope);
    this.expr(index, scope);
  }

  private call(node: Node, scope: Scope): void {
    const fn = node.childForFieldName('function');
    const args = node.childForFieldName('arguments');
    const firstArg = args?.namedChildren.find((a) => a && a.type !== 'comment') ?? null;
    const literal = firstArg?.type === 'string' ? this.stringValue(firstArg) : null;
    if (literal !== null && CONFIG_FILE.test(literal)) this.config(scope, 'file', literal, firstArg!);
    this.expr(args, scope);
    if (!fn) return;
    if (fn.type === 'identifier' || fn.type === 'attribute') {
      const path = dotted(fn, this.source);
      const nameNode = fn.type === 'attribute' ? fn.childForFieldName('attribute') : fn;
      if (path && nameNode) {
        this.wordsOf(path, scope);
        if (literal !== null && ENV_CALLS.has(this.canonical(path))) this.config(scope, 'env', literal, node);
        const dot = path.lastIndexOf('.');
        if (dot > 0) {
          const obj = path.slice(0, dot);
          const method = path.slice(dot + 1);
          const objLast = obj.slice(obj.lastIndexOf('.') + 1);
          if (method === 'get' && SETTINGS_NAMES.has(objLast) && literal !== null) this.config(scope, 'settings', `${objLast}.${literal}`, node);
          if (MUTATORS.has(method)) this.containerMutation(fn.childForFieldName('object')!, node, scope);
        }
        this.defer(scope, 'CALLS', path, nameNode);
        return;
      }
      if (fn.type === 'attribute') {
        const obj = fn.childForFieldName('object');
        const attr = fn.childForFieldName('attribute');
        if (attr) {
          const member = this.text(attr);
          this.word(member, scope);
          const isSuper = obj?.type === 'call' && obj.childForFieldName('function')?.type === 'identifier' && this.text(obj.childForFieldName('function')!) === 'super';
          // `Parser(...).parse()`, `self.loop().stop()`: the receiver is what that call returns.
          const made = !isSuper ? this.constructed(obj) : null;
          if (made) this.deferTyped(scope, made, member, attr);
          else this.refs.push({ from: scope.ent.id, relation: 'CALLS', target: member, receiver: isSuper ? { kind: 'super' } : { kind: 'expr' }, span: span(attr), catches: this.catches() });
          if (isSuper) {
            this.expr(obj!.childForFieldName('arguments'), scope);
            return;
          }
        }
        this.expr(obj, scope);
        return;
      }
    }
    this.expr(fn, scope);
  }

  private config(scope: Scope, kind: 'env' | 'settings' | 'file', target: string, at: Node): void {
    this.refs.push({ from: scope.ent.id, relation: 'READS_CONFIG', target, configKind: kind, span: span(at) });
  }

  /** Binds every identifier of a target pattern as a local (loop variables, lambda parameters). */
  private bindPattern(node: Node | null, scope: Scope): void {
    if (!node) return;
    if (node.type === 'identifier') {
      if (scope.kind === 'function') scope.locals.add(this.text(node));
      else if (scope.kind === 'module') this.member(scope, this.text(node), node);
      return;
    }
    if (node.type === 'attribute' || node.type === 'subscript') {
      this.mutationTarget(node, scope, null, false);
      return;
    }
    for (const c of node.namedChildren) if (c) this.bindPattern(c, scope);
  }

  // --- finishing -----------------------------------------------------------------------------

  private defer(scope: Scope, relation: Pending['relation'], path: string, at: Node, mode?: Pending['mode']): void {
    this.pending.push({ scope, relation, path, span: span(at), catches: relation === 'CALLS' || relation === 'PROPAGATES_ERROR' ? this.catches() : undefined, mode, section: this.section });
  }

  /** A call on what `callee(...)` returns; the callee's own first name is bound at the end. */
  private deferTyped(scope: Scope, callee: string, member: string, at: Node): void {
    this.pending.push({ scope, relation: 'CALLS', path: callee, span: span(at), catches: this.catches(), section: this.section, member });
  }

  private catches(): string[] | undefined {
    if (!this.catchStack.length) return undefined;
    const out: string[] = [];
    for (let i = this.catchStack.length - 1; i >= 0; i--) out.push(...this.catchStack[i]);
    return out;
  }

  /** Decides receivers now that every scope knows its locals, and emits the refs. */
  private finish(): void {
    const seenReads = new Set<string>();
    const emit = (p: Pending, ref: RawRef) => {
      this.refs.push(ref);
      if (p.section >= 0) this.sections[p.section].refs.push(ref);
    };
    for (const p of this.pending) {
      const segs = p.path.split('.');
      const b = bindName(p.scope, segs[0]);
      const rest = segs.slice(1).join('.');
      const from = p.scope.ent.id;
      const base: Omit<RawRef, 'target'> = { from, relation: p.relation, span: p.span };
      if (p.catches) base.catches = p.catches;
      if (p.member !== undefined) {
        const type = this.callType(p.scope, p.path);
        emit(p, type ? { ...base, target: p.member, receiver: { kind: 'typed', type } } : { ...base, target: p.member, receiver: { kind: 'expr' } });
        continue;
      }
      if (p.relation === 'READS_CONFIG') {
        if (b.kind !== 'name') continue;
        const key = `${from}\0${p.path}`;
        if (seenReads.has(key)) continue;
        seenReads.add(key);
        emit(p, { ...base, target: p.path, configKind: 'constant' });
        continue;
      }
      if (p.mode === 'access') {
        // Only through self or an object of known type, and not for attributes the class
        // itself assigns (those are data, not properties).
        if (b.kind === 'self' && rest && !(segs.length === 2 && this.memberIds.has(entityId('attr', this.file, `${b.scope.ent.qname}.${rest}`)))) {
          emit(p, { ...base, target: rest, receiver: { kind: 'self' }, access: true });
        } else if (b.kind === 'typed' && rest) {
          const type = this.canonicalType(p.scope, b.type);
          if (type) emit(p, { ...base, target: rest, receiver: { kind: 'typed', type }, access: true });
        }
        continue;
      }
      if (p.mode === 'globalOnly') {
        if (p.scope.globals.has(p.path)) emit(p, { ...base, target: p.path });
        continue;
      }
      switch (b.kind) {
        case 'self':
        case 'cls':
          if (!rest) {
            // `cls()` constructs the class; `self()` calls __call__; `self[k] = v` is no ref.
            if (p.relation === 'CALLS') emit(p, b.kind === 'cls' ? { ...base, target: b.scope.ent.qname } : { ...base, target: '__call__', receiver: { kind: 'self' } });
            continue;
          }
          emit(p, { ...base, target: rest, receiver: { kind: b.kind } });
          break;
        case 'typed': {
          const type = this.canonicalType(p.scope, b.type);
          if (!rest || !type) {
            if (p.relation === 'CALLS') emit(p, { ...base, target: rest ? segs[segs.length - 1] : segs[0], receiver: { kind: 'expr' } });
            continue;
          }
          emit(p, { ...base, target: rest, receiver: { kind: 'typed', type } });
          break;
        }
        case 'local':
          if (p.relation === 'CALLS') emit(p, { ...base, target: segs[segs.length - 1], receiver: { kind: 'expr' } });
          break;
        case 'name':
          if (p.mode === 'container' && p.scope.kind === 'function' && !p.scope.globals.has(p.path)) {
            // A module-level container changed in place (`REGISTRY[k] = v`).
            emit(p, { ...base, target: p.path });
            break;
          }
          emit(p, { ...base, target: p.path });
          break;
      }
    }
    for (const s of this.scopes) {
      if (s.kind === 'function' && !s.ent.returns && s.returns.length) {
        // Every type we can tell, as alternatives (`A|B`): the graph takes the first that
        // names a class. Returns we cannot type do not veto the others.
        const types = new Set(s.returns.map((r) => ('call' in r ? this.callType(s, r.call) : 'name' in r ? this.nameTypeOf(s, r.name) : null)));
        types.delete(null);
        if (types.size && types.size <= 3) s.ent.returns = [...types].join('|');
      }
      if (s.kind === 'module' || !s.words.size) continue;
      s.ent.body = [...s.words].slice(0, MAX_BODY_WORDS).join(' ');
    }
  }

  /**
   * The type expression of what calling `callee` returns, for the graph to resolve in this
   * scope: `self.m` / `cls.m` for methods of the enclosing class, `T.m` for a local of type T,
   * the class itself for `cls()`, the callee as written for other names; null when unknown.
   */
  private callType(scope: Scope, callee: string): string | null {
    const segs = callee.split('.');
    const rest = segs.slice(1).join('.');
    const b = bindName(scope, segs[0]);
    switch (b.kind) {
      case 'self':
        return rest ? `self.${rest}` : null;
      case 'cls':
        return rest ? `cls.${rest}` : b.scope.ent.qname;
      case 'typed': {
        const t = this.canonicalType(scope, b.type);
        return rest && t ? `${t}.${rest}` : null;
      }
      case 'local':
        return null;
      default:
        return callee;
    }
  }

  /**
   * A recorded type expression made resolvable outside this function: a first name that is a
   * typed local is replaced by its type (`y.make` → `T.make`); one that is an untyped local
   * makes it unknown (null), so the graph never resolves it to a same-named global.
   */
  private canonicalType(scope: Scope, type: string, depth = 0): string | null {
    const dot = type.indexOf('.');
    const head = dot < 0 ? type : type.slice(0, dot);
    const rest = dot < 0 ? '' : type.slice(dot);
    const b = bindName(scope, head);
    if (b.kind === 'local') return null;
    if (b.kind === 'typed' && depth < 3 && b.type !== type) {
      const inner = this.canonicalType(scope, b.type, depth + 1);
      return inner ? inner + rest : null;
    }
    return type;
  }

  /** The type of a returned name: `self` → its class; a local of known type → that type. */
  private nameTypeOf(scope: Scope, name: string): string | null {
    const b = bindName(scope, name);
    if (b.kind === 'self' && scope.cls) return scope.cls.ent.qname;
    if (b.kind === 'typed') return this.canonicalType(scope, b.type);
    return null;
  }

  // --- small helpers -------------------------------------------------------------------------

  /** `system.environ` → `os.environ` when `import os as system`. */
  private canonical(path: string): string {
    if (!this.aliases.size) return path;
    const dot = path.indexOf('.');
    const head = dot < 0 ? path : path.slice(0, dot);
    const full = this.aliases.get(head);
    return full ? full + (dot < 0 ? '' : path.slice(dot)) : path;
  }

  private text(n: Node): string {
    return this.source.slice(n.startIndex, n.endIndex);
  }

  private stringValue(n: Node): string | null {
    if (n.namedChildren.some((c) => c?.type === 'interpolation')) return null;
    const t = this.text(n).replace(/^[rRuUbB]{0,2}/, '');
    const q = t.startsWith('"""') || t.startsWith("'''") ? 3 : 1;
    return t.length >= 2 * q ? t.slice(q, t.length - q) : null;
  }

  private word(w: string, scope: Scope): void {
    if (scope.words.size < MAX_BODY_WORDS * 2) scope.words.add(w);
  }

  private wordsOf(path: string, scope: Scope): void {
    for (const w of path.split('.')) this.word(w, scope);
  }
}

export function extractPython(tree: Tree, source: string, file: string, reuse?: { state?: PythonReuse }): FileExtraction {
  return new PythonExtractor(source, file, reuse).run(tree);
}

export { cleandoc };
