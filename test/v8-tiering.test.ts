// When an index run makes V8 optimise later (engine/v8-tiering.ts): short runs on the Node it
// was measured with, never over the user's own setting.
import { describe, expect, it } from 'vitest';
import { TIER_UP_LATER_MAX_FILES, tieringFlag } from '../server/src/engine/v8-tiering';

const node20 = { v8Version: '11.3.244.8-node.33', nodeOptions: [] as string[] };

describe('optimising later during an index run', () => {
  it('applies to runs of up to 1,000 files on Node 20', () => {
    expect(tieringFlag({ ...node20, files: 40 })).toBe('--interrupt-budget=270336');
    expect(tieringFlag({ ...node20, files: TIER_UP_LATER_MAX_FILES })).toBe('--interrupt-budget=270336');
  });

  it('leaves longer runs as V8 sets them', () => {
    expect(tieringFlag({ ...node20, files: TIER_UP_LATER_MAX_FILES + 1 })).toBeNull();
  });

  it('leaves a budget the user gave in node options', () => {
    expect(tieringFlag({ ...node20, files: 40, nodeOptions: ['--interrupt-budget=100000'] })).toBeNull();
    expect(tieringFlag({ ...node20, files: 40, nodeOptions: ['--max-old-space-size=4096 --interrupt-budget=1'] })).toBeNull();
  });

  it('leaves V8 versions it was not measured with', () => {
    expect(tieringFlag({ ...node20, files: 40, v8Version: '12.4.254.21-node.24' })).toBeNull();
  });

  it('is on for this test process only if it runs on Node 20', () => {
    const flag = tieringFlag({ files: 40, v8Version: process.versions.v8, nodeOptions: process.execArgv });
    expect(flag !== null).toBe(process.versions.node.startsWith('20.'));
  });
});
