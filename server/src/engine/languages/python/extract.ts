// One pass over a Python syntax tree: entities (module, classes, functions, methods, class
// attributes, module globals) and raw references (calls, bases, imports, mutations, config
// reads, raises). References are finalised at the end of the file, once every scope knows all
// of its local names (Python decides locality by any assignment in the function).
import type { Tree } from 'web-tree-sitter';
import type { SyntaxNode as Node } from '../../parse/syntax-copy';
import { entityId } from '../../../../../protocol';
import type { CallArgs, ExtractedEntity, FileExtraction, Grammar, RawRef, Receiver, Span } from '../types';
import { BUILTINS, moduleName } from './names';
import { bindName, newScope, type Binding, type Scope } from './scope';
import { cleandoc, withoutElements } from './text';
import { ELEMENT_TYPE } from '../types';
import { ExpressionWalker } from './expressions';
import { syntaxErrorCount } from '../../parse/syntax-errors';
import { MAX_BODY_WORDS, TOP_DEFS, shift, span } from './base';
import type { Pending, Section, PythonReuse } from './base';

export class PythonExtractor extends ExpressionWalker {
  run(tree: Tree, grammar: Grammar): FileExtraction {
    const previous = this.reuse?.state;
    const source = this.source;
    const root = grammar.copy(tree.rootNode, source, {
      types: COPY_FILTERED,
      enter: (type, start, end, depth) => {
        // A string with no format prefix is read as text only: its parts are not copied.
        if (type === 'string') return mayInterpolate(source, start);
        // A definition whose text is a section of the previous text is likely replayed, not
        // walked: it is copied alone, and whole only if it is walked after all (`whole`).
        return !(previous && depth === 1 && previous.sections.has(source.slice(start, end)));
      },
    });
    const whole = (c: Node) => (c.shallow ? grammar.copy(c.real(), this.source) : c);
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
    const reused: Array<{ node: Node; section: Section }> = [];
    const defs = root.namedChildren.filter((c): c is Node => !!c && TOP_DEFS.has(c.type));
    const names = defs.map((d) => this.defName(d.shallow ? d.real() : d));
    const unique = new Set(names).size === names.length;
    for (const c of root.namedChildren) {
      if (!c) continue;
      if (!TOP_DEFS.has(c.type)) {
        this.statement(c, this.module);
        continue;
      }
      const text = this.source.slice(c.startIndex, c.endIndex);
      const old = unique ? previous?.sections.get(text) : undefined;
      // Same text, same parse, unless the parse had to recover from an error: how it recovers
      // depends on the text around the definition (a base class read as another name).
      if (old && old.reusable && old.column === c.startPosition.column && !hasSyntaxError(c)) {
        reused.push({ node: c, section: old });
        continue;
      }
      this.walkSection(whole(c), text);
    }
    // References of a reused definition were finalised against the module context of the
    // previous text (module-level types and aliases): if that moved, extract them afresh.
    const context = this.moduleContext();
    // A reused definition whose id the rest of the file now also produces (a `def m` inside
    // broken syntax, walked before it): ids go by source order, which replaying after the walk
    // cannot keep. Extract the whole file afresh.
    if (this.reuse && reused.some(({ section }) => section.entities.some((e) => this.idCounts.has(e.id)) || section.members.some((m) => this.memberIds.has(m.id)))) {
      this.reuse.state = undefined;
      return new PythonExtractor(this.source, this.file, this.reuse).run(tree, grammar);
    }
    for (const { node, section } of reused) {
      if (previous && previous.context === context) this.replay(section, node.startPosition.row - section.row);
      else this.walkSection(whole(node), this.source.slice(node.startIndex, node.endIndex));
    }
    this.finish();
    this.typeGlobals();
    if (this.reuse) {
      const sections = new Map<string, Section>();
      for (const sec of this.sections) sections.set(sec.text, sec);
      this.reuse.state = { context, sections };
    }
    const syntaxErrors = syntaxErrorCount(tree.rootNode);
    return {
      file: this.file,
      language: 'python',
      // Members first: where a method and an attribute share a name, the method wins lookups.
      entities: [modEnt, ...this.members, ...this.entities.slice(1)],
      refs: this.refs,
      imports: this.imports,
      attrTypes: this.attrTypes.filter((a) => a.type),
      ...(this.callArgs.length ? { callArgs: this.callArgs } : {}),
      syntaxErrors,
    };
  }

