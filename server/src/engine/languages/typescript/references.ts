// References made from inside definitions: calls and constructions, throws (caught or not),
// assignments that mutate state, configuration reads, imports and exports (ES modules and
// CommonJS). Receivers are decided here, where the locals are known: `this` in an instance
// member is `self`, in a static member `cls`; `super` is `super`; a typed local is `typed`.
import type { Node } from 'web-tree-sitter';
import type { Relation } from '../../../../../protocol';
import type { ExtractedEntity, RawRef } from '../types';
import { BUILTINS, CONFIG_FILE, INVOKERS, MUTATORS } from './names';
import { ModuleRefs } from './modules';
import { span, type Scope } from './scopes';
import { FUNCTION_VALUES, memberName, pathOf, signatureOf, stringValue, valueType } from './syntax';
import { ValueTypes } from './value-types';

/** Parents under which an ALL_CAPS identifier is not a read (declarations, imports, labels). */
const NOT_A_READ = new Set([
  'variable_declarator', 'import_specifier', 'export_specifier', 'namespace_import', 'import_clause', 'formal_parameters',
  'required_parameter', 'optional_parameter', 'labeled_statement', 'break_statement', 'continue_statement', 'enum_declaration',
  'class_declaration', 'function_declaration', 'new_expression', 'shorthand_property_identifier_pattern', 'pair_pattern',
]);

export abstract class References extends ModuleRefs {
  /** (scope, constant) pairs already recorded: one READS_CONFIG per constant per scope. */
  private readonly seenReads = new Set<string>();
  /** What values are, as type expressions, in the scopes as they stand. */
  protected readonly types = new ValueTypes(this.st);

  protected reference(capture: string, n: Node): void {
    switch (capture) {
      case 'call':
        return n.type === 'new_expression' ? this.construct(n) : this.call(n);
      case 'throw':
        return this.throwSite(n);
      case 'assign':
        return this.assignment(n);
      case 'import':
        return this.importStatement(n);
      case 'export':
        return this.exportStatement(n);
      case 'try':
        this.st.openTry(n.startIndex, n.endIndex);
        return;
      case 'catch':
        return this.catchClause(n);
      case 'const':
        return this.constant(n);
      case 'env':
        return this.env(n);
      case 'return':
        return this.returned(n);
      case 'access':
        return this.access(n);
      case 'forof':
        return this.forOf(n);
      case 'jsx': {
        // `<Item />` renders (calls) the component `Item`; lower-case tags are HTML elements.
        const path = pathOf(n);
        if (path && (/^[A-Z]/.test(path[0]) || path.length > 1)) this.callPath(path, n);
        return;
      }
    }
  }

  private push(relation: Relation, target: string, at: Node, extra: Partial<RawRef> = {}, siteNode?: Node): void {
    // A call site is the called name (`save` of `this.save()`), as editors underline it.
    const site = siteNode ?? (relation === 'CALLS' ? calledName(at) : at);
    const ref: RawRef = { from: this.st.owner().ent.id, relation, target, span: span(site), ...extra };
    if (relation === 'CALLS' || relation === 'PROPAGATES_ERROR') {
      const catches = this.st.catches(at.startIndex);
      if (catches) ref.catches = catches;
    }
    this.st.refs.push(ref);
  }

  // --- calls --------------------------------------------------------------------------------

