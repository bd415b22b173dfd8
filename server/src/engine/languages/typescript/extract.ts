// One query pass over a TypeScript/TSX/JavaScript tree (queries/*.scm): captures arrive in
// source order, definitions push scopes that end at their last byte, and every other capture is
// a reference made from the innermost scope. No walk over every node: issue 16 measured a query
// pass at well under half the cost of a node walk through the WASM API.
import type { Language, Node, Query, Tree } from 'web-tree-sitter';
import type { CodeKind, ExtractedEntity, FileExtraction } from '../types';
import { moduleName, selfSpecifier, MODULE_VALUE, BUILTINS } from './names';
import { MAX_BODY_WORDS, span, type Scope } from './scopes';
import { bodyWords, FUNCTION_VALUES, literalsOf, jsdocOf, signatureOf, typeOf, valueType } from './syntax';
import { References } from './references';
import { syntaxErrorCount } from '../../parse/syntax-errors';

const CLASS_VALUES = new Set(['class', 'class_expression']);
const PRIMITIVES = new Set(['string', 'number', 'boolean', 'object', 'function', 'Function', 'Object', 'String', 'Number', 'Boolean', 'any', 'void', 'undefined', 'null', 'Array', 'Promise', 'Error', 'RegExp', 'Date', 'Buffer']);

export class TsExtractor extends References {
  run(tree: Tree, query: Query, languageId: string): FileExtraction {
    const root = tree.rootNode;
    const base = this.file.slice(this.file.lastIndexOf('/') + 1).replace(/(\.d)?\.\w+$/, '');
    const first = root.namedChild(0);
    const modEnt: ExtractedEntity = {
      id: this.st.uniqueId('module', base),
      kind: 'module',
      name: base,
      qname: base,
      parent: null,
      span: span(root),
      nameSpan: { start: { row: 0, column: 0 }, end: { row: 0, column: 0 } },
      signature: `module ${moduleName(this.file) ?? base}`,
      decorators: [],
      docstring: first?.type === 'comment' && first.text.startsWith('/**') && first.nextNamedSibling?.type !== 'comment' && !isDefinition(first.nextNamedSibling) ? jsdocOf(first.nextNamedSibling ?? first) ?? null : null,
      body: '',
    };
    this.st.entities.push(modEnt);
    this.st.stack.push({ ent: modEnt, start: 0, end: Infinity, kind: 'module', isStatic: false, locals: new Map(), prefix: '' });
    for (const c of query.captures(root)) {
      if (c.name.startsWith('_')) continue;
      const n = c.node;
      this.st.advance(n.startIndex);
      switch (c.name) {
        case 'def':
          this.definition(n);
          break;
        case 'var':
          this.variable(n);
          break;
        case 'field':
          this.field(n);
          break;
        case 'lambda':
          this.lambda(n);
          break;
        default:
          this.reference(c.name, n);
      }
    }
    const entities = this.st.entities;
    for (const e of entities) {
      if (e.kind === 'module') continue;
      const text = this.bodies.get(e.id) ?? '';
      if (!e.body) e.body = bodyWords(text, MAX_BODY_WORDS);
      // A class's text holds its methods': their messages are theirs.
      const literals = text && e.kind !== 'class' ? literalsOf(text) : '';
      if (literals) e.literals = literals;
    }
    return {
      file: this.file,
      language: languageId,
      entities,
      refs: this.st.refs,
      imports: this.st.imports,
      attrTypes: this.st.attrTypes,
      syntaxErrors: syntaxErrorCount(root),
    };
  }

  // --- definitions --------------------------------------------------------------------------

  /** Entity id → its body text (words for search, computed at the end). */
  private readonly bodies = new Map<string, string>();
  /** `qname` → id of a signature-only definition, dropped when the implementation follows. */
  private readonly signatures = new Map<string, string>();

