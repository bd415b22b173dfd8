// Ranking on the search fixture (fixtures/search): names that exist come first, a traceback
// finds the function it points into, tests come after the code they test unless asked for,
// files are ranked, and an empty query is the same clear error in the engine and the CLI.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFixture, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('search');
  await ws.engine.embeddings.idle();
});
afterAll(() => ws.dispose());

const ids = async (params: Parameters<TestWorkspace['engine']['search']>[0]) => (await ws.engine.search({ limit: 5, ...params })).results.map((r) => r.id);

const TRACEBACK = `Invoices with a currency crash

Traceback (most recent call last):
  File "/home/me/app/run.py", line 3, in main
    render_invoice(c, lines, "de")
  File "/opt/venv/lib/billing/invoice.py", line 17, in total_due
    subtotal = sum(parse_amount(line) for line in lines)
  File "/opt/venv/lib/billing/invoice.py", line 12, in parse_amount
    raise InvoiceError("amount is not a number: %r" % text)
billing.invoice.InvoiceError: amount is not a number: '12 EUR'`;

describe('identifier queries are exact-first', () => {
  it('a name or dotted name that exists ranks first, ahead of entities that repeat its words', async () => {
    expect((await ids({ query: 'parametrize' }))[0]).toBe('method:billing/params.py:Metafunc.parametrize');
    expect((await ids({ query: 'Metafunc.parametrize' }))[0]).toBe('method:billing/params.py:Metafunc.parametrize');
    expect((await ids({ query: 'parametrize_from_file' }))[0]).toBe('func:billing/params.py:parametrize_from_file');
  });

  it('so does a dotted name with its module path, as a traceback or an import writes it', async () => {
    expect((await ids({ query: 'billing.params.Metafunc.parametrize' }))[0]).toBe('method:billing/params.py:Metafunc.parametrize');
    expect((await ids({ query: 'params.Metafunc.parametrize' }))[0]).toBe('method:billing/params.py:Metafunc.parametrize');
    expect((await ids({ query: 'billing.params.parametrize_from_file' }))[0]).toBe('func:billing/params.py:parametrize_from_file');
    expect((await ids({ query: 'billing.invoice' }))[0]).toBe('module:billing/invoice.py:invoice');
    // The exact stream itself names them (the other streams may not, in a larger workspace).
    const { ExactNameStream } = await import('../server/src/engine/search/exact');
    const exact = new ExactNameStream(ws.engine.store);
    for (const [query, id] of [
      ['billing.params.Metafunc.parametrize', 'method:billing/params.py:Metafunc.parametrize'],
      ['billing.params.parametrize_from_file', 'func:billing/params.py:parametrize_from_file'],
      ['billing', 'module:billing/__init__.py:billing'],
      // A class the package re-exports, by the package's name.
      ['billing.Metafunc.parametrize', 'method:billing/params.py:Metafunc.parametrize'],
    ]) {
      const hits = await exact.search(query, 5);
      expect(hits.map((h) => ws.engine.store.entityByEid(h.eid)?.id)[0], query).toBe(id);
    }
  });
});

describe('bug reports', () => {
  it('a traceback finds the innermost frame it points into, then its caller', async () => {
    expect((await ids({ query: TRACEBACK })).slice(0, 2)).toEqual(['func:billing/invoice.py:parse_amount', 'func:billing/invoice.py:total_due']);
  });

  it('the same report gives the same answer every time', async () => {
    const first = await ws.engine.search({ query: TRACEBACK, files: true });
    for (let i = 0; i < 4; i++) expect(await ws.engine.search({ query: TRACEBACK, files: true })).toEqual(first);
  });
});

