// Definitions and the statements that shape scopes and errors: def/class headers, parameters,
// imports, try/except and raise.
import type { SyntaxNode as Node } from '../../parse/syntax-copy';
import type { CodeKind, ExtractedEntity } from '../types';
import { newScope, setType, type Scope } from './scope';
import { dotted, elementTypeName, headerText, typeName } from './text';
import { CONTAINER_TYPE } from '../types';
import { ExtractorBase } from './base';
import { span } from './base';

const FIXTURE_DECORATOR = /^(?:pytest\.|pytest_asyncio\.)?fixture\b/;

export abstract class DefinitionWalker extends ExtractorBase {
  protected definition(node: Node, scope: Scope, decorators: Node[], outer: Node): void {
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
    const returnType = isClass ? null : node.childForFieldName('return_type');
    // A container of one class (`-> list[Param]`, `-> Iterator["Signer"]`) is recorded as `[]Param`:
    // no class itself, but what `for p in self.params()` binds.
    const elems = returnType ? elementTypeName(returnType, this.source) : null;
    const annotated = typeName(returnType, this.source) ?? (elems ? `${CONTAINER_TYPE}${elems}` : null);
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

  protected classHeader(node: Node, ent: ExtractedEntity, outer: Scope, inner: Scope): void {
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

  protected parameters(node: Node, ent: ExtractedEntity, decorators: string[], outer: Scope, inner: Scope): void {
    const params = node.childForFieldName('parameters');
    let first = true;
    /** Position among the arguments a call passes (the instance not counted), until `*`. */
    let position = 0;
    let keywordOnly = false;
    // pytest passes a test's (and a fixture's) plain parameters by fixture name.
    inner.fixture = decorators.some((d) => FIXTURE_DECORATOR.test(d));
    const inTestClass = outer.kind === 'class' && outer.ent.name.startsWith('Test');
    const testLike = inner.fixture || (ent.name.startsWith('test') && (outer.kind === 'module' || inTestClass));
    for (const p of params?.namedChildren ?? []) {
      if (!p) continue;
      let name: string | null = null;
      let type: string | null = null;
      let elem: string | null = null;
      switch (p.type) {
        case 'identifier':
          name = this.text(p);
          break;
        case 'typed_parameter':
          name = p.namedChild(0)?.type === 'identifier' ? this.text(p.namedChild(0)!) : null;
          type = typeName(p.childForFieldName('type'), this.source);
          elem = elementTypeName(p.childForFieldName('type'), this.source);
          if (!name) this.bindPattern(p.namedChild(0), inner);
          break;
        case 'default_parameter':
        case 'typed_default_parameter': {
          const n = p.childForFieldName('name');
          name = n?.type === 'identifier' ? this.text(n) : null;
          const value = p.childForFieldName('value');
          // Unannotated, a parameter has the type of its default (`policy=compat32`,
          // `repo=Repo()`); `None` says nothing.
          type = typeName(p.childForFieldName('type'), this.source) ?? this.defaultType(value);
          elem = elementTypeName(p.childForFieldName('type'), this.source);
          this.expr(value, outer);
          break;
        }
        case 'list_splat_pattern':
        case 'dictionary_splat_pattern':
          this.bindPattern(p.namedChild(0), inner);
          break;
        default:
          break;
      }
      if (name && !type && testLike && !(first && ent.kind === 'method') && p.type === 'identifier') type = `fixture:${name}`;
      if (name) {
        inner.locals.add(name);
        if (type) setType(inner, name, type);
        if (elem) inner.elems.set(name, elem);
        if (first && ent.kind === 'method') {
          const isStatic = decorators.includes('staticmethod');
          const isClassMethod = decorators.includes('classmethod') || ['__new__', '__init_subclass__', '__class_getitem__'].includes(ent.name);
          // A helper def in a class body whose first parameter is not `self` (a decorator used
          // at class level) is not a method call target of its own class.
          if (isClassMethod) inner.clsName = name;
          else if (!isStatic && (name === 'self' || decorators.length > 0)) inner.selfName = name;
        }
      }
      const selfish = first && !!name && (inner.selfName === name || inner.clsName === name);
      // Plain, it takes the type every caller passes (resolved by the graph from call sites).
      if (name && !type && !selfish && (p.type === 'identifier' || p.type === 'default_parameter') && !inner.types.has(name)) {
        setType(inner, name, `param:${ent.qname}:${keywordOnly ? -1 : position}:${name}`);
      }
      if (p.type === 'list_splat_pattern' || p.type === 'keyword_separator' || p.type === 'dictionary_splat_pattern') keywordOnly = true;
      else if (name && !selfish) position++;
      if (p.type !== 'keyword_separator' && p.type !== 'positional_separator') first = false;
    }
  }

  /** The type expression of a parameter's default value: a call's callee or a dotted name. */
  protected defaultType(value: Node | null): string | null {
    const src = this.sources(value);
    if (src.length !== 1) return null;
    return 'call' in src[0] ? src[0].call : src[0].name;
  }

  protected importStatement(node: Node, scope: Scope): void {
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

  protected tryStatement(node: Node, scope: Scope): void {
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

  protected exceptTypes(clause: Node): { types: string[]; alias: string | null } {
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

  protected raise(node: Node, scope: Scope): void {
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
}
