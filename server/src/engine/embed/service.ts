// The background half of semantic search: keeps a vector for every code entity in each space
// (the static table's, and the transformer model's when one loads), re-embedding only entities
// whose content changed and dropping vectors of entities that are gone. Never blocks a caller:
// `start` and `changed` return at once, work happens in small batches between requests, and
// whatever is stored is searchable (DESIGN invariant 5).
import type { EmbeddingStatus, StreamProgress } from '../../../../protocol';
import type { ModelSettings } from '../api';
import { VectorStream, type VectorStreamOptions } from '../search/semantic';
import { FtsIndex } from '../store/fts';
import type { SearchStream } from '../search/types';
import type { Store } from '../store/store';
import { VectorStore, type EmbeddableEntity } from '../store/vectors';
import { covers, readCompleteness, recordCompleteness } from './complete';
import type { Embedder } from './embedder';
import { ModelEmbedder, DEFAULT_TIMEOUTS, type ModelTimeouts } from './model-embedder';
import { decideModel } from './model-settings';
import { defaultStaticTablePath } from './static-asset';
import { StaticEmbedder } from './static-embedder';
import { embeddingText } from './text';

/** Quiet time after the last `changed()` before the index is rescanned (edits come in bursts). */
const RESCAN_DELAY_MS = 250;
/** A rescan scoped to the changed files reads their entities only; past this many, every entity. */
const MAX_SCOPED_FILES = 500;
/** Every so many scoped rescans, a full one (vectors of deleted entities go, binary is re-decided). */
const FULL_RESCAN_EVERY = 50;

/** Above this many entities, vector search switches to bits + re-scoring (ModelSettings.quantization 'auto'). */
export const BINARY_THRESHOLD = 50_000;

type SpaceName = 'static' | 'model';

interface Space {
  name: SpaceName;
  embedder: Embedder;
  /** How entities become vectors in this space. */
  encode: (rows: EmbeddableEntity[]) => Promise<Float32Array[]>;
  stream: SearchStream;
  /** Entities per embedding call: the static table is cheap, a transformer is not. */
  batch: number;
  queue: number[];
}

export class EmbeddingService {
  private readonly vectors: VectorStore;
  private readonly spaces: Space[] = [];
  private readonly noteByTopic = new Map<SpaceName, string>();
  private readonly embedded = new Map<SpaceName, number>();
  /** `countsOf` while busy: a count taken since the last rescan, and `embedded` then. */
  private readonly busyCounts = new Map<SpaceName, { done: number; total: number; embedded: number }>();
  private model: ModelEmbedder | null = null;
  private modelName: string | null = null;
  private started = false;
  private closed = false;
  private dirty = true;
  /**
   * What the next rescan looks at: the entities of these files, or (null) every entity and every
   * stored vector. A file-scoped rescan leaves the vectors of deleted entities to the next full
   * one (every FULL_RESCAN_EVERY scoped ones): search skips vectors whose entity is gone.
   */
  private dirtyFiles: Set<string> | null = null;
  private scopedRescans = 0;
  private warmWhenIdle = false;
  /** The database's change key when the loop last ended with empty queues. */
  private cleanKey: string | null = null;
  /** Other connections' commits (`data_version`) as of the last full rescan. */
  private fullScanVersion: string | null = null;
  /** The last rescan looked at every entity (or found them vouched for by the record). */
  private lastRescanFull = false;
  /** A one-shot command (`start('now')`): it records completeness whenever it reaches it. */
  private oneShot = false;
  /** Spaces this process wrote vectors to since their bits were last saved whole. */
  private readonly unsaved = new Set<SpaceName>();
  private loop: Promise<void> | null = null;
  private loading: Promise<void> | null = null;
  private rescanTimer: NodeJS.Timeout | undefined;
  /** Overridable by tests; everything else comes from settings and the environment. */
  timeouts: ModelTimeouts = DEFAULT_TIMEOUTS;

  private fts_: FtsIndex | undefined;

