// `nsccn index` lets go of the symbol model before it embeds (Engine.releaseSymbolModel): a
// change after that reads the model back from the index and resolves as if it had been kept.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

const opened: TestWorkspace[] = [];
afterEach(async () => {
  for (const ws of opened.splice(0)) await ws.dispose();
});

describe('releasing the symbol model', () => {
  test('a change after it resolves as on a cold index of the same files', async () => {
    const ws = await openWorkspace('python');
    opened.push(ws);
    const before = edgeList(ws.engine);
    expect(ws.engine.releaseSymbolModel()).toBe(true);
    expect(edgeList(ws.engine)).toEqual(before);
    const file = 'shop/services/payments.py';
    ws.write(file, fs.readFileSync(path.join(ws.root, file), 'utf8').replace('    validate_amount(amount)\n', '    validate_amount(amount)\n    _audit(user)\n') + '\n\ndef _audit(user):\n    return user.save()\n');
    await ws.engine.syncFiles([{ path: file, type: 'changed' }]);
    const after = edgeList(ws.engine);
    expect(after).toContain('func:shop/services/payments.py:charge -CALLS-> func:shop/services/payments.py:_audit');

    const cold = await Engine.open({ root: ws.root, dbPath: path.join(ws.root, 'cold.db'), workers: 0, embeddings: { model: 'none' } });
    try {
      await cold.indexWorkspace();
      expect(after).toEqual(edgeList(cold));
    } finally {
      await cold.close();
    }
  });
});
