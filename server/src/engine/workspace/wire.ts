// How a batch of file outcomes crosses from an index worker to the writing thread. Structured
// clone of the plain extraction objects costs more than parsing on the receiving side (a span
// is three objects, every id is repeated per reference), so a batch travels as one table of
// distinct strings and one Int32Array (transferred, not copied), and is rebuilt into the same
// plain objects on arrival.
import { RECEIVER_KINDS, type AttrType, type CallArgs, type ExtractedEntity, type FileExtraction, type ImportBinding, type RawRef, type Receiver, type Span } from '../languages/types';
import type { FileOutcome } from './process';
import type { IndexPhase } from './profile';

export interface WireBatch {
  strings: string[];
  ints: Int32Array;
  /** Outcomes without extractions (skipped, unchanged) and the metadata of parsed ones. */
  outcomes: Array<Exclude<FileOutcome, { kind: 'parsed' }> | (Omit<Extract<FileOutcome, { kind: 'parsed' }>, 'extraction'> & { extraction: null })>;
  /** What the worker spent on this batch, by phase (milliseconds). */
  ms?: Partial<Record<IndexPhase, number>>;
  /** The worker thread's CPU time for this batch, when the system tells it. */
  cpuMs?: number | null;
}

const NONE = -1;
const RECEIVERS = RECEIVER_KINDS;

class Writer {
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();
  private buf = new Int32Array(1 << 14);
  private n = 0;

  int(v: number): void {
    if (this.n === this.buf.length) {
      const next = new Int32Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.n++] = v;
  }

  str(s: string | null | undefined): void {
    if (s === null || s === undefined) return this.int(s === null ? NONE : -2);
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    this.int(i);
  }

  strs(list: readonly string[] | undefined): void {
    if (!list) return this.int(NONE);
    this.int(list.length);
    for (const s of list) this.str(s);
  }

  span(s: Span): void {
    this.int(s.start.row);
    this.int(s.start.column);
    this.int(s.end.row);
    this.int(s.end.column);
  }

  finish(): Int32Array {
    return this.buf.slice(0, this.n);
  }
}

class Reader {
  private i = 0;
  constructor(
    private readonly strings: string[],
    private readonly ints: Int32Array,
  ) {}

  int(): number {
    return this.ints[this.i++];
  }

  /** A string, or null / undefined as written. */
  str(): string | null | undefined {
    const v = this.ints[this.i++];
    return v >= 0 ? this.strings[v] : v === NONE ? null : undefined;
  }

  s(): string {
    return this.strings[this.ints[this.i++]];
  }

  strs(): string[] | undefined {
    const n = this.int();
    if (n < 0) return undefined;
    const out = new Array<string>(n);
    for (let k = 0; k < n; k++) out[k] = this.s();
    return out;
  }

  span(): Span {
    const a = this.ints;
    const i = this.i;
    this.i += 4;
    return { start: { row: a[i], column: a[i + 1] }, end: { row: a[i + 2], column: a[i + 3] } };
  }
}

export function encodeBatch(outcomes: FileOutcome[]): WireBatch {
  const w = new Writer();
  const meta: WireBatch['outcomes'] = [];
  for (const o of outcomes) {
    if (o.kind !== 'parsed') {
      meta.push(o);
      continue;
    }
    meta.push({ ...o, extraction: null });
    writeExtraction(w, o.extraction);
  }
  return { strings: w.strings, ints: w.finish(), outcomes: meta };
}

export function decodeBatch(b: WireBatch): FileOutcome[] {
  const r = new Reader(b.strings, b.ints);
  return b.outcomes.map((o) => (o.kind === 'parsed' ? { ...o, extraction: readExtraction(r) } : o));
}

