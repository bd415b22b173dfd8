// The lexical stream's OR step with common words scored from memory (search/common-terms.ts):
// the same ranking and scores as FTS5 scoring every row itself, before and after this process
// edits the index, and after another process does; filling in the background stops when the
// index changes under it. "Common" is 5 entities here (100 in a real index).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { CommonTermScores, quote } from '../server/src/engine/search/common-terms';
import { LexicalStream } from '../server/src/engine/search/lexical';
import { FtsIndex } from '../server/src/engine/store/fts';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

const WORDS = ['value', 'path', 'name', 'read', 'write', 'config', 'cache', 'token'];

/** Module i, function j: a docstring repeating a few of WORDS, so scores differ row to row. */
function moduleText(i: number): string {
  const out: string[] = [];
  for (let j = 0; j < 5; j++) {
    const words = WORDS.filter((_, w) => (i + j * w) % 3 !== 0).slice(0, 2 + ((i + j) % 4));
    out.push(`def ${words[0]}_${words[1] ?? 'x'}_${i}_${j}(arg):\n    """${words.join(' ')} ${words.slice(0, 1 + (j % 2)).join(' ')} of item ${i}."""\n    return arg\n`);
  }
  return out.join('\n');
}

let ws: TestWorkspace;
let fts: FtsIndex;
beforeAll(async () => {
  ws = await openWorkspace('python');
  for (let i = 0; i < 12; i++) ws.write(`bulk/m${i}.py`, moduleText(i));
  ws.write('bulk/long.py', `def parse_sections(text):\n    """${LONG_DOC}."""\n    return text\n`);
  await ws.engine.indexWorkspace();
  fts = new FtsIndex(ws.engine.store.db);
});
afterAll(() => ws.dispose());

const LONG_DOC = 'parse nested configuration sections while keeping comments quoted values escapes and blank lines intact for every reader';

const QUERIES = [
  ['value', 'path'],
  ['read', 'config', 'cache'],
  ['name', 'token', 'write', 'item'],
  ['value', 'nothingmatches'],
];

/** What FTS5 says when it scores every row: best first, ties by eid. */
function ftsOr(words: string[], k: number) {
  return fts
    .search(words.map(quote).join(' OR '), 10_000)
    .map((h) => ({ eid: h.eid, score: -h.score }))
    .sort((a, b) => b.score - a.score || a.eid - b.eid)
    .slice(0, k);
}

function expectSame(got: Array<{ eid: number; score: number }> | null, want: Array<{ eid: number; score: number }>): void {
  expect(got).not.toBeNull();
  expect(got!.map((h) => h.eid)).toEqual(want.map((h) => h.eid));
  got!.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].score, 9));
}