  private call(n: Node): void {
    const fn = n.childForFieldName('function');
    if (!fn) return;
    // The first argument matters for a few callees and for literal config files: read it once.
    const args = n.childForFieldName('arguments');
    const first = args && args.namedChildCount ? args.namedChild(0) : null;
    const literal = first?.type === 'string' ? stringValue(first) : null;
    const up = n.parent?.type === 'await_expression' ? n.parent.parent : n.parent;
    const bound = up?.type === 'variable_declarator'; // `const x = require(…)`: see requireBinding
    if (fn.type === 'import') {
      // Dynamic `import('./x')` with a literal.
      if (literal !== null && !bound) this.bind(null, literal, null, n);
      return;
    }
    if (literal !== null && CONFIG_FILE.test(literal)) this.push('READS_CONFIG', literal, first!, { configKind: 'file' });
    const path = pathOf(fn);
    if (!path) {
      const m = memberName(fn);
      if (!m) return;
      // `make().m()`, `new C().m()`: a call on what the inner call returns, when that is known.
      const type = this.types.exprType(fn.childForFieldName('object'));
      this.push('CALLS', m, n, { receiver: type ? { kind: 'typed', type } : { kind: 'expr' } });
      return;
    }
    if (path.length === 1 && path[0] === 'require') {
      // `require('./x')` not bound to a name (bound ones are bindings, see requireBinding); a
      // required JSON file is a configuration read, not a module.
      if (literal !== null && !bound && !CONFIG_FILE.test(literal)) this.bind(null, literal, null, n);
      return;
    }
    if (path.length === 2 && path[0] === 'Promise' && path[1] === 'reject' && first?.type === 'new_expression') {
      const t = pathOf(first.childForFieldName('constructor'));
      if (t) this.throwTarget(t.join('.'), first);
      return;
    }
    if (path[0] === 'super' && path.length === 1) {
      // `super(…)` constructs the base: the graph takes a class to its constructor, or to the
      // class itself when it has none.
      const base = this.st.thisClass()?.cls.ent.bases?.[0];
      if (base) this.push('CALLS', base, n);
      return;
    }
    const invoked = this.invokedPath(path);
    if (invoked) return this.callPath(invoked, n, calledName(fn.childForFieldName('object') ?? fn));
    this.callPath(path, n);
    const last = path[path.length - 1];
    if (path.length >= 2 && MUTATORS.has(last)) this.mutation(path.slice(0, -1), n);
  }

  /**
   * `f.call(thisArg, …)`, `f.apply(thisArg, args)`: a call of `f`, the way older JavaScript calls
   * helpers with a `this` (`compileSchema.call(this, sch)`) and base constructors
   * (`Animal.call(this, name)`); `C.prototype.m.call(…)` calls `C`'s `m`. Not through `this`
   * itself or a local, whose own method may be named `call` (`rpc.call('ping')`).
   */
  private invokedPath(path: string[]): string[] | null {
    if (path.length < 2 || !INVOKERS.has(path[path.length - 1]) || path[0] === 'super') return null;
    if (path[0] === 'this' ? path.length === 2 : this.st.local(path[0]) !== undefined) return null;
    const callee = path.slice(0, -1);
    return callee.length >= 3 && callee[callee.length - 2] === 'prototype' ? [...callee.slice(0, -2), callee[callee.length - 1]] : callee;
  }

  /** `new C()`: a call of the class (the graph takes it to its constructor). */
  private construct(n: Node): void {
    const path = pathOf(n.childForFieldName('constructor'));
    if (path) this.callPath(path, n);
  }

  /** `for (const x of xs)`: `x` is an element of `xs`. */
  private forOf(n: Node): void {
    const left = n.childForFieldName('left');
    const scope = this.st.top;
    if (left?.type !== 'identifier' || scope.kind !== 'function' || n.childForFieldName('operator')?.type !== 'of') return;
    scope.locals.set(left.text, this.types.elementType(n.childForFieldName('right')));
  }

  /**
   * `this.x` / `obj.x` read, not called: a call of the getter `x` when there is one (the graph
   * keeps only those). Written targets and callees are not reads.
   */
  private access(n: Node): void {
    const p = n.parent;
    if (!p) return;
    if ((p.type === 'call_expression' && p.childForFieldName('function')?.id === n.id) || (p.type === 'assignment_expression' && p.childForFieldName('left')?.id === n.id)) return;
    // (`this.store.insert()` reads `this.store`: a getter call when `store` is one.)
    if (p.type === 'augmented_assignment_expression' || p.type === 'update_expression') return;
    const obj = n.childForFieldName('object');
    const prop = n.childForFieldName('property');
    if (!obj || !prop) return;
    const read = (target: string, receiver: RawRef['receiver']): void => {
      this.st.refs.push({ from: this.st.owner().ent.id, relation: 'CALLS', target, receiver, access: true, span: span(prop) });
    };
    if (obj.type === 'super') return read(prop.text, { kind: 'super' });
    // Through `this` or a typed local, at any depth (`this.st.top`, `ctx.host.store`).
    const path = pathOf(obj);
    if (!path) return;
    const target = [...path.slice(1), prop.text].join('.');
    if (path[0] === 'this') {
      const t = this.st.thisClass() ?? this.types.thisParam();
      if (t && 'cls' in t) read(target, { kind: t.isStatic ? 'cls' : 'self' });
      else if (t) read(target, { kind: 'typed', type: t.type });
      return;
    }
    const local = this.st.local(path[0]);
    if (local) read(target, { kind: 'typed', type: local });
  }