describe('a dotted name among many namesakes', () => {
  it('finds the one its module path spells, in an identifier query and in a report', async () => {
    // 80 modules each with a `get`: more than a lookup by the bare name returns. Larger files are
    // written first, so theirs are the ones such a lookup would return.
    const padding = Array.from({ length: 40 }, (_, i) => `    # step ${i} of looking the key up in the vendored table\n`).join('');
    for (let i = 0; i < 80; i++) ws.write(`vendor/m${i}.py`, `def get(key):\n${padding}    return key\n`);
    ws.write('warehouse/store.py', 'def get(key):\n    return None\n');
    await ws.engine.indexWorkspace();
    try {
      expect((await ids({ query: 'warehouse.store.get' }))[0]).toBe('func:warehouse/store.py:get');
      // The signals stream finds it by the name the report writes (not only among the first 50 `get`).
      const report = 'Fetching an invoice returns None\n\nAfter upgrading, warehouse.store.get returns None for every key that was saved.';
      const { SignalStream } = await import('../server/src/engine/search/signals');
      const { FtsIndex } = await import('../server/src/engine/store/fts');
      const hits = await new SignalStream(ws.engine.store, new FtsIndex(ws.engine.store.db)).search(report, 10);
      expect(hits.map((h) => ws.engine.store.entityByEid(h.eid)?.id)[0]).toBe('func:warehouse/store.py:get');
      expect(await ids({ query: report, limit: 10 })).toContain('func:warehouse/store.py:get');
    } finally {
      fs.rmSync(path.join(ws.root, 'vendor'), { recursive: true });
      fs.rmSync(path.join(ws.root, 'warehouse'), { recursive: true });
      await ws.engine.indexWorkspace();
    }
  });
});