describe('common words scored from memory', () => {
  it('rank and score as FTS5 does, whatever the depth', () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    for (const words of QUERIES) {
      for (const k of [1, 7, 1000]) expectSame(common.orStep(words, k), ftsOr(words, k));
    }
    expect(common.size().words).toBeGreaterThan(3);
    common.dispose();
  });

  it('sum rowids past the dense array (a long-lived index grows its rowids) the same way', async () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5, 40);
    for (const words of QUERIES) for (const k of [3, 1000]) expectSame(common.orStep(words, k), ftsOr(words, k));
    ws.write('bulk/m11.py', 'def write_config_far(arg):\n    """write config write config."""\n    return arg\n');
    await ws.engine.syncFiles([{ path: 'bulk/m11.py', type: 'changed' }]);
    const far = ws.engine.store.entitiesNamed('write_config_far')[0].eid;
    expect(far).toBeGreaterThan(40);
    const got = common.orStep(['write', 'config'], 1000)!;
    const want = ftsOr(['write', 'config'], 1000);
    expect(new Set(got.map((h) => h.eid))).toEqual(new Set(want.map((h) => h.eid)));
    expect(got.find((h) => h.eid === far)!.score).toBeCloseTo(want.find((h) => h.eid === far)!.score, 9);
    common.dispose();
  });

  it('leave a query of rare words to FTS5', () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    expect(common.orStep(['nothingmatches', 'parse_amount'], 10)).toBeNull();
    common.dispose();
  });

  it('a range of rowids is scored as the whole query scores it', () => {
    const all = fts.scoredRows('"value" OR "path"')!;
    const mid = all.eids[all.eids.length >> 1];
    const low = fts.scoredRows('"value" OR "path"', 0, mid)!;
    const high = fts.scoredRows('"value" OR "path"', mid + 1, 1e9)!;
    expect([...low.eids, ...high.eids]).toEqual([...all.eids]);
    expect([...low.scores, ...high.scores]).toEqual([...all.scores]);
  });

  it('this process rewriting a file: the rewritten rows are scored afresh, gone ones are gone', async () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    common.orStep(['value', 'path'], 10); // shares read
    const before = common.size().words;
    // m3's functions go; a new one repeats the query's words.
    ws.write('bulk/m3.py', 'def value_path_fresh(arg):\n    """value path value path value path."""\n    return arg\n');
    await ws.engine.syncFiles([{ path: 'bulk/m3.py', type: 'changed' }]);
    const got = common.orStep(['value', 'path'], 1000)!;
    expect(common.size().words).toBe(before); // followed, not dropped
    const fresh = ws.engine.store.entitiesNamed('value_path_fresh')[0].eid;
    const want = ftsOr(['value', 'path'], 1000);
    expect(new Set(got.map((h) => h.eid))).toEqual(new Set(want.map((h) => h.eid)));
    expect(got.find((h) => h.eid === fresh)!.score).toBeCloseTo(want.find((h) => h.eid === fresh)!.score, 9);
    expect(got.some((h) => ws.engine.store.entitiesByEid([h.eid]).get(h.eid)?.path === 'bulk/m3.py' && h.eid !== fresh)).toBe(false);
    common.dispose();
  });

  it('another process writing the index: everything read is dropped and read again', async () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    common.orStep(['read', 'config'], 10);
    const other = await Engine.open({ root: ws.root, workers: 0, embeddings: { model: 'none' }, lazy: true });
    ws.write('bulk/m5.py', 'def read_config_elsewhere(arg):\n    """read config read config."""\n    return arg\n');
    await other.syncFiles([{ path: 'bulk/m5.py', type: 'changed' }]);
    await other.close();
    expectSame(common.orStep(['read', 'config'], 1000), ftsOr(['read', 'config'], 1000));
    common.dispose();
  });

  it('the lexical stream answers the same with and without them', () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    const plain = new LexicalStream(fts);
    const fast = new LexicalStream(fts, common);
    const long = 'read the config value then write the cache token with a name and a path for every item of the value it holds';
    const longer = `${long} ${Array.from({ length: 30 }, (_, i) => `unheard${i}`).join(' ')}`;
    for (const q of ['read the config value', 'a token name to write', 'cache', 'value of the path item', long, longer, LONG_DOC]) {
      expect(fast.searchSync(q, 30).map((h) => h.eid)).toEqual(plain.searchSync(q, 30).map((h) => h.eid));
    }
    common.dispose();
  });

  it("a long query whose words one entity holds all of still finds it first; one with a word nobody holds goes to the OR step", () => {
    const lexical = new LexicalStream(fts, new CommonTermScores(fts, ws.engine.store, false, 5));
    const holder = ws.engine.store.entitiesNamed('parse_sections')[0].eid;
    // 17 words in another order: no phrase, but the all-words step.
    expect(lexical.searchSync(LONG_DOC.split(' ').reverse().join(' '), 10)[0].eid).toBe(holder);
    const withStranger = lexical.searchSync(`${LONG_DOC} zqxjunheard`, 10);
    expect(withStranger[0].eid).toBe(holder); // the OR step ranks it first all the same
  });

  it('score a common word past the row cap with the rare words: the same ranking and scores', () => {
    // Room for `value`'s rows alone: `path`, as common, is scored by FTS5 beside the rare words.
    const cap = fts.documentFrequency('value')!;
    expect(fts.documentFrequency('path')).toBeGreaterThanOrEqual(5);
    const common = new CommonTermScores(fts, ws.engine.store, false, 5, undefined, cap);
    expectSame(common.orStep(['value', 'path', 'item'], 1000), ftsOr(['value', 'path', 'item'], 1000));
    expect(common.size()).toMatchObject({ words: 1, rows: cap });
    for (const words of QUERIES) for (const k of [3, 1000]) expectSame(common.orStep(words, k) ?? ftsOr(words, k), ftsOr(words, k));
    common.dispose();
  });
});

