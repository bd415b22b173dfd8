// The symbol model built from the index: what a process that opens an existing index needs
// before its first change (a first index builds it file by file as it writes). Read whole
// (`rest`), or a slice at a time between other work (`step`, a server's preload).
import type { Store } from '../store/store';
import type { CallArgsTuple, FileRow, ModelFileRows } from '../store/read-rows';
import { languageById } from '../languages/registry';
import type { CallSiteInput } from './call-sites';
import type { Ent, SymbolModel } from './model';
import { sharedString } from './pools';

/** Files read per statement while loading in slices. */
const FILES_PER_SLICE = 32;
/**
 * From this many files left, a whole read has another thread read the rows (store
 * `modelRowsFromReader`). Measured here (two cores), a whole read: 17,400 files (site-packages)
 * 2.1–2.4 s against 3.2–3.5 s; 8,400 files −10 %; 1,800 and 3,600 files no faster (the thread
 * takes ~50 ms to start, and this one builds more slowly while it reads).
 */
export const READER_FROM_FILES = 8000;

export class ModelLoader {
  private byFid: Map<number, FileRow>;
  /** The path of the last file read: the next slice starts after it. */
  private after = '';
  private done = false;
  // Rows bring a string per cell: the same ids, names and paths many times
  // over. One instance of each (a third of the model's heap on the stdlib).
  private readonly pool = new Map<string, string>();
  private readonly one = (x: string): string => sharedString(this.pool, x);
  private readonly oneOrNull = (x: string | null): string | null => (x === null ? null : this.one(x));

  /** Files taken so far. */
  private taken = 0;

  constructor(
    private readonly model: SymbolModel,
    private readonly store: Store,
    private readonly readerFrom = READER_FROM_FILES,
  ) {
    this.byFid = new Map(store.files().map((f) => [f.fid, f]));
    // Call sites stay in the index until a lookup asks for a callee's name (call-sites.ts).
    model.readCallsFrom({
      callsOf: (file) => store.callArgsOf(file).map(siteOfTuple),
      callsNamed: (file, name) => store.callArgsNamed(file, name).map(siteOfTuple),
      filesReferring: (name) => store.pathsReferring(name),
    });
  }

  /** Reads every file not read yet. */
  rest(): void {
    if (!this.done) this.read(-1);
    this.done = true;
  }

  /** Reads a slice of files, and more for about `ms` milliseconds; true once every file is read. */
  step(ms: number): boolean {
    const until = performance.now() + ms;
    do this.done ||= this.read(FILES_PER_SLICE) < FILES_PER_SLICE;
    while (!this.done && performance.now() < until);
    return this.done;
  }

  /** Reads up to `limit` files (all when negative) after the last one read; returns how many. */
  private read(limit: number): number {
    let n = 0;
    const ahead = limit < 0 && this.byFid.size - this.taken >= this.readerFrom ? this.store.modelRowsFromReader(this.after) : null;
    if (ahead) {
      for (const [fid, r] of ahead) {
        n++;
        this.take(fid, r);
      }
      if (this.taken >= this.byFid.size) return n;
      // It stopped short (a reader that fails ends early): this thread reads the rest.
    }
    for (const [fid, r] of this.store.modelRows(this.after, limit)) {
      n++;
      this.take(fid, r);
    }
    return n;
  }

  /** Puts one file's rows in the model. */
  private take(fid: number, r: ModelFileRows): void {
    // A file written since the loader started (by another process: this one loads the whole
    // model before it writes) is not in the list yet.
    if (!this.byFid.has(fid)) this.byFid = new Map(this.store.files().map((f) => [f.fid, f]));
    const f = this.byFid.get(fid);
    if (!f) return;
    this.after = f.path;
    this.taken++;
    const language = languageById(f.language);
    if (!language) return;
    const { one, oneOrNull } = this;
    const file = one(f.path);
    const entities: Ent[] = r.entities.map(([id, kind, name, qname, parent, bases, returns, alias, decorators]) => {
      const nm = one(name);
      return {
        id,
        kind: one(kind),
        name: nm,
        qname: qname ?? nm,
        file,
        parent: oneOrNull(parent),
        bases: bases ? bases.map(one) : null,
        returns: oneOrNull(returns),
        alias,
        property: !!decorators && language.isPropertyGetter(decorators),
        overload: !!decorators && !!language.isOverloadStub?.(decorators),
      };
    });
    this.model.setFile({
      file,
      language,
      module: f.module,
      entities,
      bindings: r.imports.map(([source, local, module, member]) => ({ from: one(source), local: oneOrNull(local), module: one(module), member: oneOrNull(member) })),
      attrTypes: r.attrTypes.map(([cls, attr, type]) => ({ cls: one(cls), attr: one(attr), type: one(type) })),
    });
  }
}

function siteOfTuple([source, target, receiver, rtype, args]: CallArgsTuple): CallSiteInput {
  return { from: source, target, receiver, rtype, args };
}
