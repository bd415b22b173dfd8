// The lexical stream's OR step with its common words scored from memory. FTS5 scores every row
// that holds any word of an OR query (~1.4 µs a row): at 100K entities `name` alone is in 12,000
// rows, 17 ms, and a four-word question 25–45 ms. BM25 is a sum over the query's words, each
// word's share depending on the word and the row only, so a common word's share in every row
// that holds it is read once and kept; FTS5 then scores the rare words' rows alone and the
// shares are added from memory. While nothing is written the sum is FTS5's own score for the
// OR query (the tests compare them). Rows this process rewrites are scored again by FTS5 until a
// quiet spell, when they are read again into every word; a write by another process, or a bulk
// load, drops the lot. A server fills it after a quiet spell, in slices between requests; a
// one-shot command (a lazy engine) does without: kept scores pay from a process's second search.
import type { FtsIndex, ScoredRows } from '../store/fts';
import type { Store } from '../store/store';
import type { StreamHit } from './types';

/**
 * A word in at least this many entities is scored from memory (FTS5 would take ≥ ~0.18 ms). A
 * pasted report ORs 25–30 words, most of them in a few hundred entities each: at 1,000 they were
 * left to FTS5, 7 ms of a report's OR step at p50 and 14 at p99 on 88K entities; at 100, 1.1 and
 * 2.2 ms, for 15 MB of shares instead of 9 when every word is read.
 */
export const COMMON_DF = 100;
/** Rows kept at most, over all words (12 bytes each). */
const MAX_ROWS = 4_000_000;
/**
 * Rowids summed in a dense array (16 MB at most); larger ones in a map. Rowids are never reused,
 * so a long-lived index's grow past its entity count.
 */
const DENSE_EIDS = 1 << 21;
/**
 * Rows this process rewrote are scored again by FTS5 at each query, a query per rowid range,
 * until the next background pass re-reads them; past this many ranges everything read is dropped.
 */
const MAX_DIRTY_RANGES = 4;
/** Rewritten rows closer than this share one range query. */
const RANGE_GAP = 2000;
/** A server fills the scores once the index has not changed for this long. */
const WARM_DELAY_MS = 3000;
/** Work per turn of the event loop while filling (requests run between turns). */
const SLICE_MS = 10;
/**
 * Rows per query while filling (~6 ms of FTS5 scoring: a turn stays short). A word is read in
 * rowid ranges sized to hold about this many of its rows: every query also counts the word's
 * rows for its IDF, so fixed 8,000-rowid ranges cost 2.5× the reading itself at 165K entities.
 */
const FILL_ROWS = 4000;
/** Vocabulary entries per query while listing the common words. */
const VOCAB_PAGE = 4000;

export const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

export class CommonTermScores {
  private readonly shares = new Map<string, ScoredRows>();
  private readonly docFreq = new Map<string, number>();
  private rows = 0;
  private generation = Number.NaN;
  private ownBumps = 0;
  /** Rows this process wrote since the shares were read. */
  private readonly dirty = new Set<number>();
  private ranges: Array<[number, number]> | null = null;
  /** A write the shares cannot follow (a bulk fill). */
  private stale = true;
  /** Per-row score sums of one query (0: untouched), reused; rowids from `denseEids` on in `far`. */
  private acc = new Float64Array(0);
  private readonly far = new Map<number, number>();
  private warmTimer: NodeJS.Timeout | undefined;
  /** The entity generation a quiet-spell timer last saw. */
  private quietSince = Number.NaN;
  /** Counts the times everything read was dropped (a background pass stops when it moves). */
  private epoch = 0;
  private closed = false;
  private readonly onWrite = (eid: number | null) => {
    if (eid === null) this.stale = true;
    else {
      this.dirty.add(eid);
      this.ranges = null;
    }
    if (this.background) this.scheduleWarm();
  };