describe('filling in the background', () => {
  it('reads every common word, a slice at a time', async () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    let turns = 0;
    await common.warm(async () => void turns++);
    const vocabulary = fts.vocabulary('', 100_000).filter(([, df]) => df >= 5);
    expect(common.size().words).toBe(vocabulary.length);
    expect(common.size().rows).toBe(vocabulary.reduce((n, [, df]) => n + df, 0));
    common.dispose();
  });

  it('stops when the index changes under it, keeping nothing it read across the change', async () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    let wrote = false;
    // Slices of no time: every step pauses, and the first pause writes.
    await common.warm(async () => {
      if (wrote) return;
      wrote = true;
      ws.write('bulk/m7.py', 'def token_only(arg):\n    """token."""\n    return arg\n');
      await ws.engine.syncFiles([{ path: 'bulk/m7.py', type: 'changed' }]);
    }, -1);
    expect(wrote).toBe(true);
    expect(common.size().words).toBe(0);
    // Queries still agree with FTS5 (what was cut short is read when asked for).
    expectSame(common.orStep(['token', 'name'], 1000), ftsOr(['token', 'name'], 1000));
    common.dispose();
  });
});

describe('rows this process rewrote', () => {
  it('are read again into every word at the next background pass, after which answers still agree with FTS5', async () => {
    const common = new CommonTermScores(fts, ws.engine.store, false, 5);
    await common.warm(async () => undefined);
    ws.write('bulk/m9.py', 'def name_token_new(arg):\n    """name token name token."""\n    return arg\n');
    await ws.engine.syncFiles([{ path: 'bulk/m9.py', type: 'changed' }]);
    ws.write('bulk/m1.py', moduleText(1) + '\ndef name_value_added(arg):\n    """name value."""\n    return arg\n');
    await ws.engine.syncFiles([{ path: 'bulk/m1.py', type: 'changed' }]);
    const rewritten = common.size().rewritten;
    expect(rewritten).toBeGreaterThan(0);
    const words = common.size().words;
    await common.warm(async () => undefined, -1);
    // Every word kept (and any that became common with the edits), none of them waiting for a re-read.
    expect(common.size().rewritten).toBe(0);
    expect(common.size().words).toBeGreaterThanOrEqual(words);
    // The rows written are read again from FTS5: their scores are what a fresh read gives (the
    // rows left alone keep the shares read before the edits moved document frequencies a little).
    const fresh = new CommonTermScores(fts, ws.engine.store, false, 5);
    const written = new Set(['name_token_new', 'name_value_added'].map((n) => ws.engine.store.entitiesNamed(n)[0].eid));
    for (const q of [['name', 'token'], ['name', 'value', 'item'], ['read', 'write']]) {
      const got = common.orStep(q, 1000)!;
      const want = ftsOr(q, 1000);
      expect(new Set(got.map((h) => h.eid))).toEqual(new Set(want.map((h) => h.eid)));
      const mine = new Map(got.map((h) => [h.eid, h.score]));
      for (const h of fresh.orStep(q, 1000)!) if (written.has(h.eid)) expect(mine.get(h.eid)).toBeCloseTo(h.score, 9);
    }
    fresh.dispose();
    common.dispose();
  });
});

describe('a server', () => {
  it('fills every common word once the index has stood still for a quiet spell, and waits while it is written', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] });
    try {
      const common = new CommonTermScores(fts, ws.engine.store, true, 5);
      await vi.advanceTimersByTimeAsync(2_000);
      expect(common.size().words).toBe(0);
      // A write (this process's) restarts the wait.
      ws.write('bulk/m10.py', 'def value_written(arg):\n    """value."""\n    return arg\n');
      await ws.engine.syncFiles([{ path: 'bulk/m10.py', type: 'changed' }]);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(common.size().words).toBe(0);
      await vi.advanceTimersByTimeAsync(10_000);
      const vocabulary = fts.vocabulary('', 100_000).filter(([, df]) => df >= 5);
      expect(common.size()).toMatchObject({ words: vocabulary.length, rewritten: 0 });
      common.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
