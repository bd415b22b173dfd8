// The pure part of the CALLS eval: pyright's call sites and NSCCN's CALLS edges, both reduced
// to (caller, callee) pairs over the same entities, then counted. No I/O here, so the rules
// (target mapping, class/__init__ normalisation, caller attribution, scope) are unit-tested.
//
// Rules, in the order they apply:
// 1. A pyright target is mapped to our entity by (file, start of its name); a target outside the
//    workspace is dropped (typeshed, site-packages), as is an NSCCN edge with no target.
// 2. A callee key is the entity id, except that a class and its constructor are one callee:
//    a class maps to the first `__init__` of its MRO in the workspace (as NSCCN resolves
//    `Cls()`), or to itself when none exists. An `@overload` stub and the definition it types
//    (its implementation) are one callee too: pyright names the first stub, NSCCN the
//    implementation (graph/README.md rule 2). A property's setter and deleter are its getter's
//    callee too: at a read, pyright names the property's last declaration, NSCCN the getter.
// 3. A call site belongs to the caller NSCCN attributes it to when NSCCN has a reference there
//    (pyright reports calls of nested functions and of default values under the outer
//    function; where a call belongs is a convention, not what is measured); otherwise to the
//    innermost function or method whose name..end contains the site.
// 4. Only callers that are functions or methods count, and only callees that are defs
//    (function, method, class): NSCCN's edges to a variable holding a callable (`isfuture =
//    base_futures.isfuture`, `self._factory = factory`) have no pyright counterpart by
//    construction, so they are counted apart.
// 5. Callers pyright gives no answer of its own for (no item, the item of another def of the
//    same name, a failed request) count on neither side.

export interface Pos {
  row: number;
  column: number;
}

export interface EntityInfo {
  id: string;
  kind: string;
  file: string;
  name: string;
  nameStart: Pos;
  /** The entity's whole span (decorators included when NSCCN includes them). */
  start: Pos;
  end: Pos;
  parent: string | null;
  /** An `@overload` stub: the id of the definition it types (the implementation, else the first stub). */
  overloadOf?: string;
  /** A property's setter or deleter (`@x.setter`): the id of its getter. */
  accessorOf?: string;
}

export type TargetRef =
  /** NSCCN resolved the call to this entity. */
  | { kind: 'entity'; id: string }
  /** pyright's target inside the workspace: file + start of the declaration's name. */
  | { kind: 'location'; file: string; pos: Pos; name: string }
  /** pyright's target outside the workspace (builtins, typeshed, installed packages). */
  | { kind: 'external'; name: string; where: string }
  /** NSCCN kept the call unresolved with the name as written. */
  | { kind: 'unresolved'; name: string };

/** One call site and one of its targets, as one side sees it. */
export interface CallFact {
  /** The entity asked (pyright) or the edge's source (NSCCN). */
  caller: string;
  file: string;
  site: Pos;
  target: TargetRef;
  ambiguous?: boolean;
}

export interface Edge {
  caller: string;
  callee: string;
  /** Sites (`file:row:col`) where the call occurs, in first-seen order. */
  sites: string[];
  /** True when every fact behind the edge was an ambiguous candidate (NSCCN only). */
  ambiguous: boolean;
  /** True when no site is a call: pyright reports property reads as calls of the getter. */
  propertyRead: boolean;
}

export interface Drops {
  pyrightExternal: number;
  pyrightUnmapped: number;
  pyrightOutOfScopeCaller: number;
  nsccnUnresolved: number;
  nsccnOutOfScopeCaller: number;
  /** NSCCN facts of callers pyright gave no answer for (`compareCalls`'s `unanswered`). */
  nsccnUnansweredCaller: number;
  /** NSCCN edges to a variable (global/attr holding a callable): pyright reports defs only. */
  nsccnVariableCallee: number;
  /** NSCCN CALLS written for `f.call(…)` / `f.apply(…)`, where the other side names `Function.prototype.call`. */
  nsccnInvoked: number;
  variableExamples: string[];
  /** Unmapped pyright targets, a few, for the report. */
  unmappedExamples: string[];
}

