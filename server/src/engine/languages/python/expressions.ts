// Expressions: calls, attributes and subscripts, with the configuration patterns they match.
import type { SyntaxNode as Node } from '../../parse/syntax-copy';
import { CONFIG_FILE, CONSTANT, ENV_CALLS, ENV_MAPPINGS, MUTATORS, SETTINGS_NAMES } from './patterns';
import type { Scope } from './scope';
import { dotted, stringContent } from './text';
import { StatementWalker } from './statements';
import { span } from './base';
import { keepMessage } from '../literals';

export abstract class ExpressionWalker extends StatementWalker {
  protected expr(node: Node | null, scope: Scope): void {
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
      case 'string': {
        // Only f-strings hold code: their `{...}` interpolations. The prefix tells, without
        // asking the tree for the string's parts.
        const f = isFString(this.source, node.startIndex);
        if (scope.literalRoom > 0) scope.literalRoom = keepMessage(scope.literals, stringContent(node, this.source) ?? '', scope.literalRoom);
        if (!f) return;
        for (const c of node.namedChildren) if (c?.type === 'interpolation') this.expr(c.namedChild(0), scope);
        return;
      }
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
      case 'yield': {
        // A fixture's value is what it yields.
        const value = node.namedChild(0);
        if (scope.fixture && value && value.type !== 'none') scope.returns.push(...this.sources(value));
        this.expr(value, scope);
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

  protected attribute(node: Node, scope: Scope): void {
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
      // `current_process().authkey`: a getter call on what the call returns, when it is a property.
      const made = a && scope.kind === 'function' && obj?.type === 'call' ? this.constructed(obj) : null;
      if (made) {
        this.deferTyped(scope, made, this.text(a!), a!);
        this.pending[this.pending.length - 1].mode = 'access';
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
    if (scope.kind === 'function' && segs.length > 1) {
      this.deferReceiverReads(node, scope);
      this.defer(scope, 'CALLS', path, node.childForFieldName('attribute') ?? node, 'access');
    }
  }

  /**
   * The reads inside a dotted chain: in `self.service.streams()` or `a.b.c`, `self.service` and
   * `a.b` call getters too when they are properties.
   */
  protected deferReceiverReads(chain: Node, scope: Scope): void {
    for (let obj = chain.childForFieldName('object'); obj?.type === 'attribute'; obj = obj.childForFieldName('object')) {
      const path = dotted(obj, this.source);
      const at = obj.childForFieldName('attribute');
      if (path && at) this.defer(scope, 'CALLS', path, at, 'access');
    }
  }

  protected subscript(node: Node, scope: Scope): void {
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

  protected call(node: Node, scope: Scope): void {
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
        if (fn.type === 'attribute' && scope.kind === 'function') this.deferReceiverReads(fn, scope);
        this.defer(scope, 'CALLS', path, nameNode);
        if (args) this.pending[this.pending.length - 1].args = args;
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
          if (made) {
            this.deferTyped(scope, made, member, attr);
            if (args) this.pending[this.pending.length - 1].args = args;
          }
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

  /** Binds every identifier of a target pattern as a local (loop variables, lambda parameters). */
  protected bindPattern(node: Node | null, scope: Scope): void {
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
}

/** Whether the string literal starting at `i` has an `f` among its prefix letters. */
function isFString(source: string, i: number): boolean {
  for (let k = i; k < i + 3 && k < source.length; k++) {
    const c = source.charCodeAt(k);
    if (c === 102 || c === 70) return true; // f F
    if (c === 34 || c === 39) return false; // " '
  }
  return false;
}
