// Dynamic dispatch: a call that names a method through an instance (`self`, `cls`, a typed
// receiver, an attribute of known type) may run an override of that method in a subclass of
// the receiver's class instead. Those overrides become *dispatch* edges ("may call"), kept apart
// from the method the call names. Language-neutral: classes, bases and members come from the
// symbol model; the rule is in ./README.md ("Dispatch").
import { lastSegment } from '../dotted';
import { TYPE_KINDS, type Ent, type FileSymbols, type SymbolModel } from './model';
import { Resolver, type RefInput, type Resolution } from './resolve';
import { SetsByKey } from './sets-by-key';

/** Receivers whose class is a static type: the object may be an instance of a subclass. */
const DISPATCHING: ReadonlySet<string | null> = new Set(['self', 'cls', 'typed']);

/**
 * At most this many dispatch edges per call (nearest first would need a policy; sorted by id
 * keeps the choice independent of indexing order, so incremental = cold).
 */
export const MAX_DISPATCH = 64;

/** The class-name part of a base expression: `pkg.Base[T]` / `Base<T>` → `Base`. */
export function baseName(base: string): string {
  return lastSegment(base.replace(/[[<(].*$/s, '').trim());
}

/** A Resolver that also says which overrides a resolved method call may reach. */
export class DispatchResolver extends Resolver {
  /** Classes by the name their base expressions give (`class D(pkg.C)` under `C`). */
  private readonly byBase = new SetsByKey<string, Ent>();
  /** Methods by name: a name defined once has no override anywhere. */
  private readonly methodsByName = new SetsByKey<string, Ent>();
  /** What `byBase` and `methodsByName` hold per file, and the file's symbols they were read from. */
  private readonly indexed = new Map<string, { fs: FileSymbols; entries: Array<[string, Ent]>; methods: Ent[] }>();
  private readonly subclassCache = new Map<string, { list: Ent[]; ids: Set<string> }>();
  /** `class id \0 method name` → the overrides below that class. */
  private readonly overrideCache = new Map<string, string[]>();
  private dispatchGen = -1;

  constructor(model: SymbolModel) {
    super(model);
  }

  /**
   * Ids of the methods that override the target of a call resolved as `res` in subclasses of
   * the receiver's class, transitively; sorted. None for calls without an instance receiver
   * (`super().m()` has one target; `C.m(x)` names its method), for property reads, for
   * ambiguous results, and for targets that are not the method the call names (a constructor).
   */
  overrides(ref: RefInput, res: Resolution): string[] {
    if (ref.relation !== 'CALLS' || ref.access || !DISPATCHING.has(ref.receiver) || res.targets.length !== 1) return [];
    this.syncDispatch();
    const name = lastSegment(ref.target);
    const many = this.methodsByName.count(name);
    if (many < 2) return [];
    const target = this.model.byId.get(res.targets[0]);
    if (!target || target.kind !== 'method' || target.name !== name) return [];
    const recv = this.receiverClass(ref);
    if (!recv) return [];
    const key = `${recv.id}\0${name}`;
    let out = this.overrideCache.get(key);
    if (!out) {
      out = [];
      const subs = this.subclasses(recv);
      // Walk the shorter list: the methods of that name, or the classes below the receiver's.
      if (many < subs.list.length) {
        for (const m of this.methodsByName.get(name)) if (m.parent && subs.ids.has(m.parent)) out.push(m.id);
      } else {
        for (const sub of subs.list) {
          const m: Ent | undefined = this.model.files.get(sub.file)?.byQname.get(`${sub.qname}.${name}`);
          if (m && m.kind === 'method') out.push(m.id);
        }
      }
      out = out.sort().slice(0, MAX_DISPATCH + 1);
      this.overrideCache.set(key, out);
    }
    // The target is in the receiver's MRO, so never below it; filtered all the same.
    return out.filter((id) => id !== target.id).slice(0, MAX_DISPATCH);
  }

  /** The static class of the object the call is made on: `self`'s class, a typed local's, an attribute's. */
  private receiverClass(ref: RefInput): Ent | undefined {
    const fs = this.model.files.get(ref.file);
    const from = this.model.byId.get(ref.source);
    if (!fs || !from) return undefined;
    let cls = ref.receiver === 'typed' ? (ref.rtype ? this.typeClass(fs, from, ref.rtype) : undefined) : this.enclosingClass(from);
    const segs = ref.target.split('.');
    for (let i = 0; i < segs.length - 1 && cls; i++) cls = this.attrClass(cls, segs[i]);
    return cls;
  }

  /**
   * Every workspace class below `cls`, each once (ids too, for membership). Candidates are found by the
   * names in their base expressions, then checked against their MRO (a name may be another
   * class's); only a checked subclass's own name leads further down.
   */
  private subclasses(cls: Ent): { list: Ent[]; ids: Set<string> } {
    const cached = this.subclassCache.get(cls.id);
    if (cached) return cached;
    const found = new Map<string, Ent>();
    const names = [cls.name];
    const tried = new Set<Ent>();
    for (let i = 0; i < names.length; i++) {
      for (const c of this.byBase.get(names[i])) {
        if (tried.has(c)) continue;
        tried.add(c);
        if (c === cls || !this.mro(c).mro.includes(cls)) continue;
        found.set(c.id, c);
        names.push(c.name);
      }
    }
    const out = { list: [...found.values()], ids: new Set(found.keys()) };
    this.subclassCache.set(cls.id, out);
    return out;
  }

  /** Brings `byBase` up to date with the model: only files whose symbols changed are read again. */
  private syncDispatch(): void {
    if (this.dispatchGen === this.model.generation) return;
    this.dispatchGen = this.model.generation;
    this.subclassCache.clear();
    this.overrideCache.clear();
    for (const [file, { fs, entries, methods }] of this.indexed) {
      if (this.model.files.get(file) === fs) continue;
      for (const [name, e] of entries) this.byBase.remove(name, e);
      for (const m of methods) this.methodsByName.remove(m.name, m);
      this.indexed.delete(file);
    }
    for (const [file, fs] of this.model.files) {
      if (this.indexed.has(file)) continue;
      const entries: Array<[string, Ent]> = [];
      const methods: Ent[] = [];
      for (const e of fs.byQname.values()) {
        if (e.kind === 'method' && e.parent) methods.push(e);
        if (!TYPE_KINDS.has(e.kind) || !e.bases) continue;
        for (const b of e.bases) entries.push([baseName(b), e]);
      }
      for (const m of methods) this.methodsByName.add(m.name, m);
      for (const [name, e] of entries) this.byBase.add(name, e);
      this.indexed.set(file, { fs, entries, methods });
    }
  }
}

/**
 * Names of the methods defined in the classes named `classes` and in every class that inherits
 * from them, by base names, transitively: when such a class appears or goes, calls of these
 * names on an ancestor may gain or lose a dispatch edge. A superset, which re-resolution wants.
 */
export function methodNamesBelow(model: SymbolModel, classes: Set<string>): Set<string> {
  const byBase = new Map<string, Ent[]>();
  const members = new Map<string, string[]>();
  for (const e of model.byId.values()) {
    if (TYPE_KINDS.has(e.kind) && e.bases) {
      for (const b of e.bases) {
        const k = baseName(b);
        const l = byBase.get(k);
        if (l) l.push(e);
        else byBase.set(k, [e]);
      }
    }
    if (e.kind === 'method' && e.parent) {
      const l = members.get(e.parent);
      if (l) l.push(e.name);
      else members.set(e.parent, [e.name]);
    }
  }
  const out = new Set<string>();
  const seen = new Set<string>(classes);
  const todo = [...classes];
  const visited = new Set<Ent>();
  while (todo.length) {
    for (const c of byBase.get(todo.pop()!) ?? []) {
      if (visited.has(c)) continue;
      visited.add(c);
      for (const n of members.get(c.id) ?? []) out.add(n);
      if (!seen.has(c.name)) seen.add(c.name), todo.push(c.name);
    }
  }
  return out;
}