  /**
   * A module global assigned in functions that declare it `global` (a lazy singleton:
   * `_client = None`, then `global _client; _client = Client()`) holds what they assign, as
   * alternatives after its own module-level type; one that aliases another name keeps the alias.
   */
  protected typeGlobals(): void {
    for (const { name, type } of this.globalTypes) {
      const g = this.memberIds.get(entityId('global', this.file, name));
      if (!type || !g || g.alias) continue;
      const alts = new Set(g.returns ? g.returns.split('|') : []);
      alts.add(type);
      if (alts.size <= 3) g.returns = [...alts].join('|');
    }
  }

  /** The name a top-level definition binds (asked of a copy, or of a real node when it is shallow). */
  protected defName(node: Named): string {
    const def = node.type === 'decorated_definition' ? node.childForFieldName('definition') : node;
    const n = def?.childForFieldName('name');
    return n ? this.source.slice(n.startIndex, n.endIndex) : '';
  }

  protected walkSection(node: Node, text: string): void {
    const sec: Section = { text, row: node.startPosition.row, column: node.startPosition.column, entities: [], members: [], refs: [], attrTypes: [], callArgs: [], globalTypes: [], reusable: true };
    const marks = { e: this.entities.length, m: this.members.length, r: this.refs.length, a: this.attrTypes.length, g: this.globalTypes.length, i: this.imports.length };
    this.section = this.sections.length;
    this.sections.push(sec);
    this.statement(node, this.module);
    this.section = -1;
    sec.entities = this.entities.slice(marks.e);
    sec.members = this.members.slice(marks.m);
    sec.refs = this.refs.slice(marks.r);
    sec.attrTypes = this.attrTypes.slice(marks.a);
    sec.globalTypes = this.globalTypes.slice(marks.g);
    // Imports inside a definition change the module's aliases: never replay those blindly.
    sec.reusable = this.imports.length === marks.i && !sec.entities.some((e) => e.id.includes('#')) && !(this.reuse && hasSyntaxError(node));
  }

  /** Puts a previous section's output in, moved `delta` rows. */
  protected replay(old: Section, delta: number): void {
    // A copy, then its own fields set: a spread with fields added (`{ ...x, span }`) at a site
    // that sees many shapes gives every copy a hidden class of its own (V8), on every keystroke.
    const move = <T extends { span: Span }>(x: T): T => {
      const c = { ...x };
      if (delta) c.span = shift(x.span, delta);
      return c;
    };
    const moveEntity = (e: ExtractedEntity): ExtractedEntity => {
      const c = move(e);
      if (delta) c.nameSpan = shift(e.nameSpan, delta);
      return c;
    };
    const sec: Section = { ...old, row: old.row + delta, entities: [], members: [], refs: [], attrTypes: old.attrTypes, callArgs: old.callArgs, globalTypes: old.globalTypes };
    sec.entities = old.entities.map(moveEntity);
    sec.members = old.members.map(moveEntity);
    sec.refs = old.refs.map(move);
    for (const e of sec.entities) this.idCounts.set(e.id, 1);
    for (const m of sec.members) this.memberIds.set(m.id, m);
    this.entities.push(...sec.entities);
    this.members.push(...sec.members);
    this.refs.push(...sec.refs);
    this.attrTypes.push(...sec.attrTypes);
    this.callArgs.push(...sec.callArgs);
    this.globalTypes.push(...sec.globalTypes);
    this.sections.push(sec);
  }

  protected moduleContext(): string {
    return JSON.stringify([[...this.module.types], [...this.aliases]]);
  }

  /**
   * Decides receivers now that every scope knows its locals, and emits the refs. (Small
   * methods: this runs once per file, and as one large body it was re-optimised whole each time
   * a file brought objects of a new shape.)
   */
  protected finish(): void {
    const names = this.fileNames();
    for (const p of this.pending) this.finishPending(p, names);
    this.finishScopes();
  }

  /** The names of this file that decide how a pending reference is read. */
  private fileNames(): FileNames {
    // Names this file binds itself (a builtin shadowed by a def or an import is a call to it).
    const own = new Set<string>();
    for (const e of this.entities) own.add(e.name);
    for (const e of this.members) own.add(e.name);
    // Names bound by `from m import x` (not modules, not classes by their look): what they hold may have properties.
    const importedMembers = new Set<string>();
    for (const b of this.imports) {
      own.add(b.local ?? '*');
      if (b.local && b.member && b.member !== '*' && /^_?[a-z]/.test(b.local)) importedMembers.add(b.local);
    }
    if (own.has('*')) for (const b of BUILTINS) own.add(b);
    return { own, importedMembers, seenReads: new Set() };
  }