  constructor(
    private readonly fts: FtsIndex,
    private readonly store: Store,
    /** Fill every common word's shares after a quiet spell (a server), not only those queried. */
    private readonly background: boolean,
    /** The document frequency from which a word is common (tests use small workspaces). */
    private readonly commonDf = COMMON_DF,
    /** Rowids below this are summed in an array, the others in a map (tests use a small one). */
    private readonly denseEids = DENSE_EIDS,
    /** Rows kept at most, over all words (tests use a small cap). */
    private readonly maxRows = MAX_ROWS,
  ) {
    store.lexicalWritten.add(this.onWrite);
    if (background) this.scheduleWarm();
  }

  dispose(): void {
    this.closed = true;
    clearTimeout(this.warmTimer);
    this.store.lexicalWritten.delete(this.onWrite);
  }

  /** Words kept, rows held, and rows rewritten since they were read (tests, status). */
  size(): { words: number; rows: number; rewritten: number } {
    return { words: this.shares.size, rows: this.rows, rewritten: this.dirty.size };
  }

  /**
   * The OR step over `words`, best first (ties by eid), at most `k`: null when no word is common
   * (FTS5 alone is as fast) or the shares cannot be held.
   */
  orStep(words: readonly string[], k: number): StreamHit[] | null {
    this.validate();
    // A common word whose shares cannot be held (the row cap) is scored by FTS5 with the rare.
    const rare: string[] = [];
    const lists: ScoredRows[] = [];
    for (const w of words) {
      const df = this.frequency(w) ?? 0;
      const list = df >= this.commonDf && this.rows + df <= this.maxRows ? this.sharesOf(w) : this.shares.get(w);
      if (list) lists.push(list);
      else rare.push(w);
    }
    if (!lists.length) return null;
    const touched: number[] = [];
    const add = (eid: number, score: number) => {
      if (eid >= this.denseEids) return this.addFar(touched, eid, score, false);
      if (eid >= this.acc.length) this.grow(eid);
      if (this.acc[eid] === 0) touched.push(eid);
      this.acc[eid] += score;
    };
    if (rare.length) {
      const r = this.fts.scoredRows(rare.map(quote).join(' OR '));
      if (!r) return this.abandon(touched);
      for (let i = 0; i < r.eids.length; i++) add(r.eids[i], r.scores[i]);
    }
    const dirty = this.dirty.size ? this.dirty : null;
    for (const list of lists) {
      const { eids, scores } = list;
      for (let i = 0; i < eids.length; i++) if (!dirty?.has(eids[i])) add(eids[i], scores[i]);
    }
    if (dirty) {
      // Rewritten rows: their whole score again from FTS5 (the rare words' share is in it too).
      const all = words.map(quote).join(' OR ');
      for (const [from, to] of this.dirtyRanges()) {
        const r = this.fts.scoredRows(all, from, to);
        if (!r) return this.abandon(touched);
        for (let i = 0; i < r.eids.length; i++) {
          const eid = r.eids[i];
          if (!dirty.has(eid)) continue;
          if (eid >= this.denseEids) {
            this.addFar(touched, eid, r.scores[i], true);
            continue;
          }
          if (eid >= this.acc.length) this.grow(eid);
          if (this.acc[eid] === 0) touched.push(eid);
          this.acc[eid] = r.scores[i];
        }
      }
    }
    const far = this.far;
    const dense = this.acc;
    const limit = this.denseEids;
    const best = topK(touched, (eid) => (eid < limit ? dense[eid] : far.get(eid)!), k);
    this.clear(touched);
    return best;
  }

  private addFar(touched: number[], eid: number, score: number, replace: boolean): void {
    const had = this.far.get(eid);
    if (had === undefined) touched.push(eid);
    this.far.set(eid, replace || had === undefined ? score : had + score);
  }

  private clear(touched: readonly number[]): void {
    for (const eid of touched) if (eid < this.denseEids) this.acc[eid] = 0;
    this.far.clear();
  }

  /** FTS5 failed midway: the sums so far are cleared, and the caller's FTS5 query decides. */
  private abandon(touched: readonly number[]): null {
    this.clear(touched);
    return null;
  }