function writeExtraction(w: Writer, ex: FileExtraction): void {
  w.str(ex.file);
  w.str(ex.language);
  w.int(ex.syntaxErrors);
  w.int(ex.entities.length);
  for (const e of ex.entities) {
    w.str(e.id);
    w.str(e.kind);
    w.str(e.name);
    w.str(e.qname);
    w.str(e.parent);
    w.span(e.span);
    w.span(e.nameSpan);
    w.str(e.signature);
    w.strs(e.decorators);
    w.str(e.docstring);
    w.strs(e.bases);
    w.str(e.returns);
    w.str(e.alias);
    w.str(e.body);
    w.str(e.literals);
    w.str(e.contentHash);
  }
  w.int(ex.refs.length);
  for (const r of ex.refs) {
    w.str(r.from);
    w.str(r.relation);
    w.str(r.target);
    const recv = r.receiver;
    w.int(recv ? RECEIVERS.indexOf(recv.kind) : NONE);
    if (recv?.kind === 'typed') w.str(recv.type);
    w.str(r.configKind);
    w.span(r.span);
    w.strs(r.catches);
    // Presence and value of the two flags: absent stays absent.
    w.int((r.reraise === undefined ? 0 : r.reraise ? 1 : 2) | (r.access === undefined ? 0 : r.access ? 4 : 8));
  }
  w.int(ex.imports.length);
  for (const b of ex.imports) {
    w.str(b.from);
    w.str(b.local);
    w.str(b.module);
    w.str(b.member);
    w.span(b.span);
  }
  w.int(ex.attrTypes.length);
  for (const a of ex.attrTypes) {
    w.str(a.cls);
    w.str(a.attr);
    w.str(a.type);
  }
  const calls = ex.callArgs ?? [];
  w.int(calls.length);
  for (const c of calls) {
    w.str(c.from);
    w.str(c.target);
    w.int(c.receiver ? RECEIVERS.indexOf(c.receiver.kind) : NONE);
    if (c.receiver?.kind === 'typed') w.str(c.receiver.type);
    w.strs(c.args);
  }
}

function readExtraction(r: Reader): FileExtraction {
  const file = r.s();
  const language = r.s();
  const syntaxErrors = r.int();
  const entities = new Array<ExtractedEntity>(r.int());
  for (let k = 0; k < entities.length; k++) {
    const e = {
      id: r.s(),
      kind: r.s(),
      name: r.s(),
      qname: r.s(),
      parent: r.str() ?? null,
      span: r.span(),
      nameSpan: r.span(),
      signature: r.s(),
      decorators: r.strs() ?? [],
      docstring: r.str() ?? null,
    } as ExtractedEntity;
    const bases = r.strs();
    if (bases) e.bases = bases;
    const returns = r.str();
    if (returns !== undefined) e.returns = returns as string;
    const alias = r.str();
    if (alias !== undefined) e.alias = alias as string;
    e.body = r.s();
    const literals = r.str();
    if (literals !== undefined) e.literals = literals as string;
    const hash = r.str();
    if (hash !== undefined) e.contentHash = hash as string;
    entities[k] = e;
  }
  const refs = new Array<RawRef>(r.int());
  for (let k = 0; k < refs.length; k++) {
    const ref = { from: r.s(), relation: r.s(), target: r.s() } as RawRef;
    const kind = r.int();
    if (kind >= 0) ref.receiver = (RECEIVERS[kind] === 'typed' ? { kind: 'typed', type: r.s() } : { kind: RECEIVERS[kind] }) as Receiver;
    const configKind = r.str();
    if (configKind !== undefined) ref.configKind = configKind as RawRef['configKind'];
    ref.span = r.span();
    const catches = r.strs();
    if (catches) ref.catches = catches;
    const flags = r.int();
    if (flags & 3) ref.reraise = (flags & 3) === 1;
    if (flags & 12) ref.access = (flags & 12) === 4;
    refs[k] = ref;
  }
  const imports = new Array<ImportBinding>(r.int());
  for (let k = 0; k < imports.length; k++) {
    imports[k] = { from: r.s(), local: r.str() ?? null, module: r.s(), member: r.str() ?? null, span: r.span() };
  }
  const attrTypes = new Array<AttrType>(r.int());
  for (let k = 0; k < attrTypes.length; k++) attrTypes[k] = { cls: r.s(), attr: r.s(), type: r.s() };
  const callArgs = new Array<CallArgs>(r.int());
  for (let k = 0; k < callArgs.length; k++) {
    const c = { from: r.s(), target: r.s() } as CallArgs;
    const kind = r.int();
    if (kind >= 0) c.receiver = (RECEIVERS[kind] === 'typed' ? { kind: 'typed', type: r.s() } : { kind: RECEIVERS[kind] }) as Receiver;
    c.args = r.strs() ?? [];
    callArgs[k] = c;
  }
  return { file, language, entities, refs, imports, attrTypes, ...(callArgs.length ? { callArgs } : {}), syntaxErrors };
}
