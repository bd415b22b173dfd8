// Type expressions of TypeScript/JavaScript values, as the graph resolves them from the file
// being extracted (graph/README.md, "Receivers"): what an initialiser, a call, a member read or
// a local evaluates to, an element of a container, and the parameters a callback gets from the
// array, map or promise it is passed to. Reads the extraction's scopes; records nothing.
import type { Node } from 'web-tree-sitter';
import { CONTAINER_TYPE, ELEMENT_TYPE } from '../types';
import type { ExtractionState, Scope } from './scopes';
import { pathOf, typeOf, valueType } from './syntax';

/** Methods of arrays, sets and maps that give one element. */
const CONTAINER_METHODS = new Set(['get', 'at', 'find', 'findLast', 'pop', 'shift']);

/** Array and set methods whose callback gets one element as its first argument. */
const ELEMENT_CALLBACKS = new Set(['map', 'filter', 'forEach', 'find', 'findLast', 'findIndex', 'findLastIndex', 'some', 'every', 'flatMap']);

export class ValueTypes {
  constructor(private readonly st: ExtractionState) {}

  /**
   * The type expression of what `n` evaluates to, as the graph resolves it from this file, or
   * null: `new C()` → `C`; a call → what it returns (`f`, `self.m` for `this.m()`, `T().m` for
   * `x.m()` with a local `x: T`); a member read → what it holds (`self.a`, `T().a`); a typed
   * local → its type. Locals are written as their types, so the expression means the same
   * anywhere in the file.
   */
  exprType(n: Node | null): string | null {
    if (!n) return null;
    switch (n.type) {
      case 'new_expression':
        return valueType(n);
      case 'await_expression':
      case 'parenthesized_expression':
      case 'non_null_expression':
        return this.exprType(n.namedChild(0));
      case 'as_expression':
      case 'satisfies_expression':
        return typeOf(n.namedChild(1)) ?? this.exprType(n.namedChild(0));
      case 'call_expression': {
        const fn = n.childForFieldName('function');
        const p = pathOf(fn);
        // (Calling a local holds a function value: what it returns is unknown.)
        const t = p && p[0] !== 'super' && (p.length > 1 || this.st.local(p[0]) === undefined) ? this.pathType(p) : null;
        return fn?.type === 'member_expression' ? this.containerCall(fn, t) : t;
      }
      case 'member_expression': {
        const p = pathOf(n);
        return p && p.length > 1 && p[0] !== 'super' ? this.pathType(p) : null;
      }
      case 'identifier':
        return this.st.local(n.text) ?? null;
      default:
        return null;
    }
  }

  /**
   * The type of an element of what `n` evaluates to (`for (const x of xs)`, `xs.map((x) => …)`):
   * `T` of a local `[]T`, else `elem:E` for the graph to read off what `E` names; null if unknown.
   */
  elementType(n: Node | null): string | null {
    // `m.values()`: the elements of `m` (a map's values), or of what a `values` method returns.
    const fn = n?.type === 'call_expression' ? n.childForFieldName('function') : null;
    if (fn?.type === 'member_expression' && fn.childForFieldName('property')?.text === 'values') {
      const own = this.elementType(fn.childForFieldName('object'));
      if (own && !own.startsWith(ELEMENT_TYPE)) return own;
      const returned = this.elementOf(this.exprType(n));
      return own && returned ? `${own}|${returned}` : (own ?? returned);
    }
    return this.elementOf(this.exprType(n));
  }

  /** An element of a value of type `t`: `T` of `[]T`, else `elem:t` for the graph to read off. */
  private elementOf(t: string | null): string | null {
    if (!t || t.includes('|') || t.startsWith(ELEMENT_TYPE)) return null;
    return t.startsWith(CONTAINER_TYPE) ? t.slice(CONTAINER_TYPE.length) || null : `${ELEMENT_TYPE}${t}`;
  }

  /**
   * `xs.get(k)`, `xs.at(i)`, `xs.find(…)`, `xs.pop()`: an element of `xs` when it is a container
   * (a map's value), else what the method returns (`t`): both, as alternatives, when it is not
   * known here which (an attribute's type is recorded elsewhere).
   */
  private containerCall(fn: Node, t: string | null): string | null {
    if (!CONTAINER_METHODS.has(fn.childForFieldName('property')?.text ?? '')) return t;
    const object = fn.childForFieldName('object');
    const whole = this.exprType(object);
    if (whole?.startsWith(CONTAINER_TYPE)) return whole.slice(CONTAINER_TYPE.length) || null;
    const element = this.elementType(object);
    return element && t ? `${element}|${t}` : (element ?? t);
  }

  /** `this.a.m` → `self.a.m`; `x.a.m` with a local `x: T` → `T().a.m`; other names as written. */
  private pathType(p: string[]): string | null {
    const rest = p.slice(1).join('.');
    if (p[0] === 'this') {
      if (!rest) return null;
      const c = this.st.thisClass();
      if (c) return `${c.isStatic ? 'cls' : 'self'}.${rest}`;
      const typed = this.thisParam();
      return typed ? `${typed.type}().${rest}` : null;
    }
    const local = this.st.local(p[0]);
    if (local === undefined) return p.join('.');
    return local ? (rest ? `${local}().${rest}` : local) : null;
  }

  /** The type of an explicit `this` parameter (`function f(this: Ajv)`), when `this` is no class. */
  thisParam(): { type: string } | null {
    const t = this.st.local('this');
    return t ? { type: t } : null;
  }

  /**
   * `xs.map((x) => …)`, `xs.forEach(function (x) {…})`: an untyped first parameter is an element
   * of `xs`; in `p.then((v) => …)`, what `p` resolves to (a local's type has its `Promise` off).
   */
  callbackParameter(fn: Node, params: Node | null, scope: Scope): void {
    const args = fn.parent;
    const call = args?.type === 'arguments' ? args.parent : null;
    const callee = call?.type === 'call_expression' ? call.childForFieldName('function') : null;
    if (callee?.type !== 'member_expression' || args!.namedChild(0)?.id !== fn.id) return;
    const method = callee.childForFieldName('property')?.text ?? '';
    if (method !== 'then' && !ELEMENT_CALLBACKS.has(method)) return;
    const first = params?.type === 'identifier' ? params : params?.namedChildren.find((c) => c?.type === 'required_parameter' || c?.type === 'optional_parameter' || c?.type === 'identifier');
    const name = first?.type === 'identifier' ? first : first?.childForFieldName('pattern');
    if (!name || first?.childForFieldName?.('type')) return;
    const object = callee.childForFieldName('object');
    const t = method === 'then' ? this.exprType(object) : this.elementType(object);
    if (!t || t.startsWith(CONTAINER_TYPE)) return;
    if (name.type === 'identifier') {
      if (!scope.locals.get(name.text)) scope.locals.set(name.text, t);
      return;
    }
    // `parts.some(({ ws, s }) => …)`: each name is that member of the element.
    if (name.type !== 'object_pattern') return;
    for (const c of name.namedChildren) if (c?.type === 'shorthand_property_identifier_pattern' && !scope.locals.get(c.text)) scope.locals.set(c.text, `${t}().${c.text}`);
  }
}