  /** Drops everything read when the index changed in a way the shares cannot follow. */
  private validate(): void {
    const generation = this.store.entityGeneration();
    const own = this.store.ownGenerationBumps();
    const followed = !this.stale && generation - this.generation === own - this.ownBumps && this.dirtyRanges().length <= MAX_DIRTY_RANGES;
    if (followed) return;
    const hadAny = this.shares.size > 0;
    this.epoch++;
    this.shares.clear();
    this.docFreq.clear();
    this.dirty.clear();
    this.ranges = null;
    this.rows = 0;
    this.stale = false;
    this.generation = generation;
    this.ownBumps = own;
    if (hadAny && this.background) this.scheduleWarm();
  }

  /**
   * How many entities hold each word, as the OR step counts them (read once while the index
   * does not change under them): the lexical stream picks a long query's rarest words by it.
   */
  documentFrequencies(words: readonly string[]): Map<string, number | null> {
    this.validate();
    return new Map(words.map((w) => [w, this.frequency(w)]));
  }

  private frequency(word: string): number | null {
    const kept = this.shares.get(word);
    if (kept) return kept.eids.length;
    let df = this.docFreq.get(word);
    if (df === undefined) {
      const n = this.fts.documentFrequency(word);
      if (n === null) return null;
      this.docFreq.set(word, (df = n));
    }
    return df;
  }

  private sharesOf(word: string): ScoredRows | null {
    const kept = this.shares.get(word);
    if (kept) return kept;
    const list = this.fts.scoredRows(quote(word));
    return list && this.keep(word, list) ? list : null;
  }

  private keep(word: string, list: ScoredRows): boolean {
    if (this.rows + list.eids.length > this.maxRows) return false;
    this.shares.set(word, list);
    this.rows += list.eids.length;
    return true;
  }

  /** The rowid ranges of the rewritten rows (kept until the set changes: every query asks). */
  private dirtyRanges(): Array<[number, number]> {
    return (this.ranges ??= this.rangesOf());
  }

  private rangesOf(): Array<[number, number]> {
    if (!this.dirty.size) return [];
    const sorted = [...this.dirty].sort((a, b) => a - b);
    const out: Array<[number, number]> = [[sorted[0], sorted[0]]];
    for (const eid of sorted) {
      const last = out[out.length - 1];
      if (eid - last[1] <= RANGE_GAP) last[1] = eid;
      else out.push([eid, eid]);
    }
    return out;
  }

  private grow(eid: number): void {
    const next = new Float64Array(Math.min(this.denseEids, Math.max(eid + 1, Math.ceil(this.acc.length * 1.5))));
    next.set(this.acc);
    this.acc = next;
  }

  // --- filling in the background (a server) ---------------------------------------------------

  /** A background pass once the index has not changed for a quiet spell (two timer ticks alike). */
  private scheduleWarm(): void {
    if (this.closed) return;
    clearTimeout(this.warmTimer);
    this.warmTimer = setTimeout(() => {
      const generation = this.store.entityGeneration();
      if (generation !== this.quietSince) {
        this.quietSince = generation;
        return this.scheduleWarm();
      }
      this.warm().catch(() => undefined); // a failing read leaves the words to be read when asked
    }, WARM_DELAY_MS);
    this.warmTimer.unref?.();
  }