  private finishPending(p: Pending, names: FileNames): void {
    const path = p.path;
    const dot = path.indexOf('.');
    const head = dot < 0 ? path : path.slice(0, dot);
    const rest = dot < 0 ? '' : path.slice(dot + 1);
    const narrowed = p.narrow?.get(head);
    const b: Binding = narrowed ? { kind: 'typed', type: narrowed } : bindName(p.scope, head);
    if (p.member !== undefined) {
      const type = this.callType(p.scope, path, p.narrow);
      if (p.mode === 'access') {
        // A read: a getter call only on a value of known type (see the access mode below).
        if (type && !type.startsWith('param:')) this.emit(p, { ...refOf(p, p.member, { kind: 'typed', type }), access: true }, names);
        return;
      }
      this.emit(p, refOf(p, p.member, type ? { kind: 'typed', type } : { kind: 'expr' }), names);
      return;
    }
    if (p.relation === 'READS_CONFIG') {
      if (b.kind !== 'name') return;
      const key = `${p.scope.ent.id}\0${path}`;
      if (names.seenReads.has(key)) return;
      names.seenReads.add(key);
      const r = refOf(p, path);
      r.configKind = 'constant';
      this.emit(p, r, names);
      return;
    }
    if (p.mode === 'access') return this.finishAccess(p, b, path, head, rest, names);
    if (p.mode === 'globalOnly') {
      if (p.scope.globals.has(path)) this.emit(p, refOf(p, path), names);
      return;
    }
    switch (b.kind) {
      case 'self':
      case 'cls':
        if (!rest) {
          // `cls()` constructs the class; `self()` calls __call__; `self[k] = v` is no ref.
          if (p.relation === 'CALLS') this.emit(p, b.kind === 'cls' ? refOf(p, b.scope.ent.qname) : refOf(p, '__call__', { kind: 'self' }), names);
          return;
        }
        this.emit(p, refOf(p, rest, { kind: b.kind }), names);
        return;
      case 'typed': {
        const type = this.canonicalType(p.scope, b.type);
        if (!rest || !type) {
          if (p.relation === 'CALLS') this.emit(p, refOf(p, rest ? path.slice(path.lastIndexOf('.') + 1) : head, { kind: 'expr' }), names);
          return;
        }
        this.emit(p, refOf(p, rest, { kind: 'typed', type }), names);
        return;
      }
      case 'local':
        if (p.relation === 'CALLS') this.emit(p, refOf(p, path.slice(path.lastIndexOf('.') + 1), { kind: 'expr' }), names);
        return;
      case 'name':
        // (A module-level container changed in place, `REGISTRY[k] = v`, is a ref like any.)
        this.emit(p, refOf(p, path), names);
        return;
    }
  }

  /**
   * A read of an attribute, a call if it names a property getter: only through self or an
   * object of known type, and not for attributes the class itself assigns (those are data).
   */
  private finishAccess(p: Pending, b: Binding, path: string, head: string, rest: string, names: FileNames): void {
    if (!rest) return;
    let r: RawRef | null = null;
    if (b.kind === 'self') {
      const oneLevel = path.indexOf('.', head.length + 1) < 0;
      if (!(oneLevel && this.memberIds.has(entityId('attr', this.file, `${b.scope.ent.qname}.${rest}`)))) r = refOf(p, rest, { kind: 'self' });
    } else if (b.kind === 'typed' && !b.type.startsWith('param:')) {
      // (Not through parameters typed by their callers: reading their attributes is too
      // common to keep a reference for each on the chance of a property.)
      const type = this.canonicalType(p.scope, b.type);
      if (type) r = refOf(p, rest, { kind: 'typed', type });
    } else if (b.kind === 'name' && names.importedMembers.has(head)) {
      // An object imported from another module (`from .globals import request`): its
      // type is recorded there (`request: Request = LocalProxy(…)`).
      r = refOf(p, path);
    }
    if (!r) return;
    r.access = true;
    this.emit(p, r, names);
  }

