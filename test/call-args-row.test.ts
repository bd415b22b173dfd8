// A file's call sites as the index stores them: each caller once, sites by the caller's place.
import { describe, expect, it } from 'vitest';
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
    const json = encodeCallArgs(SITES);
    expect(decodeCallArgs(json)).toEqual(SITES);
    expect(json.split('JSONDecodeError.__init__",').length - 1).toBe(1); // the caller's id, once
    expect(json.length).toBeLessThan(JSON.stringify(SITES).length);
    expect(decodeCallArgs(encodeCallArgs([]))).toEqual([]);
  });

  it('read rows of an older schema (a plain list of tuples, kept by a read-only index) as they are, and refuse a site whose caller is missing', () => {
    expect(decodeCallArgs(JSON.stringify(SITES))).toEqual(SITES);
    expect(() => decodeCallArgs(JSON.stringify({ callers: ['a'], sites: [[1, 'f', null, null, []]] }))).toThrow(/names caller 1 of 1/);
  });
});