export interface Comparison {
  pyright: Map<string, Edge>;
  nsccn: Map<string, Edge>;
  /** Every fact of both sides by site key, external and unresolved ones included. */
  sites: Map<string, { pyright: CallFact[]; nsccn: CallFact[] }>;
  drops: Drops;
  /** pyright sites attributed to another caller than the one asked (nested defs, defaults). */
  reattributed: number;
  index: EntityIndex;
}

export interface Metrics {
  pyright: number;
  /** NSCCN edges with at least one unambiguous fact. */
  nsccn: number;
  /** NSCCN edges made only of ambiguous candidates. */
  nsccnAmbiguous: number;
  agreed: number;
  agreedAmbiguous: number;
  precision: number | null;
  precisionWithAmbiguous: number | null;
  recall: number | null;
  recallWithAmbiguous: number | null;
}

export const CALLER_KINDS = new Set(['function', 'method']);
/** What `Cls()` / `new Cls()` runs, per language compared (Python, TypeScript/JavaScript). */
const CONSTRUCTORS = new Set(['__init__', 'constructor']);

export const posKey = (file: string, p: Pos): string => `${file}:${p.row}:${p.column}`;
export const edgeKey = (caller: string, callee: string): string => `${caller}\u0000${callee}`;

export class EntityIndex {
  readonly byId = new Map<string, EntityInfo>();
  private readonly byName = new Map<string, string>();
  private readonly byFile = new Map<string, EntityInfo[]>();
  private readonly bases = new Map<string, string[]>();
  private readonly inits = new Map<string, string>();
  private readonly keyCache = new Map<string, string>();

  /** `inherits`: resolved INHERITS edges, [class, base], bases in source order. */
  constructor(entities: EntityInfo[], inherits: Array<[string, string]>) {
    for (const e of entities) {
      this.byId.set(e.id, e);
      // By parent, not by id: `class:f:C#2`'s constructor is `method:f:C.__init__#2`.
      if (e.kind === 'method' && CONSTRUCTORS.has(e.name) && e.parent && !this.inits.has(e.parent)) this.inits.set(e.parent, e.id);
      this.byName.set(posKey(e.file, e.nameStart), e.id);
      const list = this.byFile.get(e.file) ?? [];
      list.push(e);
      this.byFile.set(e.file, list);
    }
    for (const [cls, base] of inherits) {
      const list = this.bases.get(cls) ?? [];
      if (!list.includes(base)) list.push(base);
      this.bases.set(cls, list);
    }
  }

  /** The entity whose name starts at `pos` in `file`. */
  atName(file: string, pos: Pos): string | undefined {
    return this.byName.get(posKey(file, pos));
  }

  /** Rule 2: one key for a class and the constructor `Cls()` runs. */
  calleeKey(id: string): string {
    const cached = this.keyCache.get(id);
    if (cached) return cached;
    const e = this.byId.get(id);
    // Rule 2b: an `@overload` stub and its implementation are one callee (pyright answers with
    // the first stub's declaration, NSCCN with the implementation).
    // Rule 2c: a property's setter or deleter and its getter are one callee: at a read of the
    // property pyright names the last declaration of its name (often the setter), NSCCN the
    // getter a read runs.
    let key = e?.overloadOf ?? e?.accessorOf ?? id;
    if (e?.kind === 'class') {
      const seen = new Set<string>();
      const visit = (c: string): string | undefined => {
        if (seen.has(c)) return undefined;
        seen.add(c);
        const init = this.inits.get(c);
        if (init) return init;
        for (const b of this.bases.get(c) ?? []) {
          const found = visit(b);
          if (found) return found;
        }
        return undefined;
      };
      key = visit(id) ?? id;
      key = this.byId.get(key)?.overloadOf ?? key;
    }
    this.keyCache.set(id, key);
    return key;
  }

