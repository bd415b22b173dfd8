// A first index of a large tree collects when its heap has grown well past what is live (gc.ts):
// V8 alone let site-packages' heap reach ~1.1 GB over ~570 MB live.
import { expect, test } from 'vitest';
import { GrowthCollector } from '../server/src/engine/gc';

test('collects once the heap grew past the threshold, and not again until it grows again', () => {
  let runs = 0;
  const collector = new GrowthCollector(8 * 1024 * 1024, () => runs++);
  collector.check();
  expect(runs).toBe(0); // nothing grew yet
  const held: number[][] = [];
  for (let i = 0; i < 64; i++) held.push(new Array(64 * 1024).fill(i)); // ~32 MB kept
  collector.check();
  expect(runs).toBe(1);
  collector.check();
  expect(runs).toBe(1); // measured from what that collection left
  expect(held.length).toBe(64);
});

test('without a collector from V8, checking does nothing', () => {
  const collector = new GrowthCollector(0, null);
  collector.check();
  expect(collector.collections).toBe(0);
});
