// The same question, the same answer: `nsccn index` finishes every configured vector stream
// before it exits, a CLI search waits for the streams it reports, and status says per stream how
// complete it is; an answer made while a stream fills says so.
import * as fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { StatsResponse } from '../protocol';
import { requireBuiltCli, runCli } from './helpers/cli';
import { copyFixture, openWorkspace } from './helpers/workspace';

let root: string;
const nsccn = (...args: string[]) => runCli(root, ...args);

beforeAll(() => {
  requireBuiltCli();
  root = copyFixture('causal');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('deterministic search', () => {
  test('the same search five times right after a fresh index gives identical output', () => {
    expect(nsccn('index').code).toBe(0);
    const stats = JSON.parse(nsccn('stats', '--json').stdout) as StatsResponse;
    expect(stats.streamProgress).toEqual([{ stream: 'static', done: 42, total: 42, complete: true }]);
    const outputs = Array.from({ length: 5 }, () => nsccn('search', 'who writes the rows of the store', '--json').stdout);
    expect(new Set(outputs).size).toBe(1);
    const first = JSON.parse(outputs[0]) as { streams: string[]; incomplete?: string[] };
    expect(first.streams).toContain('static');
    expect(first.incomplete).toBeUndefined();
  });

  test('an engine answer made while the vectors fill says which streams are incomplete', async () => {
    const ws = await openWorkspace('causal');
    try {
      ws.write('service/more.py', 'def more_rows():\n    return 1\n');
      await ws.engine.indexWorkspace();
      const early = await ws.engine.search({ query: 'rows' });
      expect(early.incomplete).toEqual(['static']);
      expect(ws.engine.status().streamProgress!.map((p) => p.complete)).toEqual([false]);
      const done = await ws.engine.finishEmbeddings();
      expect(done).toEqual([{ stream: 'static', done: 44, total: 44, complete: true }]);
      expect((await ws.engine.search({ query: 'rows' })).incomplete).toBeUndefined();
    } finally {
      await ws.dispose();
    }
  });
});