  private definition(n: Node): void {
    const outer = this.st.top;
    switch (n.type) {
      case 'function_expression': {
        // A named function expression not bound to a name (`return function parse() {}`).
        const up = n.parent?.type;
        if (up === 'variable_declarator' || up === 'pair' || up === 'assignment_expression' || up === 'public_field_definition' || up === 'field_definition') return;
        this.callable(n, n, n.childForFieldName('name')!.text, 'function', n.childForFieldName('body'));
        break;
      }
      case 'function_declaration':
      case 'generator_function_declaration':
      case 'function_signature': {
        const name = n.childForFieldName('name')?.text ?? 'default';
        const kind: CodeKind = outer.kind === 'class' || outer.kind === 'container' && outer.ent.kind !== 'namespace' ? 'method' : 'function';
        this.callable(n, n, name, kind, n.childForFieldName('body'));
        break;
      }
      case 'method_definition':
      case 'method_signature':
      case 'abstract_method_signature': {
        if (outer.kind !== 'class' && outer.kind !== 'container') return; // a method of an unnamed object
        const nameNode = n.childForFieldName('name');
        if (!nameNode) return;
        const name = nameNode.type === 'string' ? nameNode.text.slice(1, -1) : nameNode.text;
        this.callable(n, n, name, outer.ent.kind === 'namespace' || !outer.prefix ? 'function' : 'method', n.childForFieldName('body'));
        break;
      }
      case 'pair': {
        if (outer.kind !== 'container') return;
        const key = n.childForFieldName('key');
        const value = n.childForFieldName('value');
        if (!key || !value) return;
        const name = key.type === 'string' ? key.text.slice(1, -1) : key.text;
        this.callable(n, value, name, outer.prefix ? 'method' : 'function', value.childForFieldName('body'), key);
        break;
      }
      case 'class_declaration':
      case 'abstract_class_declaration':
        this.classLike(n, 'class', n.childForFieldName('name')?.text ?? 'default');
        break;
      case 'interface_declaration':
        this.classLike(n, 'interface', n.childForFieldName('name')?.text ?? '');
        break;
      case 'enum_declaration':
        this.classLike(n, 'enum', n.childForFieldName('name')?.text ?? '');
        break;
      case 'internal_module':
      case 'module': {
        const name = n.childForFieldName('name');
        if (!name) return;
        this.classLike(n, 'namespace', name.type === 'string' ? name.text.slice(1, -1) : name.text);
        break;
      }
      case 'type_alias_declaration': {
        const name = n.childForFieldName('name');
        if (!name) return;
        this.entity(n, name, 'type', name.text, signatureOf(this.source, n, null, 400), []);
        break;
      }
    }
  }

  /** A function or method (declared, or a function value bound to a name) and its scope. */
  protected callable(n: Node, fn: Node, name: string, kind: CodeKind, body: Node | null, nameNode?: Node): void {
    const outer = this.st.top;
    const decorators = modifiers(n);
    const decl = n.type === 'variable_declarator' ? n.parent : null;
    const sig = (decl ? `${decl.child(0)?.text ?? 'const'} ` : '') + signatureOf(this.source, n, body);
    const qname = outer.prefix ? `${outer.prefix}.${name}` : name;
    const sigId = this.signatures.get(qname);
    const overloaded = sigId ? this.st.entities.find((e) => e.id === sigId) : undefined;
    let ent: ExtractedEntity;
    if (overloaded && !body) {
      // Another overload signature: the entity of the first one stands for all of them.
      ent = overloaded;
    } else if (overloaded) {
      // The implementation after its overload signatures: one entity, at the implementation.
      // Its span runs from the first signature; its name is the implementation's, where
      // TypeScript answers what the function calls (a signature has no calls).
      this.signatures.delete(qname);
      ent = overloaded;
      ent.span = { start: ent.span.start, end: span(n).end };
      ent.nameSpan = span(nameNode ?? n.childForFieldName('name') ?? n);
      ent.signature = sig;
      ent.docstring ??= jsdocOf(n);
    } else ent = this.entity(n, nameNode ?? n.childForFieldName('name') ?? n, kind, name, sig, decorators);
    const params = fn.childForFieldName('parameters') ?? fn.childForFieldName('parameter');
    const ret = typeOf(fn.childForFieldName('return_type'));
    if (ret) {
      ent.returns ??= ret;
      this.annotated.add(ent.id);
    }
    // An overload or ambient signature waits for an implementation that takes its place.
    if (!body) this.signatures.set(ent.qname, ent.id);
    else this.bodies.set(ent.id, this.source.slice(body.startIndex, body.endIndex));
    const scope: Scope = { ent, start: n.startIndex, end: n.endIndex, kind: 'function', isStatic: decorators.includes('static'), lexicalThis: fn.type === 'arrow_function', locals: new Map(), prefix: ent.qname };
    if (params) this.parameters(params, scope, outer, name === 'constructor');
    if (ent.docstring) this.jsdocTypes(ent, scope);
    this.st.stack.push(scope);
  }