  /** Rule 3's fallback: innermost function/method whose name..end range contains the site. */
  innermostCaller(file: string, site: Pos): string | undefined {
    let best: EntityInfo | undefined;
    for (const e of this.byFile.get(file) ?? []) {
      if (!CALLER_KINDS.has(e.kind)) continue;
      if (before(site, e.nameStart) || !before(site, e.end)) continue;
      if (!best || before(best.nameStart, e.nameStart)) best = e;
    }
    return best?.id;
  }
}

function before(a: Pos, b: Pos): boolean {
  return a.row < b.row || (a.row === b.row && a.column < b.column);
}

function addEdge(map: Map<string, Edge>, caller: string, callee: string, site: string, ambiguous: boolean, propertyRead = false): void {
  const k = edgeKey(caller, callee);
  const e = map.get(k);
  if (!e) {
    map.set(k, { caller, callee, sites: [site], ambiguous, propertyRead });
    return;
  }
  if (!e.sites.includes(site)) e.sites.push(site);
  e.ambiguous = e.ambiguous && ambiguous;
  e.propertyRead = e.propertyRead && propertyRead;
}

/**
 * `isCall(file, site)`: whether the name at the site is called (followed by `(`); pyright also
 * reports property reads, which then form edges marked `propertyRead`. Default: all are calls.
 */
export function compareCalls(
  index: EntityIndex,
  pyright: CallFact[],
  nsccn: CallFact[],
  isCall: (file: string, site: Pos) => boolean = () => true,
  unanswered: ReadonlySet<string> = new Set(),
  invoked: (file: string, site: Pos) => boolean = () => false,
): Comparison {
  const drops: Drops = {
    pyrightExternal: 0,
    pyrightUnmapped: 0,
    pyrightOutOfScopeCaller: 0,
    nsccnUnresolved: 0,
    nsccnOutOfScopeCaller: 0,
    nsccnUnansweredCaller: 0,
    nsccnVariableCallee: 0,
    nsccnInvoked: 0,
    variableExamples: [],
    unmappedExamples: [],
  };
  const sites = new Map<string, { pyright: CallFact[]; nsccn: CallFact[] }>();
  const at = (k: string) => {
    let s = sites.get(k);
    if (!s) sites.set(k, (s = { pyright: [], nsccn: [] }));
    return s;
  };
  // Callers pyright could not be asked about count on neither side.
  const inScope = (id: string) => CALLER_KINDS.has(index.byId.get(id)?.kind ?? '') && !unanswered.has(id);

  const nsccnEdges = new Map<string, Edge>();
  const nsccnCallerAt = new Map<string, string>();
  for (const f of nsccn) {
    const k = posKey(f.file, f.site);
    at(k).nsccn.push(f);
    if (!nsccnCallerAt.has(k)) nsccnCallerAt.set(k, f.caller);
    if (unanswered.has(f.caller)) {
      drops.nsccnUnansweredCaller++;
      continue;
    }
    if (!inScope(f.caller)) {
      drops.nsccnOutOfScopeCaller++;
      continue;
    }
    if (f.target.kind !== 'entity') {
      drops.nsccnUnresolved++;
      continue;
    }
    if (invoked(f.file, f.site)) {
      drops.nsccnInvoked++;
      continue;
    }
    const kind = index.byId.get(f.target.id)?.kind;
    if (kind === 'global' || kind === 'attr') {
      drops.nsccnVariableCallee++;
      if (drops.variableExamples.length < 10) drops.variableExamples.push(`${f.caller} -> ${f.target.id} at ${k}`);
      continue;
    }
    addEdge(nsccnEdges, f.caller, index.calleeKey(f.target.id), k, !!f.ambiguous);
  }

  const pyrightEdges = new Map<string, Edge>();
  let reattributed = 0;
  // The same fact arrives once per enclosing def asked; count each (site, target) once.
  const seenFacts = new Set<string>();
  for (const f of pyright) {
    const k = posKey(f.file, f.site);
    const t = f.target;
    const targetKey = t.kind === 'location' ? posKey(t.file, t.pos) : t.kind === 'entity' ? t.id : `${t.kind}:${t.name}`;
    if (seenFacts.has(`${k}\u0000${targetKey}`)) continue;
    seenFacts.add(`${k}\u0000${targetKey}`);
    const caller = nsccnCallerAt.get(k) ?? index.innermostCaller(f.file, f.site) ?? f.caller;
    if (caller !== f.caller) reattributed++;
    const fact: CallFact = { ...f, caller };
    at(k).pyright.push(fact);
    if (t.kind === 'external') {
      drops.pyrightExternal++;
      continue;
    }
    let id: string | undefined;
    if (t.kind === 'entity') id = t.id;
    else if (t.kind === 'location') id = index.atName(t.file, t.pos);
    if (!id) {
      drops.pyrightUnmapped++;
      if (drops.unmappedExamples.length < 10) drops.unmappedExamples.push(`${targetKey} (${'name' in t ? t.name : ''}) from ${k}`);
      continue;
    }
    if (!inScope(caller)) {
      drops.pyrightOutOfScopeCaller++;
      continue;
    }
    fact.target = { kind: 'entity', id };
    addEdge(pyrightEdges, caller, index.calleeKey(id), k, false, !isCall(f.file, f.site));
  }
  return { pyright: pyrightEdges, nsccn: nsccnEdges, sites, drops, reattributed, index };
}

