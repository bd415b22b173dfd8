// Row values of one file as the store writes and compares them: entity parameters with their
// content hash, reference columns, and the keys that tell an unchanged row from a changed one.
import { createHash } from 'node:crypto';
import type { ExtractedEntity, RawRef } from '../languages/types';
import type { EntityDbRow, RefDbRow, SpanColumns } from './read-rows';
import { splitIdentifier } from './words';

/** A file's entity row as replaceFile compares it: a file's entities always have spans. */
export type OldEntity = Pick<EntityDbRow, 'eid' | 'id' | 'kind' | 'name' | 'qname' | 'parent'> & SpanColumns & { content_hash: string };

/** A file's reference row as replaceFile compares it (the enclosing entity by eid). */
export type OldRef = Omit<RefDbRow, 'fid' | 'path' | 'source' | 'last'> & { src: number };

export function entityParams(e: ExtractedEntity, fid: number) {
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
    contentHash: entityHash(e),
  };
}

/**
 * What decides whether an entity must be re-indexed for search and re-embedded. Index workers
 * compute it beside the extraction (`contentHash`), so the writing thread does not.
 */
export function entityHash(e: ExtractedEntity): string {
  return (
    e.contentHash ??
    createHash('sha1')
      .update(e.signature).update('\0').update(optional(e.docstring)).update('\0').update(e.body)
      .update('\0').update(e.decorators.join('\n')).update('\0').update((e.bases ?? []).join(','))
      .update('\0').update(optional(e.returns)).update('\0').update(optional(e.alias))
      .digest('hex').slice(0, 16)
  );
}

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

export function refKey(src: number, relation: string, target: string, receiver: string | null, rtype: string | null, configKind: string | null, catches: string | null, reraise: number, access: number): string {
  return `${src}\0${relation}\0${target}\0${receiver}\0${rtype}\0${configKind}\0${catches}\0${reraise}\0${access}`;
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