  private parameters(params: Node, scope: Scope, outer: Scope, isConstructor: boolean): void {
    const list = params.type === 'identifier' ? [params] : params.namedChildren;
    for (const p of list) {
      if (!p) continue;
      if (p.type === 'identifier') {
        scope.locals.set(p.text, null);
        continue;
      }
      const pattern = p.childForFieldName('pattern') ?? p.childForFieldName('left') ?? (p.type === 'assignment_pattern' ? p.namedChild(0) : null);
      if (!pattern) continue;
      if (pattern.type === 'this') {
        // `function f(this: Ajv)`: what `this` is inside.
        const t = typeOf(p.childForFieldName('type'));
        if (t) scope.locals.set('this', t);
        continue;
      }
      if (pattern.type !== 'identifier') {
        // `{ cart }: Props`: each name has the type of that member of the annotated type.
        const whole = typeOf(p.childForFieldName('type'));
        for (const id of pattern.descendantsOfType(['identifier', 'shorthand_property_identifier_pattern'])) {
          if (id) scope.locals.set(id.text, whole && id.type === 'shorthand_property_identifier_pattern' && id.parent?.id === pattern.id ? `${whole}.${id.text}` : null);
        }
        continue;
      }
      const type = typeOf(p.childForFieldName('type')) ?? valueType(p.childForFieldName('value'));
      scope.locals.set(pattern.text, type);
      // `constructor(private repo: Repo)` declares and assigns the field `repo`; so do `readonly`
      // and `override` alone, which the grammar gives as unnamed tokens.
      if (isConstructor && outer.kind === 'class' && p.children.some((c) => c?.type === 'accessibility_modifier' || c?.type === 'readonly' || c?.type === 'override_modifier')) {
        this.memberAttr(outer, pattern.text, pattern, type);
      }
    }
  }

  /**
   * A function value that is not an entity (a callback: `xs.map((x) => f(x))`): a scope for its
   * parameters whose references belong to the enclosing entity.
   */
  private lambda(n: Node): void {
    const up = n.parent?.type;
    if (up === 'variable_declarator' || up === 'pair' || up === 'public_field_definition' || up === 'field_definition') return;
    if (up === 'assignment_expression' && this.st.top.start === n.parent!.startIndex) return;
    if (n.type === 'function_expression' && n.childForFieldName('name')) return; // an entity (see definition)
    const owner = this.st.top;
    const scope: Scope = { ent: owner.ent, start: n.startIndex, end: n.endIndex, kind: 'function', isStatic: owner.isStatic, lexicalThis: n.type === 'arrow_function', locals: new Map(), prefix: owner.prefix };
    const params = n.childForFieldName('parameters') ?? n.childForFieldName('parameter');
    if (params) this.parameters(params, scope, owner, false);
    this.types.callbackParameter(n, params, scope);
    this.st.stack.push(scope);
  }