describe('long queries', () => {
  it('keep the terms the index holds, rarest first, so filler words do not drown them', async () => {
    const { LexicalStream } = await import('../server/src/engine/search/lexical');
    const { FtsIndex } = await import('../server/src/engine/store/fts');
    const fts = new FtsIndex(ws.engine.store.db);
    expect(fts.documentFrequency('zzzunknown')).toBe(0);
    expect(fts.documentFrequency('vat')).toBeGreaterThan(0);
    const filler = Array.from({ length: 40 }, (_, i) => `filler${i}word`).join(' ');
    const lexical = new LexicalStream(fts);
    const hits = lexical.searchSync(`${filler} the vat rate ${filler}`, 5);
    expect(ws.engine.store.entityByEid(hits[0].eid)?.id).toBe('func:billing/tax.py:vat_for');
  });

  it('of a dozen words or more, match any word but those most of the index holds', async () => {
    const { Engine } = await import('../server/src/engine/engine');
    const { LexicalStream } = await import('../server/src/engine/search/lexical');
    const { FtsIndex } = await import('../server/src/engine/store/fts');
    const os = await import('node:os');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-long-'));
    // Forty functions that all hold `value`, and one about a levy.
    const common = Array.from({ length: 40 }, (_, i) => `def scale${i}(value):\n    return value * ${i}\n`).join('\n\n');
    fs.writeFileSync(path.join(dir, 'm.py'), `${common}\n\ndef levy_for(country, rate, value):\n    """Levy of a country at a rate."""\n    return value * rate\n`);
    const engine = await (Engine as typeof import('../server/src/engine/engine').Engine).open({ root: dir, dbPath: path.join(dir, 'index.db'), workers: 0, embeddings: { model: 'none' } });
    try {
      await engine.indexWorkspace();
      const lexical = new LexicalStream(new FtsIndex(engine.store.db));
      const found = (q: string) => lexical.searchSync(q, 50).map((h) => engine.store.entityByEid(h.eid)?.id);
      // Three words: every word counts, so the functions holding only `value` follow.
      expect(found('levy country value')).toEqual(expect.arrayContaining(['func:m.py:levy_for', 'func:m.py:scale0']));
      // Twelve: `value` (in 41 of 43 entities) is left out of the any-word step.
      const report = 'the levy for my country came out wrong when the rate and value were both set after upgrading yesterday';
      const hits = found(report);
      expect(hits[0]).toBe('func:m.py:levy_for');
      expect(hits.filter((id) => id?.startsWith('func:m.py:scale'))).toEqual([]);
    } finally {
      await engine.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('graph propagation', () => {
  it('gives each top hit a share of the scores of the top hits it calls or is called by, and none to an isolated one', async () => {
    const { propagateScores } = await import('../server/src/engine/search/graph-boost');
    const items = [
      { id: 'func:billing/params.py:parametrize_from_file', score: 1.2 },
      { id: 'func:billing/invoice.py:parse_amount', score: 1.0 },
      { id: 'func:billing/tax.py:vat_for', score: 0.9 },
      { id: 'func:billing/invoice.py:total_due', score: 0.8 },
    ];
    propagateScores(items, ws.engine.store, 0.5);
    // total_due calls both: +0.5 × (1.0 + 0.9); each of them +0.5 × 0.8.
    expect(items.map((i) => [i.id, +i.score.toFixed(6)])).toEqual([
      ['func:billing/invoice.py:total_due', 1.75],
      ['func:billing/invoice.py:parse_amount', 1.4],
      ['func:billing/tax.py:vat_for', 1.3],
      ['func:billing/params.py:parametrize_from_file', 1.2],
    ]);
  });
});

describe('test code', () => {
  it('ranks after the code it tests by default, and like any other with includeTests', async () => {
    // A query that names the test: demoted by default, it comes after the code it tests (or out
    // of the first ten); asked for, it comes first.
    const plain = await ids({ query: 'test total due', limit: 10 });
    expect(plain[0]).toBe('func:billing/invoice.py:total_due');
    const test = plain.indexOf('func:tests/test_invoice.py:test_total_due');
    expect(test === -1 ? plain.length : test).toBeGreaterThan(0);
    expect((await ids({ query: 'test total due', includeTests: true }))[0]).toBe('func:tests/test_invoice.py:test_total_due');
  });
});

describe('file ranking', () => {
  it('ranks files from their entities when asked, best file first with its hits', async () => {
    const r = await ws.engine.search({ query: 'invoice amount', files: true, limit: 3 });
    // The code files first; the test file (about invoice amounts, but demoted) after them.
    expect(r.files?.map((f) => f.file)).toEqual(['billing/invoice.py', 'billing/params.py', 'billing/tax.py']);
    const all = (await ws.engine.search({ query: 'invoice amount', files: true })).files?.map((f) => f.file) ?? [];
    expect(all.indexOf('tests/test_invoice.py')).toBe(all.length - 1);
    const withTests = await ws.engine.search({ query: 'invoice amount', files: true, includeTests: true, limit: 3 });
    expect(withTests.files?.map((f) => f.file)).toContain('tests/test_invoice.py');
    expect(r.files?.[0].hits[0]).toBe('func:billing/invoice.py:parse_amount');
    expect(r.files?.[0].score).toBeGreaterThan(r.files![1].score);
    expect((await ws.engine.search({ query: 'invoice amount' })).files).toBeUndefined();
  });
});

describe('what a report names', () => {
  it('an exception class of the workspace that a report quotes points at the code that raises it', async () => {
    const report = 'Nightly billing stops with InvoiceError whenever a customer writes a currency sign next to the number. Could it be more lenient?';
    const d = await ws.engine.searchDetailed({ query: report });
    const signals = (d.perStream.signals ?? []).map((eid) => ws.engine.store.entityByEid(eid)?.id);
    expect(signals[0]).toBe('func:billing/invoice.py:parse_amount');
    // A builtin exception has no class here, so no raisers: vat_for raises KeyError, unnamed.
    const builtin = await ws.engine.searchDetailed({ query: 'The job stops with a KeyError when the country is missing from the table, please explain' });
    expect((builtin.perStream.signals ?? []).map((eid) => ws.engine.store.entityByEid(eid)?.id)).not.toContain('func:billing/tax.py:vat_for');
  });

  it('files: the ranked entities, the lexical order and the files a report names by path are three views fused by rank', async () => {
    const { rankFiles } = await import('../server/src/engine/search/files');
    const ranked = [
      { id: 'a1', file: 'a.py', score: 3 },
      { id: 'b1', file: 'b.py', score: 2 },
      { id: 'c1', file: 'c.py', score: 1 },
    ];
    const order = (files: Array<{ file: string }>) => files.map((f) => f.file);
    expect(order(rankFiles(ranked, 10))).toEqual(['a.py', 'b.py', 'c.py']);
    // The lexical stream spreads its hits over c.py: it passes b.py, which the words miss.
    const lexical = ['c', 'c', 'a', 'c'].map((f, i) => ({ id: `${f}${i}`, file: `${f}.py`, weight: 1 }));
    expect(order(rankFiles(ranked, 10, lexical))).toEqual(['a.py', 'c.py', 'b.py']);
    // A test file stays after the code, though both views hold it.
    const demoted = <T extends { file: string }>(h: T) => ({ ...h, weight: h.file === 'c.py' ? 0.05 : 1 });
    expect(order(rankFiles(ranked.map(demoted), 10, lexical.map(demoted)))).toEqual(['a.py', 'b.py', 'c.py']);
    // A file the report names, found by no stream, joins the list (above a file one view found
    // second); named and found by the entities, it leads (the lexical view counts half).
    expect(order(rankFiles(ranked, 10, lexical, ['d.py']))).toEqual(['a.py', 'c.py', 'd.py', 'b.py']);
    expect(order(rankFiles(ranked, 10, lexical, ['b.py']))).toEqual(['b.py', 'a.py', 'c.py']);
    // The word view counts half the entities': where the two views swap two files, the file of
    // the search's first answer leads (with equal weights a tie, which the path broke for b.py).
    const swapped = rankFiles([{ id: 'z1', file: 'z.py', score: 2 }, { id: 'b1', file: 'b.py', score: 1 }], 10, [{ id: 'b1', file: 'b.py', weight: 1 }, { id: 'z1', file: 'z.py', weight: 1 }]);
    expect(order(swapped)).toEqual(['z.py', 'b.py']);
  });
});

describe('named files and filters', () => {
  it('a file the query names by path stays out of the file list when the path filter leaves it out', async () => {
    const q = 'Totals on invoices are wrong for customers abroad; the rates in billing/tax.py look doubled.';
    const files = async (paths?: string[]) => ((await ws.engine.search({ query: q, files: true, ...(paths ? { paths } : {}) })).files ?? []).map((f) => f.file);
    expect(await files()).toContain('billing/tax.py');
    const filtered = await files(['billing/invoice.py']);
    expect(filtered).toEqual(['billing/invoice.py']);
  });
});

describe('ranking features', () => {
  it('lexical locality: a file or class the lexical hits gather in lifts the entities in it, one lucky hit elsewhere less', async () => {
    const { FEATURES, featuresOf, rankingContext } = await import('../server/src/engine/search/features');
    const path: Record<number, string> = { 1: 'a.py', 2: 'b.py', 3: 'b.py', 4: 'b.py', 5: 'c.py', 6: 'b.py' };
    const parent: Record<number, string | null> = { 1: null, 2: 'class:b.py:K', 3: 'class:b.py:K', 4: null, 5: null, 6: 'class:b.py:K' };
    const hit = (eid: number) => ({ eid, score: 1 });
    // a.py holds the best single hit (1 / 6), b.py three good ones (1/7 + 1/16 + 1/36): b.py leads.
    const ctx = rankingContext('parse an amount', { lexical: [1, 2, 3, 4].map(hit), static: [5].map(hit) }, 1, new Map(), (eid) => path[eid], (eid) => parent[eid]);
    const row = (eid: number) => ({ eid, id: `func:${path[eid]}:f${eid}`, kind: 'function', name: `f${eid}`, qname: `f${eid}`, path: path[eid], parent: parent[eid], sr: 0, sc: 0, er: 1, ec: 0, signature: '' }) as never;
    const value = (feature: string, eid: number) => featuresOf({ row: row(eid), fusedScore: 1, body: '', callers: 0 }, ctx)[FEATURES.indexOf(feature as never)];
    expect(value('lexicalFile', 2)).toBe(1);
    expect(value('lexicalFile', 1)).toBeCloseTo(1 / 6 / (1 / 7 + 0.5 / 8 + 0.25 / 9), 6);
    expect(value('lexicalFile', 5)).toBe(0);
    // Entity 6 is no lexical hit, but its class holds two: the first parent of the hits.
    expect(value('lexicalParent', 6)).toBe(1);
    expect(value('lexicalParent', 5)).toBe(0);
  });

  it('equal evidence is one rank: two functions raising the quoted message score alike in the signals stream', async () => {
    const { FEATURES, featuresOf, rankingContext } = await import('../server/src/engine/search/features');
    const signals = [
      { eid: 1, score: 3.5 },
      { eid: 2, score: 3.5 },
      { eid: 3, score: 1 },
      { eid: 4, score: 1 },
    ];
    const ctx = rankingContext('server answered with status', { signals }, 1);
    const row = (eid: number) => ({ eid, id: `func:a.py:f${eid}`, kind: 'function', name: `f${eid}`, qname: `f${eid}`, path: 'a.py', parent: null, sr: 0, sc: 0, er: 1, ec: 0, signature: '' }) as never;
    const rank = (eid: number) => featuresOf({ row: row(eid), fusedScore: 1, body: '', callers: 0 }, ctx)[FEATURES.indexOf('signalsRank')];
    expect([1, 2, 3, 4].map(rank)).toEqual([1, 1, 1 / 3, 1 / 3]);
  });
});

describe('report ranking', () => {
  it('fuses the learned order with the plain order of the word and meaning streams; names and signals do not count there', async () => {
    const { blendWithPlain } = await import('../server/src/engine/search/fuse');
    const items = () => [1, 2, 3, 4].map((eid) => ({ row: { eid }, score: 1, factor: 1 }));
    const order = (xs: Array<{ row: { eid: number } }>) => xs.map((x) => x.row.eid);
    // Both word and meaning streams put 3 first: it passes 2, which only the learned order (and
    // the signals) liked; 2 falls to last, behind 4, which the plain order also holds.
    const a = items();
    blendWithPlain(a, { lexical: [3, 1, 4], static: [3, 4, 1], signals: [2], exact: [2] }, { k: 3, plain: 1 });
    expect(order(a)).toEqual([1, 3, 4, 2]);
    // With no plain evidence the learned order stands, and a demoted item keeps its demotion.
    const b = items();
    b[0].factor = 0.05;
    blendWithPlain(b, { signals: [4] }, { k: 3, plain: 1 });
    expect(order(b)).toEqual([2, 3, 4, 1]);
  });
});

describe('empty queries', () => {
  it('are an InvalidParams error in the engine', async () => {
    await expect(ws.engine.search({ query: '   ' })).rejects.toThrow(/non-empty query/);
  });

  it('exit 1 with that message in the CLI; --files prints the file ranking', () => {
    const CLI = path.resolve(__dirname, '../dist/server/src/cli/main.js');
    const root = copyFixture('search');
    const run = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--root', root], { encoding: 'utf8', env: { ...process.env, NSCCN_MODEL: 'none' } });
    const empty = run('search', '');
    expect(empty.status).toBe(1);
    expect(empty.stderr).toMatch(/non-empty query/);
    const files = run('search', 'invoice amount', '--files', '--limit', '2');
    expect(files.status).toBe(0);
    expect(files.stdout.trim().split('\n').map((l) => l.split(/\s+/)[1])).toEqual(['billing/invoice.py', 'billing/params.py']);
    const json = JSON.parse(run('search', 'test total due', '--tests', '--json').stdout);
    expect(json.results[0].id).toBe('func:tests/test_invoice.py:test_total_due');
    fs.rmSync(root, { recursive: true, force: true });
  });
});