  private emit(p: Pending, ref: RawRef, names: FileNames): void {
    this.refs.push(ref);
    if (p.section >= 0) this.sections[p.section].refs.push(ref);
    // A call on an expression of unknown type never reaches a workspace function, nor does a
    // builtin this file neither defines nor imports: no record (most calls are one of them).
    if (!p.args || ref.relation !== 'CALLS' || ref.access || ref.receiver?.kind === 'expr') return;
    if (ref.receiver === undefined && BUILTINS.has(ref.target) && !names.own.has(ref.target)) return;
    const raw = this.argTypes(p.args, p.scope);
    if (!raw) return;
    const args = raw.map((a) => {
      if (a === '*' || a === '') return a;
      const eq = /^(\w+)=/.exec(a);
      const t = eq ? a.slice(eq[0].length) : a;
      const canon = t ? this.canonicalType(p.scope, t) ?? '' : '';
      return eq ? `${eq[1]}=${canon}` : canon;
    });
    const c: CallArgs = { from: ref.from, target: ref.target, args };
    if (ref.receiver) c.receiver = ref.receiver;
    this.callArgs.push(c);
    if (p.section >= 0) this.sections[p.section].callArgs.push(c);
  }

  /** Attribute, global and return types in their final form, and each scope's body words. */
  private finishScopes(): void {
    // An attribute type written as a local's name becomes that local's type; unknown ones go.
    // So do loop elements (`for s in screens: self.screen = s`): an attribute keeps at most
    // three alternatives, and an element type, often of an unannotated list, took the place
    // of one that names a class (the stdlib's turtle lost `TurtleScreen`).
    for (const { a, scope } of this.attrScopes) a.type = withoutElements(scope.kind === 'function' ? this.canonicalType(scope, a.type) : a.type) ?? '';
    for (const { g, scope } of this.globalScopes) g.type = withoutElements(this.canonicalType(scope, g.type)) ?? '';
    for (const s of this.scopes) {
      if (s.kind === 'function' && !s.ent.returns && s.returns.length) {
        // Every type we can tell, as alternatives (`A|B`): the graph takes the first that
        // names a class. Returns we cannot type do not veto the others.
        const types = new Set(s.returns.map((r) => withoutElements('call' in r ? this.callType(s, r.call) : 'name' in r ? this.nameTypeOf(s, r.name) : null)));
        types.delete(null);
        if (types.size && types.size <= 3) s.ent.returns = [...types].join('|');
      }
      if (s.literals.length) s.ent.literals = s.literals.join('\n');
      if (s.kind === 'module' || !s.words.size) continue;
      let body = '';
      let n = 0;
      for (const w of s.words) {
        if (n === MAX_BODY_WORDS) break;
        body = n++ ? `${body} ${w}` : w;
      }
      s.ent.body = body;
    }
  }

  /**
   * The type expression of what calling `callee` returns, for the graph to resolve in this
   * scope: `self.m` / `cls.m` for methods of the enclosing class, `T.m` for a local of type T,
   * the class itself for `cls()`, the callee as written for other names; null when unknown.
   */
  protected callType(scope: Scope, callee: string, narrow?: Map<string, string>): string | null {
    const { head, called, rest } = splitHead(callee);
    const narrowed = narrow?.get(head);
    const b: Binding = narrowed ? { kind: 'typed', type: narrowed } : bindName(scope, head);
    // `x().m`: what calling a local returns is unknown here.
    if (called && b.kind !== 'name' && b.kind !== 'cls') return null;
    switch (b.kind) {
      case 'self':
        // `self.__class__(...)` builds another instance of the enclosing class.
        if (rest === '__class__') return b.scope.ent.qname;
        return rest ? `self.${rest}` : null;
      case 'cls':
        if (called) return rest ? `${b.scope.ent.qname}().${rest}` : b.scope.ent.qname;
        return rest ? `cls.${rest}` : b.scope.ent.qname;
      case 'typed': {
        const t = this.canonicalType(scope, b.type);
        return rest && t ? alternatives(t, (alt) => `${alt}().${rest}`) : null;
      }
      case 'local':
        return null;
      default:
        return callee;
    }
  }

