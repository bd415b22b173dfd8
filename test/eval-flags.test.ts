// The evals' flags as `npm run eval -- <name> [flags]` passes them: the eval names pass through,
// values are read and checked, and a flag an eval does not know says which ones it does.
import { expect, test } from 'vitest';
import { parseRetrievalArgs } from '../server/eval/retrieval';
import { parseHeldOutArgs } from '../server/eval/heldout';

test('retrieval reads its flags beside the eval names', () => {
  expect(parseRetrievalArgs(['retrieval', '--sample', '50', '--seed', '3', '--verbose', '--keep'])).toEqual({ sample: 50, seed: 3, verbose: true, keepCopy: true });
  expect(parseRetrievalArgs(['retrieval', '--model', 'none'])).toEqual({ embeddings: { model: 'none' } });
  expect(parseRetrievalArgs(['retrieval'])).toEqual({});
});

test('a bad value or an unknown flag is an error that names the known flags', () => {
  expect(() => parseRetrievalArgs(['--sample', 'many'])).toThrow(/--sample needs a positive integer/);
  expect(() => parseRetrievalArgs(['--only', 'web'])).toThrow(/known: .*--verbose/);
  expect(() => parseHeldOutArgs(['--seed'])).toThrow(/known: .*--per-library V/);
});
