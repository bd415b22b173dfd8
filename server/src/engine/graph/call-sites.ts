// The call sites the symbol model keeps, with their argument types, by file and by callee name
// (what a parameter typed by its callers looks at), and where a model read back from the index
// finds the sites it has not read yet: they are half of its heap and load time (the stdlib:
// 211K sites, 115 of 190 MB), and a change resolves a few names' worth of them.
import type { ReceiverKind } from '../languages/types';
import { lastSegment } from '../dotted';
import { sharedList, sharedString } from './pools';

/** A call site's argument types (`CallArgs` of languages/types.ts), as the model keeps it. */
export interface CallSite {
  file: string;
  from: string;
  target: string;
  receiver: ReceiverKind | null;
  rtype: string | null;
  args: string[];
}

export type CallSiteInput = Omit<CallSite, 'file'>;

/** Where the sites of files set without them are read from (the index). */
export interface CallSource {
  /** The call sites of `file`, as the index holds them. */
  callsOf(file: string): CallSiteInput[];
  /** The call sites of `file` whose callee's last segment is `name`. */
  callsNamed(file: string, name: string): CallSiteInput[];
  /**
   * Files with a reference whose last segment is `name`. Architecture Invariant: every call
   * site has one (its CALLS reference), so these files hold every call site of `name`.
   */
  filesReferring(name: string): string[];
}

const NO_CALLS: readonly CallSite[] = [];
/** A file whose sites are only in the index, and whose callee names `deferred` lists. */
const DEFERRED = 'deferred';

export class CallSites {
  /** Per file, its sites; null while they are only in the index; DEFERRED, the same, its names known. */
  private readonly byFile = new Map<string, CallSite[] | null | typeof DEFERRED>();
  /**
   * Last segment of a callee → the sites read so far. Arrays, not sets (site-packages: 690K
   * sites, 21 MB of sets): a file's sites leave by one pass over each of its names' lists.
   */
  private readonly byName = new Map<string, CallSite[]>();
  private source: CallSource | null = null;
  /** Files whose sites are only in the index and whose callee names are not known here. */
  private unread = 0;
  /**
   * Last segment of a callee → files set with their names only, not read yet. A first index
   * holds its sites here instead of in the heap (the stdlib's 211K sites were ~30 MB at the peak
   * of the run, and resolution reads the sites of ~3,000 names); and finds their files without
   * the index on `refs.last`, which a bulk load builds only at its end.
   */
  private readonly deferred = new Map<string, string[]>();
  /** Names whose sites have all been read. */
  private readonly readFor = new Set<string>();
  /**
   * Files not read whole whose sites of some names were (`named`): those names. Resolving
   * site-packages asks for the sites of 12.7K names, 276K of the 703K sites; reading whole files
   * for them held all 703K (100 MB at the run's peak, for 60 % nobody asked about).
   */
  private readonly partial = new Map<string, string[]>();
  /**
   * One copy of each callee name, receiver type and argument list read back from the index
   * (JSON.parse makes each anew: a first index reads ~200K sites back, 25 MB more without).
   */
  private readonly names = new Map<string, string>();
  private readonly argLists = new Map<string, string[]>();

  /** `canonicalId`: the caller's id as the entity holds it (one string in the heap, not one per site). */
  constructor(private readonly canonicalId: (id: string) => string) {}

  /** From now on, files set without call sites have theirs in `source` (a model loaded from the index). */
  readFrom(source: CallSource): void {
    this.source = source;
  }

  /**
   * A file's sites, replacing any it had; undefined: still in the index (when there is one to
   * read), where `names`, the last segments of its callees, find them (`deferred`).
   */
  set(file: string, input: readonly CallSiteInput[] | undefined, names?: Iterable<string>): void {
    this.remove(file);
    if (input === undefined && this.source && names) {
      this.byFile.set(file, DEFERRED);
      for (const n of names) {
        const files = this.deferred.get(n);
        if (files) files.push(file);
        else this.deferred.set(n, [file]);
        // Read already: this file's sites are not among those read.
        this.readFor.delete(n);
      }
    } else if (input === undefined && this.source) {
      this.byFile.set(file, null);
      this.unread++;
    } else this.byFile.set(file, this.add(file, input ?? []));
  }

