// Python scopes as the extractor sees them, and how the first name of a reference binds:
// `self`/`cls` of the enclosing method, a local of known type, a local of unknown type, or a
// name the module (or an import) provides — which the graph resolves later.
import type { ExtractedEntity } from '../types';
import { withoutElements } from './text';
import { MAX_LITERALS_CHARS } from '../literals';

export interface Scope {
  ent: ExtractedEntity;
  kind: 'module' | 'class' | 'function';
  parent: Scope | null;
  /** Nearest enclosing class scope (for a method or a function nested in one). */
  cls: Scope | null;
  /** Function scopes: names bound locally (parameters, assignments, loop targets, aliases). */
  locals: Set<string>;
  /** Names declared `global`/`nonlocal`: assignments to them are not local. */
  globals: Set<string>;
  /** Local name → type expression (`x = Repo()`, `x: Repo`, `with Repo() as x`); '' when conflicting. */
  types: Map<string, string>;
  /** Local name → type of its elements (`xs: list[Repo]`), for `for x in xs`. */
  elems: Map<string, string>;
  /** First parameter of a method: `self`; of a classmethod: `cls` (in clsName). */
  selfName: string | null;
  clsName: string | null;
  /** Identifiers seen in the body, for lexical search. */
  words: Set<string>;
  /** Message-like string literals of the body (../literals.ts), and the characters left for more. */
  literals: string[];
  literalRoom: number;
  /** What the function's `return` statements return (a fixture's `yield`s too), for its inferred return type. */
  returns: Array<{ call: string } | { name: string } | { other: true }>;
  /** A pytest fixture: what it yields is its value. */
  fixture?: boolean;
}

export type Binding =
  | { kind: 'self'; scope: Scope }
  | { kind: 'cls'; scope: Scope }
  | { kind: 'typed'; type: string }
  | { kind: 'local' }
  | { kind: 'name' };

export function newScope(ent: ExtractedEntity, kind: Scope['kind'], parent: Scope | null): Scope {
  return {
    ent,
    kind,
    parent,
    cls: kind === 'class' ? null : parent ? (parent.kind === 'class' ? parent : parent.cls) : null,
    locals: new Set(),
    globals: new Set(),
    types: new Map(),
    elems: new Map(),
    selfName: null,
    clsName: null,
    words: new Set(),
    literals: [],
    literalRoom: MAX_LITERALS_CHARS,
    returns: [],
  };
}

/** How `head` binds when used in `scope`. Class bodies are not visible from their methods. */
export function bindName(scope: Scope, head: string): Binding {
  for (let s: Scope | null = scope; s; s = s.parent) {
    if (s.kind === 'class') {
      if (s !== scope) continue;
      const t = s.types.get(head);
      if (t) return { kind: 'typed', type: t };
      continue;
    }
    if (s.kind === 'module') {
      const t = s.types.get(head);
      return t ? { kind: 'typed', type: t } : { kind: 'name' };
    }
    if (s.globals.has(head)) {
      // Declared global: look it up at module level.
      let m: Scope | null = s;
      while (m && m.kind !== 'module') m = m.parent;
      const t = m?.types.get(head);
      return t ? { kind: 'typed', type: t } : { kind: 'name' };
    }
    if (head === s.selfName && s.cls) return { kind: 'self', scope: s.cls };
    if (head === s.clsName && s.cls) return { kind: 'cls', scope: s.cls };
    const t = s.types.get(head);
    if (t) return { kind: 'typed', type: t };
    if (s.locals.has(head)) return { kind: 'local' };
  }
  return { kind: 'name' };
}

/**
 * Records `name: type` in a scope. A name bound to several types holds them all as
 * alternatives (`A|B`, at most three: more cancel each other, as does a value built from the
 * name itself, `x = x.copy()`, which this flow-insensitive record cannot follow).
 */
export function setType(scope: Scope, name: string, type: string | null): void {
  if (!type) return;
  const prev = scope.types.get(name);
  if (prev === '') return;
  // `x = x or Default()`: the name itself is its previous value; `x = x.copy()` is unknown.
  const alts = type.split('|');
  const own = alts.filter((a) => /^[^.(]*/.exec(a)![0] === name);
  if (own.some((a) => a !== name)) {
    scope.types.set(name, '');
    return;
  }
  type = alts.filter((a) => a !== name).join('|');
  if (!type) return;
  if (prev === undefined) {
    scope.types.set(name, type);
    return;
  }
  // A loop variable reused for other values (`for s in screens: …`, then `s = self.screen`)
  // keeps those: an element type, often of an unannotated list, would only crowd them out.
  const all = [...new Set([...prev.split('|'), ...type.split('|')])].join('|');
  const merged = (withoutElements(all) ?? all).split('|');
  scope.types.set(name, merged.length > 3 ? '' : merged.join('|'));
}
