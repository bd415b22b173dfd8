// A file's call sites as the index stores them: a row per callee name, each caller once in it,
// sites by the caller's place.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lastSegment } from '../server/src/engine/dotted';
import { Engine } from '../server/src/engine/engine';
import { decodeCallArgs, encodeCallArgs } from '../server/src/engine/store/call-args-row';
import type { CallArgsTuple } from '../server/src/engine/store/read-rows';

const SITES: CallArgsTuple[] = [
  ['method:json/decoder.py:JSONDecodeError.__init__', 'count', 'typed', 'param:JSONDecodeError.__init__:1:doc', ['', '', 'param:JSONDecodeError.__init__:2:pos']],
  ['method:json/decoder.py:JSONDecodeError.__init__', 'ValueError.__init__', null, null, ['JSONDecodeError', '']],
  ['module:json/decoder.py:decoder', 're.compile', null, null, ['', '']],
  ['method:json/decoder.py:JSONDecodeError.__init__', 'rfind', 'typed', 'param:JSONDecodeError.__init__:1:doc', []],
];

describe('call_args rows', () => {
  it('keep every site in order with each caller written once', () => {
    const json = encodeCallArgs(SITES, 'json/decoder.py');
    expect(decodeCallArgs(json, 'json/decoder.py')).toEqual(SITES);
    expect(json.split('JSONDecodeError.__init__",').length - 1).toBe(1); // the caller's id, once
    expect(json).not.toContain('json/decoder.py'); // and without its path
    expect(json.length).toBeLessThan(JSON.stringify(SITES).length);
    expect(decodeCallArgs(encodeCallArgs([], 'a.py'), 'a.py')).toEqual([]);
    // A caller from elsewhere (none is today) keeps its whole id.
    const other: CallArgsTuple[] = [['func:other.py:g', 'f', null, null, []]];
    expect(decodeCallArgs(encodeCallArgs(other, 'a.py'), 'a.py')).toEqual(other);
  });

  it('read rows of an older schema (a plain list of tuples, kept by a read-only index) as they are, and refuse a site whose caller is missing', () => {
    expect(decodeCallArgs(JSON.stringify(SITES), 'json/decoder.py')).toEqual(SITES);
    const whole = JSON.stringify({ callers: [SITES[0][0]], sites: [[0, 'count', null, null, []]] });
    expect(decodeCallArgs(whole, 'json/decoder.py')[0][0]).toBe(SITES[0][0]);
    expect(() => decodeCallArgs(JSON.stringify({ callers: ['a'], sites: [[1, 'f', null, null, []]] }), 'a.py')).toThrow(/names caller 1 of 1/);
  });
});

describe('call_args in the index', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it("hold a file's sites one row per callee name, each read alone; an index of schema 10 (one row per file), read as it is, answers the same", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-call-args-'));
    dirs.push(root);
    fs.writeFileSync(
      path.join(root, 'calls.py'),
      ['def f(a, b):', '    pass', '', 'class C:', '    def m(self, x):', '        pass', '', 'def g(c: C):', '    f(1, 2)', '    c.m(3)', "    f('a', b=2)", '', 'def h():', '    obj = C()', '    obj.m("s")', '    f(None, 1)', ''].join('\n'),
    );
    const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    await e.indexWorkspace();
    const file = 'calls.py';
    const all = e.store.callArgsOf(file);
    const names = [...new Set(all.map((t) => lastSegment(t[1])))].sort();
    expect(names).toEqual(expect.arrayContaining(['f', 'm']));
    const rows = e.store.db.prepare('SELECT c.name FROM call_args c JOIN files f ON f.fid = c.fid WHERE f.path = ? ORDER BY c.name').pluck().all(file);
    expect(rows).toEqual(names);
    const byName = (name: string) => all.filter((t) => lastSegment(t[1]) === name);
    for (const n of names) expect(e.store.callArgsNamed(file, n)).toEqual(byName(n));
    // In the order written, from both callers.
    expect(e.store.callArgsNamed(file, 'f').map((t) => t[0])).toEqual(['func:calls.py:g', 'func:calls.py:g', 'func:calls.py:h']);
    expect(e.store.callArgsNamed(file, 'm')).toHaveLength(2);

    // Edited twice (the rows read from the index, then from the writer's memory of them): the
    // rows are those a cold index of the new text writes.
    const rowsOf = (engine: Engine) => engine.store.db.prepare('SELECT c.name, c.calls FROM call_args c JOIN files f ON f.fid = c.fid WHERE f.path = ? ORDER BY c.name').raw().all(file);
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    for (const next of [text.replace('    c.m(3)\n', '    c.n(3, 4)\n'), text.replace("    f('a', b=2)\n", '').replace('    obj.m("s")\n', '    obj.m(1.5)\n')]) {
      fs.writeFileSync(path.join(root, file), next);
      await e.syncFiles([{ path: file, type: 'changed' }]);
      const cold = await Engine.open({ root, dbPath: path.join(root, 'cold.db'), workers: 0, embeddings: { model: 'none' } });
      try {
        await cold.indexWorkspace();
        expect(rowsOf(e)).toEqual(rowsOf(cold));
      } finally {
        await cold.close();
        fs.rmSync(path.join(root, 'cold.db'), { force: true });
      }
    }
    expect((rowsOf(e) as Array<[string, string]>).map((r) => r[0])).not.toContain('n');
    fs.writeFileSync(path.join(root, file), text);
    await e.syncFiles([{ path: file, type: 'changed' }]);
    expect(e.store.callArgsNamed(file, 'nothing')).toEqual([]);

    // The same rows as schema 10 wrote them: one per file.
    const byFile = new Map<number, CallArgsTuple[]>();
    for (const [fid, calls] of e.store.db.prepare('SELECT fid, calls FROM call_args ORDER BY fid, name').raw().all() as Array<[number, string]>) {
      byFile.set(fid, [...(byFile.get(fid) ?? []), ...decodeCallArgs(calls, file)]);
    }
    e.store.db.exec('DROP TABLE call_args; CREATE TABLE call_args (fid INTEGER PRIMARY KEY, calls TEXT NOT NULL)');
    // Whole ids, as schema 10 wrote them.
    for (const [fid, sites] of byFile) e.store.db.prepare('INSERT INTO call_args(fid, calls) VALUES (?, ?)').run(fid, encodeCallArgs(sites, ''));
    await e.close();
    const old = await Engine.open({ root, workers: 0, embeddings: { model: 'none' }, lazy: true });
    try {
      expect(old.store.callArgsOf(file).map((t) => t[1]).sort()).toEqual(all.map((t) => t[1]).sort());
      for (const n of names) expect(old.store.callArgsNamed(file, n)).toEqual(byName(n));
    } finally {
      await old.close();
    }
  });
});