  /** `site`: the name the call underlines, when not the called name of `at` (`f` of `f.call(…)`). */
  private callPath(path: string[], at: Node, site?: Node): void {
    const call = (target: string, extra: Partial<RawRef> = {}) => this.push('CALLS', target, at, extra, site);
    const head = path[0];
    const rest = path.slice(1).join('.');
    if (head === 'this') {
      const t = this.st.thisClass();
      if (!rest) return;
      const typed = t ? null : this.types.thisParam();
      if (t) call(rest, { receiver: { kind: t.isStatic ? 'cls' : 'self' } });
      else if (typed) call(rest, { receiver: { kind: 'typed', type: typed.type } });
      else call(path[path.length - 1], { receiver: { kind: 'expr' } });
      return;
    }
    if (head === 'super') {
      if (rest) call(rest, { receiver: { kind: 'super' } });
      return;
    }
    const local = this.st.local(head);
    if (local === undefined) {
      call(path.join('.'));
      return;
    }
    if (!rest) return; // calling a local function value: unknown target
    if (local) call(rest, { receiver: { kind: 'typed', type: local } });
    else call(path[path.length - 1], { receiver: { kind: 'expr' } });
  }

  /** `return new C()`, `return this.x`, `return make()`: what an unannotated function returns, as alternatives (`A|B`). */
  private returned(n: Node): void {
    const owner = this.st.owner();
    if (owner.kind !== 'function' || this.st.top !== owner) return;
    const t = this.types.exprType(n);
    if (!t) return;
    const ent = owner.ent;
    if (this.annotated.has(ent.id)) return;
    const alts = new Set(ent.returns ? ent.returns.split('|') : []);
    alts.add(t);
    if (alts.size <= 3) ent.returns = [...alts].join('|');
  }

  /** Functions whose return type is written: inference leaves them alone. */
  protected readonly annotated = new Set<string>();

  // --- errors -------------------------------------------------------------------------------

  private throwSite(n: Node): void {
    const arg = n.namedChild(0);
    if (!arg) return;
    if (arg.type === 'new_expression') {
      const t = pathOf(arg.childForFieldName('constructor'));
      if (t) this.throwTarget(t.join('.'), n);
      return;
    }
    if (arg.type === 'call_expression') {
      const t = valueType(arg);
      if (t) this.throwTarget(t, n);
      return;
    }
    if (arg.type === 'identifier') {
      // A rethrow of what the enclosing catch caught: what its try body threw.
      const c = this.st.catchesOpen[this.st.catchesOpen.length - 1];
      if (c && c.param === arg.text) for (const t of c.thrown) this.push('PROPAGATES_ERROR', t, n, { reraise: true });
    }
  }

  private throwTarget(target: string, at: Node): void {
    const pos = at.startIndex;
    for (const t of this.st.tries) if (t.start <= pos && pos < t.end) t.thrown.push(target);
    this.push('PROPAGATES_ERROR', target, at);
  }

  private catchClause(n: Node): void {
    const tryNode = n.parent;
    const body = tryNode?.childForFieldName('body');
    const t = body ? this.st.triesByStart.get(body.startIndex) : undefined;
    const param = n.childForFieldName('parameter');
    this.st.catchesOpen.push({ start: n.startIndex, end: n.endIndex, param: param?.type === 'identifier' ? param.text : null, thrown: t ? [...new Set(t.thrown)] : [] });
  }

  // --- state --------------------------------------------------------------------------------

