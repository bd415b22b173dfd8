// NSCCN's side of the CALLS eval, read from an indexed Engine: the entities (for target mapping
// and caller attribution), the INHERITS edges (for the class → constructor key) and every
// CALLS edge as a CallFact, unresolved ones included (the classifier looks at them).
import type { Engine } from '../../src/engine/engine';
import type { CallFact, EntityInfo } from './compare';

export interface NsccnSide {
  entities: EntityInfo[];
  inherits: Array<[string, string]>;
  facts: CallFact[];
  /** Signature line of each function/method (the classifier reads parameter names). */
  signatures: Map<string, string>;
}

export function readNsccnSide(engine: Engine): NsccnSide {
  const entities: EntityInfo[] = [];
  const inherits: Array<[string, string]> = [];
  const facts: CallFact[] = [];
  const signatures = new Map<string, string>();
  for (const f of engine.store.files()) {
    const fileEnts = engine.fileEntities(f.path);
    const overloadOf = overloadTargets(fileEnts);
    const accessorOf = accessorTargets(fileEnts);
    for (const e of fileEnts) {
      if (!e.file || !e.span || !e.nameSpan) continue;
      entities.push({
        id: e.id,
        kind: e.kind,
        file: e.file,
        name: e.name,
        nameStart: e.nameSpan.start,
        start: e.span.start,
        end: e.span.end,
        parent: e.parent,
        overloadOf: overloadOf.get(e.id),
        accessorOf: accessorOf.get(e.id),
      });
      if (e.kind === 'function' || e.kind === 'method') signatures.set(e.id, e.signature);
      for (const x of engine.outgoing(e.id, ['CALLS', 'INHERITS'])) {
        if (x.relation === 'INHERITS') {
          if (x.target) inherits.push([e.id, x.target]);
          continue;
        }
        // Pyright's call hierarchy names the method a call names; overrides are not calls there.
        if (x.dispatch) continue;
        facts.push({
          caller: e.id,
          file: x.file,
          site: x.span.start,
          target: x.target ? { kind: 'entity', id: x.target } : { kind: 'unresolved', name: x.targetName },
          ambiguous: x.ambiguous,
        });
      }
    }
  }
  return { entities, inherits, facts, signatures };
}

const isStub = (decorators: readonly string[]) => decorators.some((d) => /^(\w+\.)*overload$/.test(d));

/** `@overload` stubs of a file → the definition they fold into: the implementation, else the first stub. */
function overloadTargets(ents: ReadonlyArray<{ id: string; qname: string; kind: string; decorators: string[] }>): Map<string, string> {
  const byQname = new Map<string, Array<{ id: string; stub: boolean }>>();
  for (const e of ents) {
    if (e.kind !== 'function' && e.kind !== 'method') continue;
    const list = byQname.get(e.qname) ?? [];
    list.push({ id: e.id, stub: isStub(e.decorators) });
    byQname.set(e.qname, list);
  }
  const out = new Map<string, string>();
  for (const defs of byQname.values()) {
    if (!defs.some((d) => d.stub)) continue;
    const impl = defs.filter((d) => !d.stub).pop() ?? defs[0];
    for (const d of defs) if (d.stub && d.id !== impl.id) out.set(d.id, impl.id);
  }
  return out;
}

/** A property's `@x.setter` / `@x.deleter` definitions of a file → the getter of the same name. */
function accessorTargets(ents: ReadonlyArray<{ id: string; name: string; qname: string; kind: string; decorators: string[] }>): Map<string, string> {
  const isAccessor = (e: { name: string; decorators: string[] }) => e.decorators.some((d) => d === `${e.name}.setter` || d === `${e.name}.deleter`);
  const getters = new Map<string, string>();
  for (const e of ents) if (e.kind === 'method' && !isAccessor(e) && !getters.has(e.qname)) getters.set(e.qname, e.id);
  const out = new Map<string, string>();
  for (const e of ents) {
    const getter = e.kind === 'method' && isAccessor(e) ? getters.get(e.qname) : undefined;
    if (getter && getter !== e.id) out.set(e.id, getter);
  }
  return out;
}

/** The functions and methods pyright is asked about. */
export function callersOf(side: NsccnSide): Array<{ id: string; file: string; name: { row: number; column: number } }> {
  return side.entities.filter((e) => e.kind === 'function' || e.kind === 'method').map((e) => ({ id: e.id, file: e.file, name: e.nameStart }));
}
