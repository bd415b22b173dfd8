// References waiting for resolution, kept column by column. A first index holds every
// reference of the workspace until the run ends (2 M for site-packages); as one object each
// (plus its input object) they took ~300 bytes of heap apiece, as columns about a third.
import { RELATIONS, type Relation } from '../../../../protocol';
import { RECEIVER_KINDS, type ConfigKind, type RawRef } from '../languages/types';
import type { RefInput } from './resolve';

const RECEIVERS = [null, ...RECEIVER_KINDS] as const;
const RELATION_CODE = new Map<string, number>(RELATIONS.map((r, i) => [r, i]));
// The packing below gives each 3 bits: a ninth relation or receiver kind must widen it.
if (RELATIONS.length > 8 || RECEIVERS.length > 8) throw new Error('graph/pending.ts: relations and receivers no longer fit 3 bits each; widen the packing');

export class PendingRefs {
  private readonly rids: number[] = [];
  private readonly sources: string[] = [];
  private readonly targets: string[] = [];
  private readonly rtypes: Array<string | null> = [];
  private readonly configKinds: Array<ConfigKind | null> = [];
  private readonly catches: Array<string[] | null> = [];
  /** relation | receiver << 3 | access << 6 */
  private readonly codes: number[] = [];
  /** The file of refs from index `start` on (refs arrive file by file). */
  private readonly files: Array<{ start: number; file: string }> = [];
  /** The segment `fileOf` found last. */
  private cursor = 0;

  get length(): number {
    return this.rids.length;
  }

  push(rid: number, file: string, r: RawRef): void {
    const last = this.files[this.files.length - 1];
    if (!last || last.file !== file) this.files.push({ start: this.rids.length, file });
    const receiver = r.receiver ? RECEIVERS.indexOf(r.receiver.kind) : 0;
    this.rids.push(rid);
    this.sources.push(r.from);
    this.targets.push(r.target);
    this.rtypes.push(r.receiver?.kind === 'typed' ? r.receiver.type : null);
    this.configKinds.push(r.configKind ?? null);
    this.catches.push(r.catches && r.catches.length ? r.catches : null);
    this.codes.push(RELATION_CODE.get(r.relation)! | (receiver << 3) | (r.access ? 1 << 6 : 0));
  }

  rid(i: number): number {
    return this.rids[i];
  }

  /** The resolver's input for reference `i`, built when it is needed. */
  input(i: number): RefInput {
    const code = this.codes[i];
    return {
      file: this.fileOf(i),
      source: this.sources[i],
      relation: RELATIONS[code & 7] as Relation,
      target: this.targets[i],
      receiver: RECEIVERS[(code >> 3) & 7],
      rtype: this.rtypes[i],
      configKind: this.configKinds[i],
      catches: this.catches[i],
      access: (code & (1 << 6)) !== 0,
    };
  }

  private fileOf(i: number): string {
    // Reads go in order almost always: start from the last segment found.
    let k = this.cursor < this.files.length && this.files[this.cursor].start <= i ? this.cursor : 0;
    while (k + 1 < this.files.length && this.files[k + 1].start <= i) k++;
    this.cursor = k;
    return this.files[k].file;
  }
}
