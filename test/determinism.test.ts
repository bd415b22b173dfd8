// The same question, the same answer: `nsccn index` finishes every configured vector stream
// before it exits, a CLI search waits for the streams it reports, and status says per stream how
// complete it is; an answer made while a stream fills says so.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { VectorStore } from '../server/src/engine/store/vectors';
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

  test('a process that embeds what another wrote reports from the record it makes: saving the bits is no reason to count', async () => {
    const dir = copyFixture('causal');
    // Binary vectors: a one-shot process saves their snapshot for the next one before it ends.
    const open = () => Engine.open({ root: dir, workers: 0, embeddings: { model: 'none', quantization: 'binary' }, lazy: true });
    const counts = vi.spyOn(VectorStore.prototype, 'counts');
    try {
      const first = await open();
      await first.indexWorkspace();
      await first.finishEmbeddings();
      await first.close();
      fs.writeFileSync(path.join(dir, 'service/more.py'), 'def more_rows():\n    return 1\n');
      const second = await open(); // `nsccn trace` after an edit: re-indexes, embeds nothing
      await second.indexWorkspace();
      await second.close();
      const third = await open(); // `nsccn search`
      counts.mockClear();
      expect(await third.finishEmbeddings()).toEqual([{ stream: 'static', done: 44, total: 44, complete: true }]);
      expect(counts).not.toHaveBeenCalled();
      await third.close();
    } finally {
      counts.mockRestore();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a process that finds the vectors complete as recorded, and nothing written since, does not look for missing ones', async () => {
    const dir = copyFixture('causal');
    // Lazy, as the CLI opens it (a server also warms its search streams, which counts).
    const open = () => Engine.open({ root: dir, workers: 0, embeddings: { model: 'none' }, lazy: true });
    try {
      const first = await open(); // `nsccn index`
      await first.indexWorkspace();
      await first.finishEmbeddings();
      await first.close();
      const scans = vi.spyOn(VectorStore.prototype, 'pendingEids');
      const counts = vi.spyOn(VectorStore.prototype, 'counts');
      const second = await open(); // `nsccn search`
      expect(await second.finishEmbeddings()).toEqual([{ stream: 'static', done: 42, total: 42, complete: true }]);
      expect((await second.search({ query: 'rows' })).incomplete).toBeUndefined();
      expect([scans.mock.calls.length, counts.mock.calls.length]).toEqual([0, 0]);
      // An entity written (here by this process): the next process looks again, and finds it.
      fs.writeFileSync(path.join(dir, 'service/more.py'), 'def more_rows():\n    return 1\n');
      await second.indexWorkspace();
      await second.close();
      const third = await open();
      expect(await third.finishEmbeddings()).toEqual([{ stream: 'static', done: 44, total: 44, complete: true }]);
      expect(scans).toHaveBeenCalled();
      await third.close();
      scans.mockRestore();
      counts.mockRestore();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a server that finds the vectors complete as recorded warms its bits without counting them', async () => {
    const dir = copyFixture('causal');
    try {
      const first = await Engine.open({ root: dir, workers: 0, embeddings: { model: 'none' }, lazy: true });
      await first.indexWorkspace();
      await first.finishEmbeddings();
      await first.close();
      const counts = vi.spyOn(VectorStore.prototype, 'counts');
      const warms = vi.spyOn(VectorStore.prototype, 'warm');
      const server = await Engine.open({ root: dir, workers: 0, embeddings: { model: 'none' } });
      await server.indexWorkspace();
      // The first look for missing vectors waits for a quiet spell; the warming ends it.
      for (let i = 0; i < 100 && !warms.mock.calls.length; i++) await new Promise((r) => setTimeout(r, 20));
      expect(warms.mock.calls).toEqual([['static', false]]);
      expect(counts).not.toHaveBeenCalled();
      expect((await server.search({ query: 'rows' })).incomplete).toBeUndefined();
      expect(counts).not.toHaveBeenCalled();
      await server.close();
      counts.mockRestore();
      warms.mockRestore();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