  /**
   * A recorded type expression made resolvable outside this function: a first name that is a
   * typed local is replaced by its type (`y.make` → `T().make`: member `make` of what `T` is); one that is an untyped local
   * makes it unknown (null), so the graph never resolves it to a same-named global. Each
   * alternative of `A|B` on its own; the unknown ones are left out.
   */
  protected canonicalType(scope: Scope, type: string, depth = 0): string | null {
    if (type.startsWith(ELEMENT_TYPE)) {
      const of = this.canonicalType(scope, type.slice(ELEMENT_TYPE.length), depth);
      return of ? alternatives(of, (alt) => `${ELEMENT_TYPE}${alt}`) : null;
    }
    if (type.includes('|')) {
      const alts = type.split('|').map((t) => this.canonicalType(scope, t, depth)).filter((t): t is string => !!t);
      return alts.length ? [...new Set(alts.flatMap((a) => a.split('|')))].slice(0, MAX_ALTERNATIVES).join('|') : null;
    }
    const { head, called, rest } = splitHead(type);
    const b = bindName(scope, head);
    // `self` / `cls` themselves, `self.__class__`, `cls()`: the enclosing class.
    if ((b.kind === 'self' || b.kind === 'cls') && !called && (!rest || rest === '__class__')) return b.scope.ent.qname;
    if (b.kind === 'cls' && called) return rest ? `${b.scope.ent.qname}().${rest}` : b.scope.ent.qname;
    if (b.kind === 'local' || (called && b.kind !== 'name')) return null;
    if (b.kind === 'typed' && depth < 3 && b.type !== type) {
      const inner = this.canonicalType(scope, b.type, depth + 1);
      return inner ? alternatives(inner, (alt) => (rest ? `${alt}().${rest}` : alt)) : null;
    }
    return type;
  }

  /** The type of a returned name: `self` → its class; `self.x`, a local of known type. */
  protected nameTypeOf(scope: Scope, name: string): string | null {
    return this.typableName(name, scope) ? this.canonicalType(scope, name) : null;
  }
}

/** The types whose subtrees `run` may leave out of its copy of the tree. */
const COPY_FILTERED = ['string', ...TOP_DEFS];

/** Whether a string literal at `i` has a prefix letter other than r, u, b (`f`, and any newer one). */
function mayInterpolate(source: string, i: number): boolean {
  for (let k = i; k < source.length; k++) {
    const c = source[k];
    if (c === '"' || c === "'") return false;
    if (!'rRuUbB'.includes(c)) return true;
  }
  return true;
}

/** What `defName` reads of a node: a copy's and web-tree-sitter's both have it. */
interface Named {
  type: string;
  startIndex: number;
  endIndex: number;
  childForFieldName(name: string): Named | null;
}

/** At most this many alternatives are kept in a type expression (`A|B|C`). */
const MAX_ALTERNATIVES = 3;

/** `a.b().c` → head `a`, rest `b().c`; `f().g` → head `f`, called. */
function splitHead(expr: string): { head: string; called: boolean; rest: string } {
  const m = /^([^.(]*)(\(\))?(?:\.(.*))?$/s.exec(expr);
  return m ? { head: m[1], called: !!m[2], rest: m[3] ?? '' } : { head: expr, called: false, rest: '' };
}

/** Applies `f` to each alternative of `A|B`. */
function alternatives(type: string, f: (alt: string) => string): string {
  return type.split('|').map(f).join('|');
}

export function extractPython(tree: Tree, source: string, file: string, grammar: Grammar, reuse?: { state?: PythonReuse }): FileExtraction {
  return new PythonExtractor(source, file, reuse).run(tree, grammar);
}

export { cleandoc };
export type { PythonReuse } from './base';

/** Does the definition hold a syntax error (tree-sitter's ERROR or MISSING nodes)? */
function hasSyntaxError(node: Node): boolean {
  return node.real().hasError;
}

/** What `finish` knows of the whole file while it decides each pending reference. */
interface FileNames {
  /** Names the file binds itself (definitions, imports): a builtin they shadow is theirs. */
  own: Set<string>;
  /** Names bound by `from m import x` that look like objects, not modules or classes. */
  importedMembers: Set<string>;
  /** Config reads already emitted, per scope: one ref each. */
  seenReads: Set<string>;
}

/** A pending reference's ref, built field by field in the order refs were always written in (their JSON is compared). */
function refOf(p: Pending, target: string, receiver?: Receiver): RawRef {
  const r: RawRef = p.catches ? { from: p.scope.ent.id, relation: p.relation, span: p.span, catches: p.catches, target } : { from: p.scope.ent.id, relation: p.relation, span: p.span, target };
  if (receiver) r.receiver = receiver;
  return r;
}
