// The V8 flags an index run sets (engine/v8-tiering.ts): a smaller inlining budget always, later
// optimisation for runs up to 1,000 files, on the Node they were measured with, never over the
// user's own setting.
import { describe, expect, it } from 'vitest';
import { TIER_UP_LATER_MAX_FILES, tieringFlags } from '../server/src/engine/v8-tiering';

const node20 = { v8Version: '11.3.244.8-node.33', nodeOptions: [] as string[] };
const INLINING = '--max-inlined-bytecode-size-cumulative=300';
const LATER = '--interrupt-budget=270336';

describe('V8 flags of an index run', () => {
  it('optimises later and inlines less in runs of up to 1,000 files on Node 20', () => {
    expect(tieringFlags({ ...node20, files: 40 })).toEqual([INLINING, LATER]);
    expect(tieringFlags({ ...node20, files: TIER_UP_LATER_MAX_FILES })).toEqual([INLINING, LATER]);
  });

  it('leaves the optimisation budget of longer runs as V8 sets it, and still inlines less', () => {
    expect(tieringFlags({ ...node20, files: TIER_UP_LATER_MAX_FILES + 1 })).toEqual([INLINING]);
  });

  it('leaves a setting the user gave in node options', () => {
    expect(tieringFlags({ ...node20, files: 40, nodeOptions: ['--interrupt-budget=100000'] })).toEqual([INLINING]);
    expect(tieringFlags({ ...node20, files: 40, nodeOptions: ['--max-old-space-size=4096 --interrupt-budget=1'] })).toEqual([INLINING]);
    expect(tieringFlags({ ...node20, files: 40, nodeOptions: ['--max-inlined-bytecode-size=100'] })).toEqual([LATER]);
    expect(tieringFlags({ ...node20, files: 40, nodeOptions: ['--no-turbo-inlining'] })).toEqual([LATER]);
  });

  it('leaves V8 versions it was not measured with', () => {
    expect(tieringFlags({ ...node20, files: 40, v8Version: '12.4.254.21-node.24' })).toEqual([]);
  });

  it('is on for this test process only if it runs on Node 20', () => {
    const flags = tieringFlags({ files: 40, v8Version: process.versions.v8, nodeOptions: process.execArgv });
    expect(flags.length > 0).toBe(process.versions.node.startsWith('20.'));
  });
});