  remove(file: string): void {
    const had = this.byFile.get(file);
    if (had === undefined) return;
    // A deferred file stays listed under its names: reading it then finds nothing, or its new sites.
    if (had === null) this.unread--;
    else if (had !== DEFERRED) this.unlist(file, had);
    this.unlistPartial(file);
    this.byFile.delete(file);
  }

  /** The sites of `file`, read from the index the first time they are asked for. */
  of(file: string): readonly CallSite[] {
    const had = this.byFile.get(file);
    if (had === undefined) return NO_CALLS;
    if (had !== null && had !== DEFERRED) return had;
    this.unlistPartial(file);
    const read = this.add(file, (this.source?.callsOf(file) ?? []).map((c) => this.shared(c)));
    this.byFile.set(file, read);
    if (had === null) this.unread--;
    return read;
  }

  /**
   * Forgets the sites read so far: they stay in the index, read again when a lookup asks. After
   * a whole index is resolved, what resolution read is a third of the heap (the stdlib: 30 of
   * 88 MB) and a later change asks for a few names' worth.
   */
  release(): void {
    if (!this.source) return;
    for (const [file, had] of this.byFile) {
      if (had === null) continue;
      // A deferred file read in part is no longer listed under the names read: the index finds it.
      if (had === DEFERRED && !this.partial.has(file)) continue;
      this.byFile.set(file, null);
      this.unread++;
    }
    this.partial.clear();
    this.byName.clear();
    this.readFor.clear();
    this.names.clear();
    this.argLists.clear();
  }

  /**
   * Sites whose callee's last segment is `name`. Not a copy (a common name has tens of
   * thousands, asked for once per parameter): the model does not change while a lookup reads it.
   */
  named(name: string): Iterable<CallSite> {
    if ((this.unread > 0 || this.deferred.size > 0) && !this.readFor.has(name)) {
      const deferred = this.deferred.get(name);
      if (deferred) {
        this.deferred.delete(name);
        for (const file of deferred) this.readNamed(file, name);
      }
      if (this.unread > 0 && this.source) for (const file of this.source.filesReferring(name)) this.readNamed(file, name);
      this.readFor.add(name);
    }
    return this.byName.get(name) ?? NO_CALLS;
  }

  /** The sites of `name` in `file`, when the file is only in the index and they were not read yet. */
  private readNamed(file: string, name: string): void {
    const had = this.byFile.get(file);
    if ((had !== null && had !== DEFERRED) || !this.source) return;
    const names = this.partial.get(file);
    if (names?.includes(name)) return;
    this.add(file, this.source.callsNamed(file, name).map((c) => this.shared(c)));
    if (names) names.push(name);
    else this.partial.set(file, [name]);
  }

  /** Takes the sites `readNamed` read of `file` out of their names' lists. */
  private unlistPartial(file: string): void {
    const names = this.partial.get(file);
    if (!names) return;
    this.partial.delete(file);
    for (const name of names) this.unlistNamed(file, name);
  }

  private shared(c: CallSiteInput): CallSiteInput {
    const { names } = this;
    return { from: c.from, target: sharedString(names, c.target), receiver: c.receiver, rtype: c.rtype === null ? null : sharedString(names, c.rtype), args: sharedList(this.argLists, c.args) };
  }

  private add(file: string, input: readonly CallSiteInput[]): CallSite[] {
    // A literal, not `{ ...c, file }`: V8 gave each spread copy a hidden class of its own
    // (~230 bytes apiece; 49 MB for the stdlib's 211k call sites).
    const sites: CallSite[] = input.map((c) => ({ file, from: this.canonicalId(c.from), target: c.target, receiver: c.receiver, rtype: c.rtype, args: c.args }));
    for (const c of sites) {
      const name = lastSegment(c.target);
      const list = this.byName.get(name);
      if (list) list.push(c);
      else this.byName.set(name, [c]);
    }
    return sites;
  }

  /** Takes `sites`, all of `file`, out of their names' lists. */
  private unlist(file: string, sites: readonly CallSite[]): void {
    const names = new Set<string>();
    for (const c of sites) names.add(lastSegment(c.target));
    for (const name of names) this.unlistNamed(file, name);
  }

  private unlistNamed(file: string, name: string): void {
    const list = this.byName.get(name);
    if (!list) return;
    const kept = list.filter((c) => c.file !== file);
    if (kept.length) this.byName.set(name, kept);
    else this.byName.delete(name);
  }
}