  /**
   * The background pass, a slice per turn: rows this process rewrote are read again into every
   * word kept (queries then stop scoring them apart), then every common word not kept is read.
   * Stops when the index changes under it.
   */
  async warm(turn: () => Promise<void> = () => new Promise((r) => setImmediate(r)), sliceMs = SLICE_MS): Promise<void> {
    this.validate();
    const startedAt = this.store.entityGeneration();
    const epoch = this.epoch;
    let sliceStart = performance.now();
    /** Yields to requests when the slice is spent; false when the index changed meanwhile. */
    const pause = async (): Promise<boolean> => {
      if (performance.now() - sliceStart <= sliceMs) return true;
      await turn();
      sliceStart = performance.now();
      // Written meanwhile (an edit, another process, a bulk load): what is read no longer adds up.
      if (this.closed || this.stale || this.epoch !== epoch || this.store.entityGeneration() !== startedAt) {
        if (!this.closed && this.background) this.scheduleWarm();
        return false;
      }
      return true;
    };
    if (this.dirty.size) {
      const rewritten = [...this.dirty];
      const ranges = this.dirtyRanges();
      for (const [word, list] of [...this.shares]) {
        let next = list;
        for (const [from, to] of ranges) {
          if (!(await pause())) return;
          const fresh = this.fts.scoredRows(quote(word), from, to);
          if (!fresh) return;
          next = splice(next, from, to, fresh);
        }
        this.rows += next.eids.length - list.eids.length;
        this.shares.set(word, next);
      }
      // Nothing was written meanwhile (the generation did not move): every word has them now.
      for (const eid of rewritten) this.dirty.delete(eid);
      this.ranges = null;
    }
    const words: Array<[string, number]> = [];
    for (let after = ''; ; ) {
      const page = this.fts.vocabulary(after, VOCAB_PAGE);
      for (const [w, df] of page) if (df >= this.commonDf && !this.shares.has(w)) words.push([w, df]);
      if (page.length < VOCAB_PAGE) break;
      after = page[page.length - 1][0];
      if (!(await pause())) return;
    }
    words.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const top = this.fts.maxRowid();
    for (const [word, df] of words) {
      const parts: ScoredRows[] = [];
      const span = Math.ceil((FILL_ROWS * (top + 1)) / Math.max(1, df));
      for (let from = 0; from <= top; from += span) {
        if (!(await pause())) return;
        const part = this.fts.scoredRows(quote(word), from, from + span - 1);
        if (!part) return;
        parts.push(part);
      }
      if (!this.keep(word, concat(parts))) return;
    }
  }
}

/** `list` with its rows from `from` to `to` (rowids) replaced by `fresh`'s; both in rowid order. */
function splice(list: ScoredRows, from: number, to: number, fresh: ScoredRows): ScoredRows {
  const lo = lowerBound(list.eids, from);
  const hi = lowerBound(list.eids, to + 1);
  const n = lo + fresh.eids.length + list.eids.length - hi;
  const eids = new Int32Array(n);
  const scores = new Float64Array(n);
  eids.set(list.eids.subarray(0, lo));
  eids.set(fresh.eids, lo);
  eids.set(list.eids.subarray(hi), lo + fresh.eids.length);
  scores.set(list.scores.subarray(0, lo));
  scores.set(fresh.scores, lo);
  scores.set(list.scores.subarray(hi), lo + fresh.eids.length);
  return { eids, scores };
}

function lowerBound(eids: Int32Array, eid: number): number {
  let lo = 0;
  let hi = eids.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (eids[mid] < eid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function concat(parts: ScoredRows[]): ScoredRows {
  let n = 0;
  for (const p of parts) n += p.eids.length;
  const eids = new Int32Array(n);
  const scores = new Float64Array(n);
  let at = 0;
  for (const p of parts) {
    eids.set(p.eids, at);
    scores.set(p.scores, at);
    at += p.eids.length;
  }
  return { eids, scores };
}

/** The k best of `eids` by `score(eid)`, best first, ties by eid (a bounded heap, worst on top). */
export function topK(eids: readonly number[], score: (eid: number) => number, k: number): StreamHit[] {
  const worse = (a: number, b: number) => score(a) < score(b) || (score(a) === score(b) && a > b);
  const heap: number[] = [];
  for (const eid of eids) {
    if (heap.length < k) {
      heap.push(eid);
      let i = heap.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!worse(heap[i], heap[p])) break;
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      }
    } else if (k > 0 && worse(heap[0], eid)) {
      heap[0] = eid;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && worse(heap[l], heap[m])) m = l;
        if (r < heap.length && worse(heap[r], heap[m])) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m], heap[i]];
        i = m;
      }
    }
  }
  return heap.sort((a, b) => score(b) - score(a) || a - b).map((eid) => ({ eid, score: score(eid) }));
}
