// The state of one TypeScript/JavaScript extraction: entities with unique ids, the stack of
// enclosing definitions (rebuilt from spans as query captures arrive in source order), locals
// with their types, and the try/catch ranges that decide whether a throw is caught.
import type { Node } from 'web-tree-sitter';
import { entityId } from '../../../../../protocol';
import type { AttrType, CodeKind, ExtractedEntity, ImportBinding, RawRef, Span } from '../types';

export interface Scope {
  ent: ExtractedEntity;
  start: number;
  /** End byte of the definition: the scope is popped when a capture starts at or after it. */
  end: number;
  /**
   * `function`: has locals; `class`: `this` is an instance; `container`: interface, enum,
   * namespace, an object literal bound to a name (its methods are `obj.m`).
   */
  kind: 'module' | 'class' | 'function' | 'container';
  /** A static member: `this` is the class itself. */
  isStatic: boolean;
  /** An arrow function: `this` is the enclosing scope's. */
  lexicalThis?: boolean;
  /** Local names → their type expression (null: untyped). Parameters included. */
  locals: Map<string, string | null>;
  /** Qualified-name prefix for members (`User`, `obj`); '' for the module. */
  prefix: string;
}

export interface TryRange {
  start: number;
  end: number;
  /** Exception names thrown directly in the try body: what a rethrow in its catch rethrows. */
  thrown: string[];
}

export interface CatchRange {
  start: number;
  end: number;
  param: string | null;
  thrown: string[];
}

export const MAX_BODY_WORDS = 60;

export function span(n: Node): Span {
  const s = n.startPosition;
  const e = n.endPosition;
  return { start: { row: s.row, column: s.column }, end: { row: e.row, column: e.column } };
}

export class ExtractionState {
  readonly entities: ExtractedEntity[] = [];
  readonly refs: RawRef[] = [];
  readonly imports: ImportBinding[] = [];
  readonly attrTypes: AttrType[] = [];
  readonly stack: Scope[] = [];
  readonly tries: TryRange[] = [];
  /** Every try body seen, by its start byte: its catch clause comes after it has ended. */
  readonly triesByStart = new Map<number, TryRange>();
  readonly catchesOpen: CatchRange[] = [];
  private readonly idCounts = new Map<string, number>();
  /** Qualified names already taken by a member attribute (`this.x =` declares `C.x` once). */
  readonly attrs = new Set<string>();

  constructor(
    readonly source: string,
    readonly file: string,
  ) {}

  uniqueId(kind: CodeKind, qname: string): string {
    const base = entityId(kind, this.file, qname);
    const n = (this.idCounts.get(base) ?? 0) + 1;
    this.idCounts.set(base, n);
    return n === 1 ? base : `${base}#${n}`;
  }

  openTry(start: number, end: number): void {
    const t: TryRange = { start, end, thrown: [] };
    this.tries.push(t);
    this.triesByStart.set(start, t);
  }

  get top(): Scope {
    return this.stack[this.stack.length - 1];
  }

  /** Pops the scopes, tries and catches that ended before `pos`. */
  advance(pos: number): void {
    while (this.stack.length > 1 && this.top.end <= pos) this.stack.pop();
    while (this.tries.length && this.tries[this.tries.length - 1].end <= pos) this.tries.pop();
    while (this.catchesOpen.length && this.catchesOpen[this.catchesOpen.length - 1].end <= pos) this.catchesOpen.pop();
  }

  /** The innermost scope that owns references (a function, class or the module). */
  owner(): Scope {
    for (let i = this.stack.length - 1; i >= 0; i--) if (this.stack[i].kind !== 'container' || i === 0) return this.stack[i];
    return this.stack[0];
  }

  /** The class `this` refers to, and whether it is the class itself (static member). */
  thisClass(): { cls: Scope; isStatic: boolean } | null {
    let isStatic = false;
    for (let i = this.stack.length - 1; i > 0; i--) {
      const s = this.stack[i];
      if (s.kind === 'class') return { cls: s, isStatic };
      if (s.kind === 'container') return null; // object-literal method: `this` is the object
      if (s.isStatic) isStatic = true;
      if (s.ent.kind === 'function' && !s.lexicalThis) return null; // a plain function has its own `this`
    }
    return null;
  }

  /** The type of a local visible here (undefined: not a local; null: untyped local). */
  local(name: string): string | null | undefined {
    for (let i = this.stack.length - 1; i > 0; i--) {
      const s = this.stack[i];
      if (s.locals.has(name)) return s.locals.get(name);
    }
    return undefined;
  }

  /** Handlers around a site in the current function: `*` for each enclosing try body. */
  catches(pos: number): string[] | undefined {
    const from = this.owner().start;
    const open = this.tries.filter((t) => t.start >= from && t.start <= pos && pos < t.end);
    return open.length ? open.map(() => '*') : undefined;
  }
}
