// Name resolution: a raw reference + the symbol model → zero, one or several target ids.
// The rules are written down in ./README.md; keep the two in step.
import { entityId, type Relation } from '../../../../protocol';
import type { ConfigKind, ReceiverKind } from '../languages/types';
import { TYPE_KINDS, type CallSite, type Ent, type FileSymbols } from './model';
import { lastSegment } from '../dotted';
import { NameLookup } from './lookup';
import { MAX_CANDIDATES, type Found } from './lookup-state';

/** A reference as resolution reads it: a `RawRef` flattened, with the file it is in. */
export interface RefInput {
  file: string;
  source: string;
  relation: Relation;
  target: string;
  receiver: ReceiverKind | null;
  /** The type expression of a `typed` receiver. */
  rtype: string | null;
  configKind: ConfigKind | null;
  catches: string[] | null;
  /** A CALLS made by reading an attribute: only a property getter is a target. */
  access?: boolean;
}

export interface Resolution {
  targets: string[];
  ambiguous: boolean;
  /** PROPAGATES_ERROR: caught by an enclosing try at the site. */
  caught: boolean;
  /** Virtual entities (config keys, config files) the targets need. */
  virtual?: { id: string; kind: 'config' | 'file'; name: string };
}

const NONE: Resolution = { targets: [], ambiguous: false, caught: false };

export class Resolver extends NameLookup {
  resolve(ref: RefInput): Resolution {
    this.state.sync();
    const fs = this.model.files.get(ref.file);
    const from = this.model.byId.get(ref.source);
    if (!fs || !from) return NONE;
    this.state.inferred = false;
    switch (ref.relation) {
      case 'CALLS':
        return this.calls(fs, from, ref);
      case 'INHERITS':
        return this.result(this.path(fs, from, ref.target, true), (e) => TYPE_KINDS.has(e.kind));
      case 'IMPORTS':
        return this.result(this.members.importTarget(fs, ref.target), () => true);
      case 'MUTATES':
        return this.mutates(fs, from, ref);
      case 'READS_CONFIG':
        return this.config(fs, from, ref);
      case 'PROPAGATES_ERROR':
        return this.raises(fs, from, ref);
      default:
        return NONE;
    }
  }

  /** The functions a call site binds its arguments to (for a class, its constructor). */
  callees(site: CallSite): Ent[] {
    this.state.sync();
    const fs = this.model.files.get(site.file);
    const from = this.model.byId.get(site.from);
    if (!fs || !from) return [];
    this.state.inferred = false;
    return this.callers.callSite(fs, from, site).ents.map((e) => this.boundBy(e));
  }

  // --- relations ----------------------------------------------------------------------------

  protected calls(fs: FileSymbols, from: Ent, ref: RefInput): Resolution {
    const found = this.withReceiver(fs, from, ref);
    if (ref.access) {
      // `self.name` calls the getter of property `name` (a setter of the same name may have
      // won the lookup: take the getter among the definitions of that name).
      const getters = found.ents.flatMap((e) => {
        const all = this.model.files.get(e.file)?.dupes.get(e.qname) ?? [e];
        return all.filter((x) => x.property && x.kind === 'method');
      });
      return getters.length ? { targets: [getters[0].id], ambiguous: false, caught: false } : NONE;
    }
    const ents = found.ents.map((e) => this.boundBy(e));
    return this.result({ ents, ambiguous: found.ambiguous || this.state.inferred }, (e) => e.kind !== 'module');
  }

  protected mutates(fs: FileSymbols, from: Ent, ref: RefInput): Resolution {
    const segs = ref.target.split('.');
    const attr = segs[segs.length - 1];
    let owner: Ent | undefined;
    if (ref.receiver === 'self' || ref.receiver === 'cls' || ref.receiver === 'typed') {
      let cls = ref.receiver === 'typed' ? this.typeClass(fs, from, ref.rtype!) : this.enclosingClass(from);
      for (const s of segs.slice(0, -1)) cls = cls ? this.attrClass(cls, s) : undefined;
      if (!cls) return NONE;
      const declared = this.member(cls, attr, (e) => e.kind === 'attr');
      return declared ? this.one(declared) : NONE;
    }
    if (ref.receiver) return NONE;
    if (segs.length === 1) {
      const f = this.name(fs, from, attr, false);
      return this.result(f, (e) => e.kind === 'global');
    }
    owner = this.single(this.path(fs, from, segs.slice(0, -1).join('.'), false));
    if (!owner) return NONE;
    if (owner.kind === 'module') {
      const g = this.model.files.get(owner.file)?.byQname.get(attr);
      return g && g.kind === 'global' ? this.one(g) : NONE;
    }
    if (owner.kind === 'class') {
      const declared = this.member(owner, attr, (e) => e.kind === 'attr');
      return declared ? this.one(declared) : NONE;
    }
    return NONE;
  }

