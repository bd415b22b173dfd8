// The differential edit fuzz (edit-fuzz.ts) on TypeScript, TSX and JavaScript buffers: 1,000
// seeded random didChange edits inserting TS/JS fragments (classes, arrows, JSX, templates,
// half comments, CRLF, astral characters) must leave the same entities, edges, references and
// skeleton as the same text read from disk, and as a cold index every 25 batches.
// `npm run soak -- --langs typescript` runs 10,000.
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { runEditFuzz, TS_SNIPPETS } from '../server/eval/edit-fuzz';
import { FIXTURES } from './helpers/workspace';

const CASES = [
  { fixture: 'typescript', file: 'src/services/checkout.ts', edits: 400, seed: 3 },
  { fixture: 'typescript', file: 'src/ui/CartView.tsx', edits: 300, seed: 4 },
  { fixture: 'javascript', file: 'esm/src/main.js', edits: 300, seed: 5 },
];

describe('in-process engine: 1,000 random TypeScript/JavaScript edits', () => {
  for (const c of CASES) {
    test(`${c.file}, seed ${c.seed}: ${c.edits} edits, incremental = disk after every batch, = cold every 25`, async () => {
      const r = await runEditFuzz({ seed: c.seed, edits: c.edits, fixture: path.join(FIXTURES, c.fixture), file: c.file, snippets: TS_SNIPPETS, coldEvery: 25 });
      expect(r.edits).toBe(c.edits);
      expect(r.coldChecks).toBeGreaterThan(0);
      expect(r.wholeReplacements).toBeGreaterThan(0);
    }, 120_000);
  }
});