const ratio = (a: number, b: number): number | null => (b ? a / b : null);

/**
 * Precision and recall over the edges whose caller `filter` keeps (all when absent); with
 * `callsOnly`, pyright's property-read edges are left out (NSCCN does not model them as calls).
 */
export function metrics(cmp: Comparison, filter: (caller: string) => boolean = () => true, callsOnly = false): Metrics {
  let pyright = 0;
  let nsccn = 0;
  let nsccnAmbiguous = 0;
  let agreed = 0;
  let agreedAmbiguous = 0;
  for (const e of cmp.pyright.values()) if (filter(e.caller) && !(callsOnly && e.propertyRead)) pyright++;
  for (const [k, e] of cmp.nsccn) {
    if (!filter(e.caller)) continue;
    const theirs = cmp.pyright.get(k);
    const hit = !!theirs && !(callsOnly && theirs.propertyRead);
    if (e.ambiguous) {
      nsccnAmbiguous++;
      if (hit) agreedAmbiguous++;
    } else {
      nsccn++;
      if (hit) agreed++;
    }
  }
  return {
    pyright,
    nsccn,
    nsccnAmbiguous,
    agreed,
    agreedAmbiguous,
    precision: ratio(agreed, nsccn),
    precisionWithAmbiguous: ratio(agreed + agreedAmbiguous, nsccn + nsccnAmbiguous),
    recall: ratio(agreed, pyright),
    recallWithAmbiguous: ratio(agreed + agreedAmbiguous, pyright),
  };
}

/** pyright edges NSCCN lacks, and NSCCN edges pyright lacks. */
export function disagreements(cmp: Comparison): { missed: Edge[]; extra: Edge[] } {
  return {
    missed: [...cmp.pyright].filter(([k]) => !cmp.nsccn.has(k)).map(([, e]) => e),
    extra: [...cmp.nsccn].filter(([k]) => !cmp.pyright.has(k)).map(([, e]) => e),
  };
}

/** Package of a caller: the first folder of its file. */
export function packageOf(index: EntityIndex, caller: string): string {
  const file = index.byId.get(caller)?.file ?? '';
  const i = file.indexOf('/');
  return i < 0 ? file : file.slice(0, i);
}