  /** The lexical index, for the words the static table cannot read (made on first use). */
  private fts(): FtsIndex {
    return (this.fts_ ??= new FtsIndex(this.store.db));
  }

  constructor(
    private readonly store: Store,
    private readonly settings: ModelSettings | undefined,
    private readonly log: (m: string) => void,
  ) {
    this.vectors = new VectorStore(store.db);
  }

  /**
   * Loads the static table and starts loading the model; returns at once. Idempotent. The first
   * scan for missing vectors (a query over every entity: ~0.3 s of CPU on the stdlib) runs `now`
   * (a one-shot command: its figures are then exact), or `after-quiet`, like every later one
   * (a server: its first answers do not queue behind it; `idle` starts it at once).
   */
  start(firstScan: 'now' | 'after-quiet' = 'now'): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.startStatic();
    this.startModel();
    // A server warms the search streams once nothing is left to embed (a one-shot command
    // searches at once or never: it would only pay for it twice).
    this.warmWhenIdle = firstScan === 'after-quiet';
    this.oneShot = firstScan === 'now';
    // Complete as recorded, nothing written since: clean from the start, so that a first search
    // before the first rescan need not count (the rescan itself then finds nothing to look for).
    if (!this.loading && covers(readCompleteness(this.store), this.store.entityGeneration(), this.spaceIds())) {
      // No rescan will run, so a quantization named now is applied now (`auto` needs none: the
      // entity count it depends on is the one the last rescan decided on).
      if (this.settings?.quantization === 'binary' || this.settings?.quantization === 'float') {
        for (const s of this.spaces) this.vectors.setBinary(s.name, this.binaryWanted(s.embedder.dims));
      }
      this.dirty = false;
      this.cleanKey = this.vectors.changeKey();
      this.fullScanVersion = othersPart(this.cleanKey);
    }
    if (firstScan === 'now') this.kick();
    else this.rescanTimer = setTimeout(() => this.kick(), RESCAN_DELAY_MS);
  }

  /**
   * Entities changed: embed what is new or different, forget what is gone. Cheap to call on
   * every edit: the rescan waits for a short quiet spell (a running loop picks it up sooner).
   */
  changed(files?: readonly string[]): void {
    if (!files) this.dirtyFiles = null;
    else if (!this.dirty) this.dirtyFiles = new Set(files);
    else if (this.dirtyFiles) for (const f of files) this.dirtyFiles.add(f);
    if (this.dirtyFiles && this.dirtyFiles.size > MAX_SCOPED_FILES) this.dirtyFiles = null;
    this.dirty = true;
    if (!this.started || this.closed) return;
    clearTimeout(this.rescanTimer);
    this.rescanTimer = setTimeout(() => this.kick(), RESCAN_DELAY_MS);
  }

  streams(): SearchStream[] {
    return this.spaces.map((s) => s.stream);
  }

  status(): EmbeddingStatus | null {
    const space = this.spaces.find((s) => s.name === 'model');
    if (!space || !this.modelName) return null;
    return { model: this.modelName, dims: space.embedder.dims, ...this.vectors.counts('model') };
  }

  /** Per vector stream: how many entities have a current vector, and whether work is pending. */
  progress(): StreamProgress[] {
    // A loop whose queues are empty has nothing in flight that `done` would not show (an entity
    // being embedded has no vector of its current content yet): it is not busy.
    const busy = this.busy;
    const out: StreamProgress[] = this.spaces.map((s) => {
      const { done, total } = this.countsOf(s.name, busy);
      return { stream: s.stream.name, done, total, complete: !busy && s.queue.length === 0 && done >= total };
    });
    if (this.loading && !this.spaces.some((s) => s.name === 'model')) {
      out.push({ stream: 'model', done: 0, total: this.vectors.embeddableCount(), complete: false });
    }
    return out;
  }

  /** Work is pending (a rescan due, or a queue not empty). */
  private get busy(): boolean {
    return this.dirty || (this.loop !== null && this.spaces.some((s) => s.queue.length > 0));
  }

  /**
   * The streams a search should call incomplete: `progress()`'s verdict, without counting every
   * entity when nothing was written since the loop last emptied its queues (the count joins
   * every entity and vector, 100+ ms at 100K, and any edit invalidates it).
   */
  incompleteStreams(): string[] {
    const loadingModel = this.loading && !this.spaces.some((s) => s.name === 'model') ? ['model'] : [];
    if (!this.busy && this.isClean()) return loadingModel;
    // Busy: no stream is complete (`progress()`), whatever the counts; and while the loop writes
    // vectors every count is stale, so a search during a fill would count every time (~40 ms on
    // the stdlib's 97K entities).
    if (this.busy) return [...this.spaces.map((s) => s.stream.name), ...loadingModel];
    return this.progress()
      .filter((p) => !p.complete)
      .map((p) => p.stream);
  }

  /** Entities with a current vector in `space`, and all: from the record when it vouches for now. */
  private countsOf(space: SpaceName, busy = this.busy): { done: number; total: number } {
    if (busy) {
      // While the loop writes, every count is stale at once and costs a join over every entity
      // (~40 ms on the stdlib; `nsccn index` asks five times a second, which was 1.4 s of the
      // thread that embeds): one count, then what the loop has embedded since.
      let base = this.busyCounts.get(space);
      if (!base) this.busyCounts.set(space, (base = { ...this.vectors.counts(space), embedded: this.embeddedCount(space) }));
      return { done: Math.min(base.total, base.done + this.embeddedCount(space) - base.embedded), total: base.total };
    }
    this.busyCounts.clear();
    const record = this.isClean() ? readCompleteness(this.store) : null;
    if (covers(record, this.store.entityGeneration(), this.spaceIds())) return { done: record.entities, total: record.entities };
    return this.vectors.counts(space);
  }

  /** `searched`: also the spaces whose bits a search loaded (when closing). */
  private saveBits(searched = false): void {
    const spaces = new Set<SpaceName>([...this.unsaved, ...(searched ? this.spaces.map((s) => s.name) : [])]);
    for (const space of spaces) {
      try {
        this.vectors.saveBits(space, !this.unsaved.has(space));
      } catch (e) {
        this.log(`vectors: could not save the ${space} bits for the next start (${(e as Error).message})`);
      }
    }
    this.unsaved.clear();
  }

  /** Nothing written since the loop last emptied its queues with every entity covered. */
  private isClean(): boolean {
    return this.cleanKey !== null && this.cleanKey === this.vectors.changeKey();
  }

  /**
   * This connection just wrote what moves no vector (the completeness record, the bits
   * snapshot): the vectors are as clean as before, unless another process committed meanwhile.
   * Without it the progress asked at the end of a one-shot command counted every entity and
   * vector (stdlib ~80 ms).
   */
  private stillClean(): void {
    if (this.cleanKey === null) return;
    const key = this.vectors.changeKey();
    this.cleanKey = othersPart(key) === othersPart(this.cleanKey) ? key : null;
  }

  private spaceIds(): Array<{ name: string; id: string }> {
    return this.spaces.map((s) => ({ name: s.name, id: s.embedder.id }));
  }

  notes(): string[] {
    const out = [...this.noteByTopic.values()];
    const s = this.spaces.find((x) => x.name === 'static');
    if (s) {
      const { done, total } = this.countsOf('static');
      if (done < total) out.push(`static stream: ${done}/${total} entities embedded so far`);
    }
    return out;
  }

  /** Entities this service has embedded so far in a space (tests and benchmarks). */
  embeddedCount(space: SpaceName): number {
    return this.embedded.get(space) ?? 0;
  }

  /** Resolves when nothing is loading and every queue is empty. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.loading) await this.loading;
      else if (this.loop) await this.loop;
      else if (this.dirty && this.spaces.length && !this.closed) this.kick();
      else return;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.rescanTimer);
    await this.loop;
    await this.loading;
    this.saveBits(true);
    await this.model?.close();
  }

  // --- spaces ----------------------------------------------------------------------------------

  private startStatic(): void {
    const configured = process.env.NSCCN_STATIC_TABLE;
    if (configured === 'none') {
      this.noteByTopic.set('static', 'static stream off: switched off (NSCCN_STATIC_TABLE=none)');
      return;
    }
    const file = configured || defaultStaticTablePath();
    if (!file) {
      this.noteByTopic.set('static', 'static stream off: no static embedding table (server/assets/static-embeddings.bin); `npm run train-static` builds it');
      return;
    }
    try {
      const emb = StaticEmbedder.load(file);
      // A word the table cannot read stands for the entities whose names hold it (search/semantic.ts).
      this.addSpace('static', emb, 'static', 512, async (rows) => rows.map((r) => emb.embedEntity(r)), { holders: (word, k) => this.fts().search(`{name name_split} : "${word.replace(/"/g, '""')}"`, k).map((h) => h.eid) });
    } catch (e) {
      const note = `static stream off: cannot read ${file}: ${(e as Error).message}`;
      this.noteByTopic.set('static', note);
      this.log(note);
    }
  }

  private startModel(): void {
    const decision = decideModel(this.settings);
    if (decision.kind === 'off') {
      this.noteByTopic.set('model', decision.note);
      this.log(decision.note);
      return;
    }
    const { plan } = decision;
    this.noteByTopic.set('model', `model stream: loading ${plan.name}`);
    this.loading = ModelEmbedder.load(plan, this.timeouts)
      .then(
        (m) => {
          if (this.closed) return m.close();
          this.model = m;
          this.modelName = plan.name;
          this.noteByTopic.delete('model');
          this.addSpace('model', m, `model:${plan.name}`, 16, (rows) => m.embed(rows.map(embeddingText), 'document'));
          this.log(`model stream on: ${plan.name} (${m.dims} dimensions, ${m.dtype})`);
        },
        (e: Error) => this.modelOff(`model stream off: could not load ${plan.name}: ${e.message}`),
      )
      .finally(() => {
        this.loading = null;
        this.kick();
      });
  }

  private addSpace(name: SpaceName, embedder: Embedder, streamName: string, batch: number, encode: Space['encode'], streamOptions: VectorStreamOptions = {}): void {
    if (this.vectors.open(name, embedder.id, embedder.dims)) this.log(`${streamName}: embedding every entity (new or changed embedder)`);
    const stream = new VectorStream(streamName, embedder, this.vectors, name, streamOptions);
    this.spaces.push({ name, embedder, encode, stream, batch, queue: [] });
    this.dirty = true;
    this.dirtyFiles = null;
  }

  /** The model failed for good: its stream goes, the reason is logged once and kept as a note. */
  private modelOff(note: string): void {
    const i = this.spaces.findIndex((s) => s.name === 'model');
    if (i >= 0) this.spaces.splice(i, 1);
    this.modelName = null;
    this.noteByTopic.set('model', note);
    this.log(note);
  }

  private binaryWanted(dims: number): boolean {
    const q = this.settings?.quantization ?? 'auto';
    if (!VectorStore.binaryPossible(dims) || q === 'float') return false;
    return q === 'binary' || this.vectors.embeddableCount() > BINARY_THRESHOLD;
  }

  // --- the background loop ---------------------------------------------------------------------

  private kick(): void {
    if (this.loop || this.closed || !this.spaces.length) return;
    this.loop = this.run()
      .catch((e: Error) => this.log(`embedding stopped: ${e.message}`))
      .finally(() => {
        this.loop = null;
        if (this.dirty && !this.closed) this.kick();
      });
  }

  private rescan(): void {
    const files = this.dirtyFiles && this.scopedRescans < FULL_RESCAN_EVERY ? [...this.dirtyFiles] : null;
    this.dirty = false;
    this.dirtyFiles = null;
    this.busyCounts.clear(); // a rescan finds entities written since: counts start again
    this.scopedRescans = files ? this.scopedRescans + 1 : 0;
    this.lastRescanFull = !files;
    // The quantization asked for now, even when every vector is in place: an index made with
    // float vectors and opened with `quantization: binary` (or grown past the threshold) gets its
    // bits here, not only when some entity changes.
    if (!files) for (const s of this.spaces) this.vectors.setBinary(s.name, this.binaryWanted(s.embedder.dims));
    if (!files && covers(readCompleteness(this.store), this.store.entityGeneration(), this.spaceIds())) {
      // Another process (or this one earlier) found every vector in place, and no entity was
      // written since: nothing to look for.
      for (const s of this.spaces) s.queue = [];
      this.fullScanVersion = othersPart(this.vectors.changeKey());
      return;
    }
    for (const s of this.spaces) {
      if (files) {
        const queued = new Set(s.queue);
        for (const eid of this.vectors.pendingEidsOfFiles(s.name, files)) if (!queued.has(eid)) s.queue.push(eid);
        continue;
      }
      this.vectors.dropOrphans(s.name);
      s.queue = this.vectors.pendingEids(s.name);
    }
    if (!files) this.fullScanVersion = othersPart(this.vectors.changeKey());
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      if (this.dirty) this.rescan();
      // Cheap spaces first: the static stream is complete long before the model's.
      const space = this.spaces.find((s) => s.queue.length);
      if (!space) {
        // Every entity as of now has its vector, unless another process wrote since the last
        // full rescan (a scoped one looks at our own changes only): then counting decides.
        const key = this.vectors.changeKey();
        this.cleanKey = othersPart(key) === this.fullScanVersion ? key : null;
        // Tell the next process (a server only after a full rescan: counting costs it per edit).
        if (this.cleanKey !== null && (this.oneShot || this.lastRescanFull)) {
          const generation = this.store.entityGeneration();
          if (!covers(readCompleteness(this.store), generation, this.spaceIds())) {
            recordCompleteness(this.store, { generation, entities: this.vectors.embeddableCount(), spaces: Object.fromEntries(this.spaceIds().map((s) => [s.name, s.id])) }, this.log);
            this.stillClean();
          }
        }
        // The bits whole for the next process's first search: a one-shot command now (it is
        // ending), a server when it closes (not per edit: the snapshot is megabytes).
        if (this.oneShot) {
          this.saveBits();
          this.stillClean();
        }
        for (const s of this.spaces) s.embedder.settled?.();
        if (this.warmWhenIdle) {
          this.warmWhenIdle = false;
          // A search counts only when no record vouches for the vectors (`countsOf`): then the
          // count is worth having ready; else it would be 0.2 s of a server's first second.
          const counted = !(this.cleanKey !== null && covers(readCompleteness(this.store), this.store.entityGeneration(), this.spaceIds()));
          for (const s of this.spaces) this.vectors.warm(s.name, counted);
        }
        return;
      }
      const rows = this.vectors.entities(space.queue.splice(0, space.batch));
      if (!rows.length) continue;
      let vecs: Float32Array[];
      try {
        vecs = await space.encode(rows);
      } catch (e) {
        if (space.name === 'model') {
          this.modelOff(`model stream off: ${(e as Error).message}`);
          continue;
        }
        throw e;
      }
      if (this.closed || !this.spaces.includes(space)) return;
      // Stored with the hash read before embedding: an edit in between shows up as pending again.
      this.vectors.put(
        space.name,
        rows.map((r, i) => ({ eid: r.eid, id: r.id, hash: r.hash, vector: vecs[i]?.some((x) => x !== 0) ? vecs[i] : null })),
      );
      this.embedded.set(space.name, this.embeddedCount(space.name) + rows.length);
      this.unsaved.add(space.name);
      await new Promise((r) => setImmediate(r)); // let requests in between batches
    }
  }
}

/** The part of a change key that only other connections' commits move (`data_version`). */
function othersPart(changeKey: string): string {
  return changeKey.slice(0, changeKey.indexOf(':'));
}
