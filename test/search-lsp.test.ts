// nsccn/search over the real server (stdio): the file ranking with URIs, the test switch, and
// bad values of the new parameters as InvalidParams naming the field.
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCodes, Methods, type SearchResponse } from '../protocol';
import { copyFixture } from './helpers/workspace';
import { LspClient, fileUri } from './helpers/lsp-client';
import * as fs from 'node:fs';

let client: LspClient;
let root: string;

beforeAll(async () => {
  root = copyFixture('search');
  client = await LspClient.start({ folders: [root] });
  await client.waitReady();
});

afterAll(async () => {
  if (client.running) await client.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('nsccn/search: files and tests', () => {
  it('ranks files when asked, each with its URI', async () => {
    const res = await client.request<SearchResponse>(Methods.search, { query: 'invoice amount', files: true, limit: 2 });
    // Only the first is fixed: vectors may still be filling in, which can reorder the tail.
    expect(res.files?.length).toBe(2);
    expect(res.files?.[0].file).toBe('billing/invoice.py');
    expect(res.files![0].score).toBeGreaterThan(res.files![1].score);
    expect(res.files?.[0].uri).toBe(fileUri(path.join(root, 'billing/invoice.py')));
    expect((await client.request<SearchResponse>(Methods.search, { query: 'invoice amount' })).files).toBeUndefined();
  });

  it('puts tests after the code they test unless includeTests', async () => {
    // Even a query that asks for the test finds the code first by default.
    const plain = await client.request<SearchResponse>(Methods.search, { query: 'test total due', limit: 3 });
    expect(plain.results[0].id).toBe('func:billing/invoice.py:total_due');
    const tests = await client.request<SearchResponse>(Methods.search, { query: 'test total due', limit: 3, includeTests: true });
    expect(tests.results[0].id).toBe('func:tests/test_invoice.py:test_total_due');
  });

  it('rejects non-boolean files and includeTests naming the field', async () => {
    for (const field of ['files', 'includeTests']) {
      const err = await client.request(Methods.search, { query: 'x', [field]: 'yes' }).then(
        () => null,
        (e: { code: number; message: string }) => e,
      );
      expect(err?.code).toBe(ErrorCodes.InvalidParams);
      expect(err?.message).toContain(field);
    }
  });
});
