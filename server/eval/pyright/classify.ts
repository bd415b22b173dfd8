// Why the two sides disagree: each missed edge (pyright has it, NSCCN does not) and each extra
// edge (NSCCN has it, pyright does not) is put into one category from what both sides say at
// its first call site and from the shape of the call in the source. The categories name the
// resolution feature that would fix the edge, so the counts rank the work.
import type { CallFact, Comparison, Edge, EntityIndex, EntityInfo } from './compare';
import { disagreements } from './compare';
import { callShape, hasStarImport, importsName, localOrigin, parameterNames, type CallShape } from './shape';

export interface ClassifyContext {
  /** Source lines of a workspace file. */
  lines(file: string): string[];
  /** Signature line of a function/method entity. */
  signature(id: string): string | undefined;
}

export interface Example {
  caller: string;
  /** 1-based line of the call. */
  line: number;
  code: string;
  callee: string;
  /** What the other side says at the same site. */
  other: string;
}

export interface Category {
  category: string;
  count: number;
  examples: Example[];
}

export interface Classification {
  missed: Category[];
  extra: Category[];
  /** Every disagreement with its category, for looking further than the examples. */
  edges: Array<{ side: 'missed' | 'extra'; caller: string; callee: string; site: string; category: string }>;
}

export function classify(cmp: Comparison, ctx: ClassifyContext, maxExamples = 8): Classification {
  const { missed, extra } = disagreements(cmp);
  const all: Classification['edges'] = [];
  const run = (side: 'missed' | 'extra', edges: Edge[], why: (e: Edge, site: Site) => string, otherSide: (s: Site) => CallFact[]) => {
    const members = new Map<string, Array<{ e: Edge; site: Site }>>();
    for (const e of edges) {
      const site = readSite(cmp, ctx, e);
      const name = why(e, site);
      all.push({ side, caller: e.caller, callee: e.callee, site: e.sites[0], category: name });
      const list = members.get(name) ?? [];
      list.push({ e, site });
      members.set(name, list);
    }
    const cats: Category[] = [...members].map(([category, list]) => ({
      category,
      count: list.length,
      // Spread over the category (edges come in file order), not its first file only.
      examples: spread(list, maxExamples).map(({ e, site }) => ({
        caller: e.caller,
        line: site.row + 1,
        code: site.text.trim().slice(0, 140),
        callee: e.callee,
        other: otherSide(site).map(describe).join(', ') || 'nothing',
      })),
    }));
    return cats.sort((a, b) => b.count - a.count || a.category.localeCompare(b.category));
  };
  return {
    missed: run('missed', missed, (e, s) => whyMissed(cmp.index, ctx, e, s), (s) => s.facts.nsccn),
    extra: run('extra', extra, (e, s) => whyExtra(cmp.index, ctx, e, s), (s) => s.facts.pyright),
    edges: all,
  };
}

/** Up to `n` items evenly spaced over `list`, in order. */
function spread<T>(list: T[], n: number): T[] {
  if (list.length <= n) return list;
  return Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
}

interface Site {
  file: string;
  row: number;
  column: number;
  text: string;
  shape: CallShape;
  facts: { pyright: CallFact[]; nsccn: CallFact[] };
}

function readSite(cmp: Comparison, ctx: ClassifyContext, e: Edge): Site {
  const key = e.sites[0];
  const m = /^(.*):(\d+):(\d+)$/.exec(key)!;
  const file = m[1];
  const row = Number(m[2]);
  const column = Number(m[3]);
  const text = ctx.lines(file)[row] ?? '';
  const at = calleeColumn(text, column, e.callee);
  return { file, row, column: at, text, shape: callShape(text, at), facts: cmp.sites.get(key) ?? { pyright: [], nsccn: [] } };
}

/**
 * Where the callee's own name is: pyright's site is at it, tsserver's at the start of the callee
 * expression (`gen` of `gen.if(…)`), where the name read would be the receiver's and every method
 * call would look like a property read.
 */