  /**
   * JSDoc types of untyped JavaScript: `@param {User} user` types the parameter, `@returns
   * {User}` the function (what tsserver reads in .js files too). Simple names only.
   */
  private jsdocTypes(ent: ExtractedEntity, scope: Scope): void {
    const doc = ent.docstring!;
    if (!doc.includes('{')) return;
    for (const m of doc.matchAll(/@param\s+\{([\w$.]+)\}\s+\[?([\w$]+)/g)) {
      if (scope.locals.get(m[2]) === null && !PRIMITIVES.has(m[1])) scope.locals.set(m[2], m[1]);
    }
    const r = /@returns?\s+\{([\w$.]+)\}/.exec(doc);
    if (r && !ent.returns && !PRIMITIVES.has(r[1])) {
      ent.returns = r[1];
      this.annotated.add(ent.id);
    }
  }

  /** Classes, interfaces, enums, namespaces: containers of members. */
  private classLike(n: Node, kind: CodeKind, name: string): void {
    const nameNode = n.childForFieldName('name') ?? n;
    const bases: string[] = [];
    for (const c of n.namedChildren) {
      if (c?.type === 'class_heritage') {
        for (const h of c.namedChildren) {
          if (!h) continue;
          if (h.type === 'extends_clause') {
            const v = h.childForFieldName('value');
            const t = v ? baseOf(v) : null;
            if (t) bases.push(t);
          } else if (h.type === 'implements_clause') {
            for (const t of h.namedChildren) if (t && typeOf(t)) bases.push(typeOf(t)!);
          } else {
            const t = baseOf(h); // JavaScript: `extends Expr` directly
            if (t) bases.push(t);
          }
        }
      } else if (c?.type === 'extends_type_clause') {
        for (const t of c.namedChildren) if (t && typeOf(t)) bases.push(typeOf(t)!);
      }
    }
    const body = n.childForFieldName('body');
    const sig = kind === 'interface' && n.endIndex - n.startIndex < 400 ? signatureOf(this.source, n, null, 400) : signatureOf(this.source, n, body);
    const ent = this.entity(n, nameNode, kind, name, sig, modifiers(n));
    if (kind === 'class' || kind === 'interface') ent.bases = bases;
    for (const b of bases) this.st.refs.push({ from: ent.id, relation: 'INHERITS', target: b, span: span(nameNode) });
    this.st.stack.push({ ent, start: n.startIndex, end: n.endIndex, kind: kind === 'class' ? 'class' : 'container', isStatic: false, locals: new Map(), prefix: ent.qname });
  }

  /** `const x = …` / `let x` / `var x`: a function, a class, an object of members, a global or a local. */
  private variable(n: Node): void {
    const nameNode = n.childForFieldName('name');
    const value = n.childForFieldName('value');
    const scope = this.st.top;
    if (!nameNode) return;
    if (value && this.requireBinding(nameNode, value)) return;
    if (nameNode.type !== 'identifier') {
      if (scope.kind !== 'function') return;
      // `const { gen, it } = cxt` with `cxt` of known type: each name is that type's member.
      const whole = nameNode.type === 'object_pattern' ? (typeOf(n.childForFieldName('type')) ?? this.types.exprType(value)) : null;
      for (const id of nameNode.descendantsOfType(['identifier', 'shorthand_property_identifier_pattern'])) {
        if (id) scope.locals.set(id.text, whole && id.type === 'shorthand_property_identifier_pattern' && id.parent?.id === nameNode.id ? `${whole}().${id.text}` : null);
      }
      return;
    }
    const name = nameNode.text;
    if (value && FUNCTION_VALUES.has(value.type)) {
      this.callable(n, value, name, 'function', value.childForFieldName('body'), nameNode);
      return;
    }
    if (value && CLASS_VALUES.has(value.type)) {
      this.classLike(value, 'class', name);
      return;
    }
    // (At module level a member read is often an alias of a class or function, not a value of it.)
    const type = typeOf(n.childForFieldName('type')) ?? (scope.kind === 'function' ? this.types.exprType(value) : valueType(value));
    if (scope.kind === 'function') {
      scope.locals.set(name, type);
      return;
    }
    if (scope.kind !== 'module' && scope.ent.kind !== 'namespace') return;
    const ent = this.entity(n, nameNode, 'global', name, signatureOf(this.source, n, null, 160), []);
    if (type) ent.returns = type;
    else if (value?.type === 'identifier' && !BUILTINS.has(value.text)) ent.alias = value.text;
    // What a global is built from is its body: `const ZodLiteral = $constructor("ZodLiteral",
    // (inst, def) => { … })` holds its code, its words and its messages there.
    if (value && value.type !== 'identifier') this.bodies.set(ent.id, this.source.slice(value.startIndex, value.endIndex));
    if (value?.type === 'object') {
      // An object literal bound to a name: its methods are `obj.m`.
      this.st.stack.push({ ent, start: n.startIndex, end: n.endIndex, kind: 'container', isStatic: false, locals: new Map(), prefix: ent.qname });
    }
  }

  /** Class fields and interface properties: attributes (a function-valued field is a method). */
  private field(n: Node): void {
    const cls = this.st.top;
    if (cls.kind !== 'class' && cls.kind !== 'container') return;
    const nameNode = n.childForFieldName('name') ?? n.childForFieldName('property');
    if (!nameNode) return;
    const value = n.childForFieldName('value');
    if (value && FUNCTION_VALUES.has(value.type)) {
      this.callable(n, value, nameNode.text, 'method', value.childForFieldName('body'), nameNode);
      return;
    }
    const type = typeOf(n.childForFieldName('type')) ?? valueType(value);
    this.memberAttr(cls, nameNode.text, nameNode, type, n);
  }

  protected entity(n: Node, nameNode: Node, kind: CodeKind, name: string, signature: string, decorators: string[]): ExtractedEntity {
    const parent = this.st.top;
    const qname = parent.prefix ? `${parent.prefix}.${name}` : name;
    const ent: ExtractedEntity = {
      id: this.st.uniqueId(kind, qname),
      kind,
      name,
      qname,
      parent: parent.ent.id,
      span: span(n),
      nameSpan: span(nameNode),
      signature,
      decorators,
      docstring: jsdocOf(n),
      body: '',
    };
    this.st.entities.push(ent);
    return ent;
  }
}

/** A dotted base class expression (`Base`, `ns.Base`, `Base<T>` → `Base`). */
function baseOf(n: Node): string | null {
  if (n.type === 'generic_type') return typeOf(n);
  if (n.type === 'call_expression') return null; // a mixin call
  if (n.type === 'identifier' || n.type === 'member_expression' || n.type === 'type_identifier' || n.type === 'nested_type_identifier') return n.text.replace(/\s+/g, '');
  return null;
}

/** Member modifiers kept (with the decorators) because they change how a member is reached. */
const MODIFIERS: Readonly<Record<string, string>> = { static: 'static', get: 'get', set: 'set', async: 'async', abstract: 'abstract', '*': 'generator' };
/** Where the modifiers of a definition end. */
const NAME_OR_PARAMS = new Set(['property_identifier', 'private_property_identifier', 'identifier', 'type_identifier', 'formal_parameters', 'string', 'computed_property_name']);

/** Decorators (with `@`) and member modifiers (`static`, `get`, `set`, `async`, `abstract`). */
function modifiers(n: Node): string[] {
  const out: string[] = [];
  // Decorators of an exported class sit on the export statement around it.
  if (n.parent?.type === 'export_statement') for (const d of n.parent.namedChildren) if (d?.type === 'decorator') out.push(oneLine(d.text));
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (!c || NAME_OR_PARAMS.has(c.type)) break;
    if (c.type === 'decorator') out.push(oneLine(c.text));
    else if (MODIFIERS[c.type]) out.push(MODIFIERS[c.type]);
  }
  return out;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ');

function isDefinition(n: Node | null | undefined): boolean {
  if (!n) return false;
  return /declaration|export_statement|internal_module|method_definition/.test(n.type);
}

export { MODULE_VALUE, selfSpecifier };

/** Compiled queries, one per grammar (a query is tied to the Language it was built for). */
export type QueryFor = (language: Language) => Query;
