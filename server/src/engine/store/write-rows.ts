// Row values of one file as the store writes and compares them: entity parameters with their
// content hash, reference columns, and the keys that tell an unchanged row from a changed one.
import { nodeCrypto } from '../digest';
import type { ExtractedEntity, RawRef } from '../languages/types';
import type { EntityDbRow, RefDbRow, SpanColumns } from './read-rows';
import { splitIdentifier } from './words';

/** A file's entity row as replaceFile compares it: a file's entities always have spans. */
export type OldEntity = Pick<EntityDbRow, 'eid' | 'id' | 'kind' | 'name' | 'qname' | 'parent'> & SpanColumns & { content_hash: string };

/** A file's reference row as replaceFile compares it (the enclosing entity by eid). */
export type OldRef = Omit<RefDbRow, 'fid' | 'path' | 'source' | 'last'> & { src: number };

export function entityParams(e: ExtractedEntity, fid: number, hashes?: HashMemo) {
  const s = e.span;
  const n = e.nameSpan;
  return {
    id: e.id,
    kind: e.kind,
    name: e.name,
    qname: e.qname,
    fid,
    parent: e.parent,
    sr: s.start.row,
    sc: s.start.column,
    er: s.end.row,
    ec: s.end.column,
    nsr: n.start.row,
    nsc: n.start.column,
    ner: n.end.row,
    nec: n.end.column,
    signature: e.signature,
    docstring: e.docstring,
    decorators: e.decorators.length ? JSON.stringify(e.decorators) : null,
    bases: e.bases && e.bases.length ? JSON.stringify(e.bases) : null,
    returns: e.returns ?? null,
    alias: e.alias ?? null,
    body: e.body,
    literals: e.literals ?? '',
    contentHash: entityHash(e, hashes),
  };
}

/**
 * What decides whether an entity must be re-indexed for search and re-embedded. Index workers
 * compute it beside the extraction (`contentHash`), so the writing thread does not.
 */
export function entityHash(e: ExtractedEntity, hashes?: HashMemo): string {
  if (e.contentHash !== undefined) return e.contentHash;
  // One string, one update: the same bytes (so the same digest) as field by field, for a
  // fifth of the calls into the hash (every entity of a buffer, at every edit).
  const text = `${e.signature}\0${optional(e.docstring)}\0${e.body}\0${e.decorators.join('\n')}\0${(e.bases ?? []).join(',')}\0${optional(e.returns)}\0${optional(e.alias)}${e.literals ? `\0${e.literals}` : ''}`;
  const known = hashes?.get(e.id);
  if (known && known.text === text) return known.hash;
  const hash = nodeCrypto().createHash('sha1').update(text).digest('hex').slice(0, 16);
  if (hashes) {
    if (hashes.size >= HASH_MEMO_SIZE) hashes.clear();
    hashes.set(e.id, { text, hash });
  }
  return hash;
}

/**
 * The last hashed text and digest per entity id: an edit rewrites a buffer's every entity, and
 * all but one or two hash the same text as at the last keystroke (a string comparison, not a
 * digest: ~3 µs an entity, 5 % of a keystroke on a 2,000-line file).
 */
export type HashMemo = Map<string, { text: string; hash: string }>;
/** Entities kept at most (a few large open files' worth), then it starts over. */
const HASH_MEMO_SIZE = 4096;

/** No value and an empty one hash apart: `""` as a docstring is not the absence of one. */
function optional(v: string | null | undefined): string {
  return v === null || v === undefined ? '\u0001' : `=${v}`;
}

export function refValues(r: RawRef) {
  const recv = r.receiver;
  return {
    receiver: recv ? recv.kind : null,
    rtype: recv && recv.kind === 'typed' ? recv.type : null,
    configKind: r.configKind ?? null,
    catches: r.catches && r.catches.length ? JSON.stringify(r.catches) : null,
    reraise: r.reraise ? 1 : 0,
    access: r.access ? 1 : 0,
  };
}

export function refColumns(v: ReturnType<typeof refValues>) {
  return { receiver: v.receiver, rtype: v.rtype, config_kind: v.configKind, catches: v.catches, reraise: v.reraise, access: v.access };
}

/**
 * A file's stored references, for matching a new extraction's against them (`Store.replaceFile`):
 * by source entity, then target, then the rest of what a reference is apart from its position.
 * Numbers and whole strings as keys, not one string built per reference (~1 ms an edit of a
 * 2,000-line file).
 */
export class StoredRefs {
  private readonly bySrc = new Map<number, Map<string, OldRef[]>>();

  add(r: OldRef): void {
    let byTarget = this.bySrc.get(r.src);
    if (!byTarget) this.bySrc.set(r.src, (byTarget = new Map()));
    const list = byTarget.get(r.target);
    if (list) list.push(r);
    else byTarget.set(r.target, [r]);
  }

  /** The last stored reference equal to this one but for its position, taken out; undefined when none is. */
  take(src: number, relation: string, target: string, v: ReturnType<typeof refValues>): OldRef | undefined {
    const list = this.bySrc.get(src)?.get(target);
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) {
      const r = list[i];
      if (r.relation === relation && r.receiver === v.receiver && r.rtype === v.rtype && r.config_kind === v.configKind && r.catches === v.catches && r.reraise === v.reraise && r.access === v.access) {
        list.splice(i, 1);
        return r;
      }
    }
    return undefined;
  }

  /** Those not taken. */
  *rest(): Generator<OldRef> {
    for (const byTarget of this.bySrc.values()) for (const list of byTarget.values()) yield* list;
  }
}

export function sameEntity(prev: OldEntity, p: ReturnType<typeof entityParams>): boolean {
  return (
    prev.content_hash === p.contentHash &&
    prev.kind === p.kind &&
    prev.parent === p.parent &&
    prev.sr === p.sr && prev.sc === p.sc && prev.er === p.er && prev.ec === p.ec &&
    prev.nsr === p.nsr && prev.nsc === p.nsc && prev.ner === p.ner && prev.nec === p.nec
  );
}

export function pathWords(path: string): string {
  return splitIdentifier(path.replace(/\.[^./]+$/, '').replace(/[/\\]/g, ' '));
}