export function calleeColumn(line: string, column: number, callee: string): number {
  const qname = callee.slice(callee.lastIndexOf(':') + 1).replace(/#\d+$/, '');
  const name = qname.slice(qname.lastIndexOf('.') + 1);
  const chain = /^[\w$]+(?:\s*\.\s*[\w$]+)*/.exec(line.slice(column))?.[0] ?? '';
  const found = [...chain.matchAll(/[\w$]+/g)].filter((m) => m[0] === name).pop();
  return found?.index !== undefined ? column + found.index : column;
}

function describe(f: CallFact): string {
  const t = f.target;
  switch (t.kind) {
    case 'entity':
      return `${t.id}${f.ambiguous ? ' (ambiguous)' : ''}`;
    case 'unresolved':
      return `?${t.name}`;
    case 'external':
      return `${t.where} ${t.name}`;
    case 'location':
      return `${t.file}:${t.pos.row + 1} ${t.name} (no entity)`;
  }
}

const entityTargets = (facts: CallFact[]): string[] =>
  facts.flatMap((f) => (f.target.kind === 'entity' ? [f.target.id] : []));

/** Both resolved, to different entities: which kind of difference? */
function differentTarget(index: EntityIndex, mine: string, theirs: string[]): string {
  const ent = (id: string) => index.byId.get(id);
  const ctor = (id: string) => ent(id)?.kind === 'class' || ent(id)?.name === '__init__' || ent(id)?.name === '__new__';
  if (ctor(mine) || theirs.some(ctor)) return 'constructor resolved differently (class, own or inherited __init__)';
  const name = ent(mine)?.name;
  if (name && theirs.some((t) => ent(t)?.name === name)) return 'same name, another definition (override, base class or conditional def)';
  return 'resolved to another entity';
}

/** The receiver of an unresolved call, in resolution-feature terms. */
function receiverCategory(index: EntityIndex, ctx: ClassifyContext, caller: string, site: Site): string {
  const r = site.shape.receiver;
  const callerEnt = index.byId.get(caller);
  const params = parameterNames(ctx.signature(caller) ?? '');
  const selfName = callerEnt?.kind === 'method' ? params[0] : undefined;
  const body = callerEnt ? ctx.lines(callerEnt.file).slice(callerEnt.start.row, callerEnt.end.row + 1) : [];
  const fileLines = ctx.lines(site.file);
  const narrowed = (name: string) => body.some((l) => new RegExp(`isinstance\\(\\s*${escape(name)}\\s*,`).test(l));
  if (r === null) {
    if (params.includes(site.shape.name)) return 'plain name: a parameter (function-valued)';
    if (localOrigin(body, site.shape.name)) return 'plain name: a local variable holding a callable';
    if (hasStarImport(fileLines)) return 'plain name: star import in the file';
    return 'plain name: other';
  }
  if (r === 'self' || r === 'cls' || (selfName && r === selfName)) return 'self/cls method not found (inherited from an unresolved base, or set dynamically)';
  if (/^super\(.*\)$/.test(r)) return 'super() method not found';
  const selfAttr = new RegExp(`^(?:self|cls${selfName ? '|' + escape(selfName) : ''})\\.(\\w+)$`).exec(r);
  if (selfAttr) return `method through self.x of unknown type: ${selfAttrOrigin(index, ctx, callerEnt, selfAttr[1])}`;
  if (/^(self|cls)(\.\w+)+$/.test(r)) return 'method through self.x.y (attribute chain)';
  if (/^\w+$/.test(r)) {
    if (narrowed(r)) return 'method on a name narrowed by isinstance()';
    if (params.includes(r)) return 'method on a parameter (type from annotation or default)';
    switch (localOrigin(body, r)) {
      case 'call':
        return "method on a local holding a function's return value (x = f(); x.m())";
      case 'construct':
        return 'method on a local constructed from a class (x = C(); x.m())';
      case 'loop':
        return 'method on a local bound by for/with/except';
      case 'other':
        return 'method on a local assigned from another expression';
      default:
        break;
    }
    if (index.byId.has(`global:${site.file}:${r}`) || (importsName(fileLines, r) && isGlobalName(index, r))) {
      return 'method on a module-level variable (logger = getLogger(); logger.debug())';
    }
    if (importsName(fileLines, r)) return 'function through an imported module (m.f())';
    return 'method on a name of an enclosing scope';
  }
  if (r.endsWith(')')) return "method on a call's result (f().m(), C().m())";
  if (r.endsWith(']')) return 'method on a subscript (x[i].m())';
  if (/^[\w.]+$/.test(r)) {
    const head = r.slice(0, r.indexOf('.'));
    if (importsName(fileLines, head)) return 'function through a dotted module path (a.b.f())';
    if (params.includes(head)) return 'method through an attribute of a parameter (p.x.m())';
    return 'method through an attribute of a local or global (v.x.m())';
  }
  return 'method on another expression (literal, comprehension, ...)';
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function isGlobalName(index: EntityIndex, name: string): boolean {
  for (const e of index.byId.values()) if (e.kind === 'global' && e.name === name) return true;
  return false;
}

/** How `self.<attr>` is assigned in the caller's class: what NSCCN would need to type it. */
function selfAttrOrigin(index: EntityIndex, ctx: ClassifyContext, callerEnt: EntityInfo | undefined, attr: string): string {
  let cls = callerEnt;
  while (cls && cls.kind !== 'class') cls = cls.parent ? index.byId.get(cls.parent) : undefined;
  if (!cls) return 'not in a class';
  const lines = ctx.lines(cls.file).slice(cls.start.row, cls.end.row + 1);
  const assign = new RegExp(`\\bself\\.${escape(attr)}\\s*(?::[^=]+)?=(?!=)\\s*(.+)$`);
  const rhs = lines.map((l) => assign.exec(l)?.[1]?.trim()).filter((x): x is string => !!x);
  if (!rhs.length) return 'assigned outside the class (base class, caller or setattr)';
  const method = new RegExp(`^\\s*(?:async\\s+)?def\\s+\\w+\\s*\\(([^)]*)`);
  const paramsOfClass = new Set(lines.flatMap((l) => parameterNames(method.exec(l)?.[0] ?? '')));
  if (rhs.some((x) => /^[A-Za-z_]\w*$/.test(x) && paramsOfClass.has(x))) return 'assigned from a parameter';
  if (rhs.some((x) => /^(?:await\s+)?[A-Za-z_][\w.]*\s*\(/.test(x))) return "assigned from a call's result";
  return 'assigned from another expression';
}

function whyMissed(index: EntityIndex, ctx: ClassifyContext, e: Edge, site: Site): string {
  if (!site.shape.isCall && !site.shape.decorator) return 'property access (pyright counts the getter as a call)';
  const mine = site.facts.nsccn;
  if (!mine.length) return 'no NSCCN reference at the site';
  const resolved = entityTargets(mine);
  if (resolved.length) return `NSCCN: ${differentTarget(index, resolved[0], [e.callee])}`;
  return `NSCCN unresolved: ${receiverCategory(index, ctx, e.caller, site)}`;
}

function whyExtra(index: EntityIndex, ctx: ClassifyContext, e: Edge, site: Site): string {
  if (site.shape.decorator && !site.shape.isCall) return 'bare decorator (NSCCN counts @d as a call of d; pyright does not)';
  const theirs = site.facts.pyright;
  const resolved = entityTargets(theirs);
  if (resolved.length) return `pyright: ${differentTarget(index, e.callee, resolved)}`;
  if (theirs.some((f) => f.target.kind === 'external')) return 'pyright resolves the site outside the workspace (builtin/library)';
  if (e.ambiguous) return 'ambiguous candidate, pyright found none';
  const r = site.shape.receiver;
  const callerEnt = index.byId.get(e.caller);
  const callee = index.byId.get(e.callee);
  const params = parameterNames(ctx.signature(e.caller) ?? '');
  const selfName = callerEnt?.kind === 'method' ? params[0] : undefined;
  const fileLines = ctx.lines(site.file);
  // The call names something else than what NSCCN says it runs: a global that is another name
  // (`check = isfuture`, then `check(x)`), followed to that definition (graph/README.md: aliases).
  // pyright lists only calls of declarations. (A constructor inherited from a base also differs
  // in name; such calls that pyright misses land here too.)
  const constructs = callee?.name === '__init__' && site.shape.name !== '__init__';
  const runs = constructs && callee?.parent ? index.byId.get(callee.parent)?.name : callee && (callee.kind === 'class' || callee.kind === 'function') ? callee.name : undefined;
  if (runs && runs !== site.shape.name && site.shape.name !== selfName && site.shape.name !== 'cls') {
    return 'pyright found none: called through a name for another definition (`check = isfuture; check(x)`; pyright lists calls of declarations only)';
  }
  if (r === null) {
    if (site.shape.name === selfName || site.shape.name === 'cls') return 'pyright found none: self()/cls() call (pyright does not follow it to __call__/__init__)';
    if (callee && callerEnt && callee.file !== callerEnt.file && !importsName(fileLines, site.shape.name)) {
      return 'pyright found none: plain name guessed across files (same directory / unique name, not imported)';
    }
    return 'pyright found none: plain name';
  }
  if (r === 'self' || r === 'cls' || r === selfName || /^super\(/.test(r)) return 'pyright found none: self/cls/super method';
  if (/^(?:self|cls)\.\w+$/.test(r) || (selfName && new RegExp(`^${escape(selfName)}\\.\\w+$`).test(r))) return 'pyright found none: self.x typed by NSCCN';
  if (/^\w+(\.\w+)+$/.test(r) && importsName(fileLines, r.slice(0, r.indexOf('.')))) {
    return 'pyright found none: submodule through its package (import pkg; pkg.sub.f()): pyright wants `import pkg.sub`';
  }
  if (/^\w+$/.test(r) && !params.includes(r) && !importsName(fileLines, r)) return 'pyright found none: local typed by NSCCN';
  return 'pyright found none: other receiver';
}