  protected config(fs: FileSymbols, from: Ent, ref: RefInput): Resolution {
    const virtual = (kind: 'config' | 'file', name: string): Resolution => {
      const id = entityId(kind, name, name);
      return { targets: [id], ambiguous: false, caught: false, virtual: { id, kind, name } };
    };
    switch (ref.configKind) {
      case 'env':
        return virtual('config', ref.target);
      case 'settings': {
        // `settings.DEBUG` where settings is a workspace module: the global itself.
        const g = this.single(this.path(fs, from, ref.target, false));
        return g && g.kind === 'global' ? this.one(g) : virtual('config', ref.target);
      }
      case 'file':
        return virtual('file', ref.target);
      case 'constant': {
        // A workspace global is the config itself; an unknown bare name is a config key of its
        // own; anything else (a class, an external module's constant) is not configuration.
        const found = this.path(fs, from, ref.target, false);
        const g = this.single(found);
        if (g) return g.kind === 'global' ? this.one(g) : NONE;
        const imported = fs.bindings.some((b) => b.local === ref.target || b.member === '*');
        return found.ents.length || imported || ref.target.includes('.') ? NONE : virtual('config', ref.target);
      }
      default:
        return NONE;
    }
  }

  protected raises(fs: FileSymbols, from: Ent, ref: RefInput): Resolution {
    const found = this.path(fs, from, ref.target, true);
    // `raise make_error(...)`: the exception is what the factory returns, when that is known.
    const cls = found.ents
      .map((e) => (e.kind === 'class' ? e : (e.kind === 'function' || e.kind === 'method') && e.returns ? this.typeClass(fs, from, ref.target) : undefined))
      .filter((e): e is Ent => !!e && e.kind === 'class');
    const caught = !!ref.catches && ref.catches.some((c) => this.catches(fs, from, c, cls[0], ref.target));
    if (!cls.length) return { ...NONE, caught };
    return { targets: cls.slice(0, MAX_CANDIDATES).map((e) => e.id), ambiguous: cls.length > 1, caught };
  }

  /** Does `except <handler>` catch the exception `exc` (an entity, or a name when external)? */
  catches(fs: FileSymbols, from: Ent, handler: string, exc: Ent | undefined, excName: string): boolean {
    this.state.sync();
    if (handler === '*') return true;
    const lang = fs.language;
    const names = new Set<string>();
    if (exc) {
      const { mro } = this.mro(exc);
      for (const k of mro) {
        names.add(k.name);
        for (const b of k.bases ?? []) names.add(lastSegment(b));
      }
    } else names.add(lastSegment(excName));
    // Walk builtin bases (KeyError → LookupError → Exception).
    for (const n of [...names]) {
      let b = lang.exceptionBases?.[n];
      for (let i = 0; b && i < 10; i++, b = lang.exceptionBases?.[b]) names.add(b);
    }
    const byName = lang.handlerCatches?.(handler, names);
    if (byName !== undefined) return byName;
    const h = this.single(this.path(fs, from, handler, true));
    if (h && exc && this.mro(exc).mro.includes(h)) return true;
    return names.has(lastSegment(handler));
  }

  protected one(e: Ent): Resolution {
    return { targets: [e.id], ambiguous: false, caught: false };
  }

  protected result(f: Found, ok: (e: Ent) => boolean): Resolution {
    const ents = [...new Set(f.ents.filter(ok))];
    if (!ents.length || ents.length > MAX_CANDIDATES) return NONE;
    return { targets: ents.map((e) => e.id), ambiguous: f.ambiguous || ents.length > 1, caught: false };
  }
}
