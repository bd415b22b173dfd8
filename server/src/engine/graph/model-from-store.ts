// The symbol model built from the index: what a process that opens an existing index needs
// before its first change (a first index builds it file by file as it writes).
import type { Store } from '../store/store';
import { languageById } from '../languages/registry';
import type { Ent, SymbolModel } from './model';

export function loadModel(model: SymbolModel, store: Store): void {
    const files = store.files();
    const languages = new Map(files.map((f) => [f.path, languageById(f.language)]));
    // Rows bring a string per cell: the same ids, names and paths many times
    // over. One instance of each (a third of the model's heap on the stdlib).
    const pool = new Map<string, string>();
    const one = (x: string): string => {
      const had = pool.get(x);
      if (had !== undefined) return had;
      pool.set(x, x);
      return x;
    };
    const oneOrNull = (x: string | null): string | null => (x === null ? null : one(x));
    // Call sites stay in the index until a lookup asks for a callee's name (call-sites.ts).
    model.readCallsFrom({
      callsOf: (file) => store.callArgsOf(file).map(([source, target, receiver, rtype, args]) => ({ from: source, target, receiver, rtype, args })),
      filesReferring: (name) => store.pathsReferring(name),
    });
    const byFid = new Map(files.map((f) => [f.fid, f]));
    for (const [fid, r] of store.modelRows()) {
      const f = byFid.get(fid)!;
      const language = languages.get(f.path);
      if (!language) continue;
      const file = one(f.path);
      const entities: Ent[] = r.entities.map(([id, kind, name, qname, parent, bases, returns, alias, decorators]) => {
        const n = one(name);
        return {
          id,
          kind: one(kind),
          name: n,
          qname: qname ?? n,
          file,
          parent: oneOrNull(parent),
          bases: bases ? bases.map(one) : null,
          returns: oneOrNull(returns),
          alias,
          property: !!decorators && language.isPropertyGetter(decorators),
          overload: !!decorators && !!language.isOverloadStub?.(decorators),
        };
      });
      model.setFile({
        file,
        language,
        module: f.module,
        entities,
        bindings: r.imports.map(([source, local, module, member]) => ({ from: one(source), local: oneOrNull(local), module: one(module), member: oneOrNull(member) })),
        attrTypes: r.attrTypes.map(([cls, attr, type]) => ({ cls: one(cls), attr: one(attr), type: one(type) })),
      });
    }
}
