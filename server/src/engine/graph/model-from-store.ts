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
    const pathOf = new Map(files.map((f) => [f.fid, one(f.path)]));
    const ents = new Map<string, Ent[]>();
    for (const [id, kind, name, qname, fid, parent, bases, returns, alias, decoratorsJson] of store.entityLites()) {
      const path = fid === null ? undefined : pathOf.get(fid);
      if (!path) continue;
      let list = ents.get(path);
      if (!list) ents.set(path, (list = []));
      const decorators = decoratorsJson ? (JSON.parse(decoratorsJson) as string[]) : [];
      const lang = languages.get(path);
      const getter = decorators.length > 0 && !!lang?.isPropertyGetter(decorators);
      const overload = decorators.length > 0 && !!lang?.isOverloadStub?.(decorators);
      const n = one(name);
      list.push({ id: one(id), kind: one(kind), name: n, qname: qname ?? n, file: path, parent: oneOrNull(parent), bases: bases ? (JSON.parse(bases) as string[]).map(one) : null, returns: oneOrNull(returns), alias, property: getter, overload });
    }
    const bindings = groupBy(store.importRows(), (r) => r.path);
    const attrTypes = groupBy(store.attrTypeRows(), (r) => r.path);
    // Call sites stay in the index until a lookup asks for a callee's name (call-sites.ts).
    model.readCallsFrom({
      callsOf: (file) => store.callArgsOf(file).map(([source, target, receiver, rtype, args]) => ({ from: source, target, receiver, rtype, args })),
      filesReferring: (name) => store.pathsReferring(name),
    });
    for (const f of files) {
      const language = languages.get(f.path);
      if (!language) continue;
      model.setFile({
        file: one(f.path),
        language,
        module: f.module,
        entities: ents.get(f.path) ?? [],
        bindings: (bindings.get(f.path) ?? []).map((r) => ({ from: one(r.source), local: oneOrNull(r.local), module: one(r.module), member: oneOrNull(r.member) })),
        attrTypes: (attrTypes.get(f.path) ?? []).map((a) => ({ cls: one(a.cls), attr: one(a.attr), type: one(a.type) })),
      });
    }
}

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(r);
  }
  return m;
}
