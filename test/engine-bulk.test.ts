// The fast path of a first index (worker threads, the compact batches they send, bulk inserts
// without secondary indexes, edges written before the indexes are built) must give exactly the
// index that file-by-file updates give. The compiled CLI takes the fast path; the reference is
// built in-process in two incremental steps, each below the bulk threshold.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { IndexSummary } from '../protocol';
import { Engine } from '../server/src/engine/engine';
import { decodeBatch, encodeBatch } from '../server/src/engine/workspace/wire';
import { processFile } from '../server/src/engine/workspace/process';
import { Parsers } from '../server/src/engine/parse/parsers';
import { LANGUAGES } from '../server/src/engine/languages/registry';
import { PendingRefs } from '../server/src/engine/graph/pending';
import { FIXTURES, edgeList } from './helpers/workspace';

const CLI = path.resolve(__dirname, '../dist/server/src/cli/main.js');
const COPIES = 30; // × 8 files of the two fixtures: well above the bulk threshold (200)

/** The shop and causal fixtures copied into packages p0..pN, plus one module importing them all. */
function makeTree(root: string, upTo = COPIES): void {
  for (let i = 0; i < upTo; i++) {
    fs.cpSync(path.join(FIXTURES, 'python/shop'), path.join(root, `p${i}/shop`), { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'causal/service'), path.join(root, `p${i}/service`), { recursive: true });
    fs.writeFileSync(path.join(root, `p${i}/__init__.py`), '');
  }
  const lines = Array.from({ length: upTo }, (_, i) => `from p${i}.service.core import make_service as m${i}`);
  fs.writeFileSync(path.join(root, 'main.py'), `${lines.join('\n')}\n\n\ndef run():\n${Array.from({ length: upTo }, (_, i) => `    m${i}().charge('a', 1)`).join('\n')}\n`);
}

let fast: string;
let reference: string;

beforeAll(async () => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm test does it first)`);
  fast = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bulk-'));
  reference = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-ref-'));
  makeTree(fast);
  makeTree(reference, 12);
  const ref = await Engine.open({ root: reference, workers: 0, embeddings: { model: 'none' } });
  const first = await ref.indexWorkspace();
  expect(first.parsed).toBeLessThan(200);
  makeTree(reference);
  await ref.indexWorkspace();
  await ref.close();
}, 120_000);

afterAll(() => {
  for (const d of [fast, reference]) fs.rmSync(d, { recursive: true, force: true });
});

describe('a first index on the fast path', () => {
  test('gives the same entities, edges and search results as file-by-file updates', async () => {
    const r = spawnSync(process.execPath, [CLI, 'index', '--json', '--root', fast], { encoding: 'utf8', env: { ...process.env, NSCCN_MODEL: 'none' } });
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as IndexSummary;
    expect(summary.parsed).toBe(COPIES * 16 + 1);

    const a = await Engine.open({ root: fast, embeddings: { model: 'none' } });
    const b = await Engine.open({ root: reference, embeddings: { model: 'none' } });
    try {
      const ids = (e: Engine) => e.store.files().flatMap((f) => e.fileEntities(f.path).map((x) => `${x.id} ${x.line}-${x.endLine}`)).sort();
      expect(ids(a)).toEqual(ids(b));
      const edges = edgeList(a);
      expect(edges).toEqual(edgeList(b));
      expect(edges).toContain('func:main.py:run -CALLS-> method:p29/service/core.py:Service.charge');
      expect(edges.length).toBeGreaterThan(COPIES * 60);
      // Vector progress differs by design: `nsccn index` fills the vectors before it exits.
      const counts = (e: Engine) => ({ ...e.stats(), root: '', dbPath: '', dbBytes: 0, streamProgress: undefined });
      expect(counts(a)).toEqual(counts(b));
      for (const q of ['charge card', 'charge an account', 'Service']) {
        // The 30 copies tie (so fused scores move with tie order): compare what was found, not which copy.
        const top = async (e: Engine) => (await e.search({ query: q, limit: 10 })).results.map((x) => x.id.replace(/p\d+\//, '')).sort();
        expect(await top(a)).toEqual(await top(b));
        expect((await top(a)).length).toBeGreaterThan(0);
      }
      // The indexes a bulk load drops are back (the planner uses them, not a scan).
      const plan = a.store.db.prepare("EXPLAIN QUERY PLAN SELECT rid FROM refs WHERE last = 'charge'").all() as Array<{ detail: string }>;
      expect(plan.map((p) => p.detail).join(' ')).toMatch(/USING (COVERING )?INDEX refs_last/);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe('the batches workers send', () => {
  test('carry every field of every extraction', async () => {
    const parsers = new Parsers();
    await parsers.load(LANGUAGES);
    const root = path.join(FIXTURES, 'causal');
    const files = ['app.py', ...fs.readdirSync(path.join(root, 'service')).map((f) => `service/${f}`)];
    const outcomes = files.map((f) => processFile(root, { path: f, knownHash: null }, parsers, 1 << 20));
    outcomes.push({ kind: 'skipped', path: 'x.bin', reason: 'binary' });
    const wire = structuredClone(encodeBatch(outcomes));
    expect(decodeBatch(wire)).toEqual(outcomes);
  });
});

describe('references waiting for resolution', () => {
  test('come back with everything the resolver reads, file by file', async () => {
    const parsers = new Parsers();
    await parsers.load(LANGUAGES);
    const root = path.join(FIXTURES, 'causal');
    const pending = new PendingRefs();
    const expected: unknown[] = [];
    let rid = 100;
    for (const f of ['app.py', 'service/core.py', 'service/store.py', 'service/models.py']) {
      const o = processFile(root, { path: f, knownHash: null }, parsers, 1 << 20);
      if (o.kind !== 'parsed') throw new Error(`${f} not parsed`);
      for (const r of o.extraction.refs) {
        pending.push(rid, f, r);
        expected.push({
          rid: rid++,
          input: {
            file: f, source: r.from, relation: r.relation, target: r.target,
            receiver: r.receiver?.kind ?? null, rtype: r.receiver?.kind === 'typed' ? r.receiver.type : null,
            configKind: r.configKind ?? null, catches: r.catches?.length ? r.catches : null, access: !!r.access,
          },
        });
      }
    }
    const got = Array.from({ length: pending.length }, (_, i) => ({ rid: pending.rid(i), input: pending.input(i) }));
    expect(got).toEqual(expected);
    expect(new Set(got.map((g) => g.input.relation))).toEqual(new Set(['CALLS', 'MUTATES', 'READS_CONFIG', 'PROPAGATES_ERROR', 'INHERITS']));
    expect(got.some((g) => g.input.receiver === 'typed' && g.input.rtype)).toBe(true);
    expect(got.some((g) => g.input.catches)).toBe(true);
    // Out of order reads find their file too.
    expect(pending.input(0).file).toBe('app.py');
  });
});