  private assignment(n: Node): void {
    const left = n.childForFieldName('left') ?? n.childForFieldName('argument');
    const right = n.childForFieldName('right');
    if (!left) return;
    const path = pathOf(left);
    if (!path) return;
    if (this.commonJsExport(path, right, n)) return;
    if (n.type === 'assignment_expression' && right && FUNCTION_VALUES.has(right.type) && this.st.top.kind === 'module' && path.length === 2 && path[0] !== 'this') {
      // `Foo.prototype.m = function` / `ns.f = () =>`: the value is a function named by its path.
      this.callable(n, right, path[1] === 'prototype' ? path[0] : path[path.length - 1], 'function', right.childForFieldName('body'), left.childForFieldName('property') ?? left);
      return;
    }
    if (path[0] === 'this' && path.length >= 2) {
      const t = this.st.thisClass();
      if (t && path.length === 2 && n.type === 'assignment_expression') this.memberAttr(t.cls, path[1], left, this.types.exprType(right));
    }
    this.mutation(path, n);
  }

  /** `this.x`, `this.a.b`, a module-level name changed inside a function. */
  private mutation(path: string[], at: Node): void {
    const head = path[0];
    if (head === 'this') {
      const t = this.st.thisClass();
      if (t && path.length >= 2) this.push('MUTATES', path.slice(1).join('.'), at, { receiver: { kind: t.isStatic ? 'cls' : 'self' } });
      return;
    }
    if (head === 'super' || this.st.owner().kind === 'module') return;
    const local = this.st.local(head);
    if (local === undefined) {
      if (!BUILTINS.has(head)) this.push('MUTATES', head, at);
    } else if (local && path.length >= 2) this.push('MUTATES', path.slice(1).join('.'), at, { receiver: { kind: 'typed', type: local } });
  }

  /** Declares attribute `name` of class scope `cls` (once), with its type when known. */
  protected memberAttr(cls: Scope, name: string, nameNode: Node, type: string | null, decl?: Node): void {
    const qname = `${cls.prefix}.${name}`;
    if (type) this.st.attrTypes.push({ cls: cls.ent.id, attr: name, type });
    if (this.st.attrs.has(qname)) return;
    this.st.attrs.add(qname);
    const at = decl ?? nameNode;
    const ent: ExtractedEntity = {
      id: this.st.uniqueId('attr', qname),
      kind: 'attr',
      name,
      qname,
      parent: cls.ent.id,
      span: span(at),
      nameSpan: span(nameNode),
      signature: decl ? signatureOf(this.source, decl, null, 160) : `${name}${type ? `: ${type}` : ''}`,
      decorators: [],
      docstring: null,
      body: '',
    };
    this.st.entities.push(ent);
  }

  // --- configuration ------------------------------------------------------------------------

  private constant(n: Node): void {
    const owner = this.st.owner();
    if (owner.kind === 'module' || BUILTINS.has(n.text)) return;
    const p = n.parent;
    if (!p || NOT_A_READ.has(p.type)) return;
    if (p.type === 'call_expression' && p.childForFieldName('function')?.id === n.id) return;
    if ((p.type === 'assignment_expression' || p.type === 'augmented_assignment_expression') && p.childForFieldName('left')?.id === n.id) return;
    if (this.st.local(n.text) !== undefined) return;
    const key = `${owner.ent.id}\0${n.text}`;
    if (this.seenReads.has(key)) return;
    this.seenReads.add(key);
    this.push('READS_CONFIG', n.text, n, { configKind: 'constant' });
  }

  private env(n: Node): void {
    const key = n.type === 'subscript_expression' ? stringValue(n.childForFieldName('index')) : n.childForFieldName('property')?.text;
    if (key) this.push('READS_CONFIG', key, n, { configKind: 'env' });
  }

}

/** The name node of what a call, construction or JSX element calls. */
function calledName(n: Node): Node {
  let f: Node | null = n.type === 'call_expression' ? n.childForFieldName('function') : n.type === 'new_expression' ? n.childForFieldName('constructor') : n;
  if (f?.type === 'member_expression') f = f.childForFieldName('property');
  return f ?? n;
}
