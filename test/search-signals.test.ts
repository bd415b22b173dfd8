// What a query says besides its words: identifiers, dotted names, traceback frames, paths,
// exception names and messages are pulled out of search text, and test files are recognised.
import { describe, expect, it } from 'vitest';
import { analyzeQuery, literalRuns, proseOf } from '../server/src/engine/search/query';
import { isTestPath } from '../server/src/engine/testcode';

const REPORT = `json.loads crashes on an empty body

Traceback (most recent call last):
  File "/srv/app/client.py", line 88, in fetch
    return json.loads(body)
  File "/usr/lib/python3.11/json/decoder.py", line 355, in raw_decode
    raise JSONDecodeError("Expecting value", s, err.value) from None
json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)

See src/http/client.py and the "empty response body" case in fetchJson().`;

describe('query signals', () => {
  it('an identifier or dotted name is an identifier query and nothing else', () => {
    for (const q of ['validate_token', 'Metafunc.parametrize', ' getUserName ']) {
      expect(analyzeQuery(q)).toMatchObject({ identifier: true, frames: [], dotted: [], identifiers: [] });
    }
    expect(analyzeQuery('check if a dict is empty').identifier).toBe(false);
  });

  it('a plain sentence names no code', () => {
    expect(analyzeQuery('python check if a dict is empty')).toMatchObject({ frames: [], paths: [], dotted: [], identifiers: [], exceptions: [], messages: [], long: false });
  });

  it('a bug report yields frames innermost first, paths, dotted names, identifiers, exceptions and messages', () => {
    const s = analyzeQuery(REPORT);
    expect(s.long).toBe(true);
    expect(s.frames).toEqual([
      { file: '/usr/lib/python3.11/json/decoder.py', line: 355, func: 'raw_decode' },
      { file: '/srv/app/client.py', line: 88, func: 'fetch' },
    ]);
    expect(s.paths).toEqual(['src/http/client.py']);
    expect(s.dotted).toEqual(expect.arrayContaining(['json.loads', 'err.value', 'json.decoder.JSONDecodeError']));
    expect(s.dotted).not.toContain('client.py');
    expect(s.identifiers).toEqual(expect.arrayContaining(['raw_decode', 'fetchJson', 'JSONDecodeError']));
    expect(s.identifiers).not.toContain('crashes');
    expect(s.exceptions).toEqual(['JSONDecodeError']);
    expect(s.messages).toEqual(expect.arrayContaining(['Expecting value: line 1 column 1 (char 0)', 'empty response body']));
  });

  it('a V8 stack (Node, Chrome) yields frames innermost first, named or not; node internals are no frames', () => {
    const s = analyzeQuery(`TypeError: Cannot read properties of undefined (reading 'id')
    at userName (/srv/app/src/users.ts:14:22)
    at async Router.handle [as handler] (file:///srv/app/src/router.mjs:88:5)
    at new Session (C:\\app\\src\\session.js:3:9)
    at /srv/app/src/main.js:40:3
    at Module._compile (node:internal/modules/cjs/loader:1105:14)`);
    expect(s.frames).toEqual([
      { file: '/srv/app/src/users.ts', line: 14, func: 'userName' },
      { file: '/srv/app/src/router.mjs', line: 88, func: 'Router.handle' },
      { file: 'C:\\app\\src\\session.js', line: 3, func: 'Session' },
      { file: '/srv/app/src/main.js', line: 40, func: '' },
    ]);
    expect(proseOf('Error: boom\n    at userName (/srv/app/src/users.ts:14:22)\nthen it stops')).toBe('Error: boom\nthen it stops');
  });

  it("a module's own error class named through its module is an exception name", () => {
    expect(analyzeQuery('wave.open fails with wave.Error: unknown format: 65534').exceptions).toEqual(['Error']);
    expect(analyzeQuery('the wave.Errors table is empty').exceptions).toEqual([]);
  });

  it("JavaScript's bare `Error: …` as a console prints it, and exception classes not named …Error, are raised messages", () => {
    expect(analyzeQuery('Uncaught Error: This schema contains multiple valid literal values').messages).toEqual(['This schema contains multiple valid literal values']);
    expect(analyzeQuery('Uncaught (in promise) TypeError: Failed to fetch the user profile').messages).toEqual(['Failed to fetch the user profile']);
    expect(analyzeQuery('Error: ENOENT: no such file or directory').messages).toEqual(['ENOENT: no such file or directory']);
    expect(analyzeQuery('the Error: prefix in a sentence').messages).toEqual([]);
    expect(analyzeQuery('http.client.RemoteDisconnected: Remote end closed connection without response').messages).toEqual(['Remote end closed connection without response']);
    expect(analyzeQuery('Note: the proxy sends a blank line first').messages).toEqual([]);
  });

  it('a message splits into the literal runs a raise would spell out', () => {
    expect(literalRuns("192.168.1.1/24 has host bits set")).toEqual(['has host bits set']);
    expect(literalRuns("time data '2024-13-01' does not match format '%Y-%m-%d'")).toEqual(['does not match format']);
    expect(literalRuns('Expecting value: line 1 column 1 (char 0)')).toEqual([]);
    expect(literalRuns('Tunnel connection failed: 407 Proxy Authentication Required')).toEqual(['Tunnel connection failed', 'Proxy Authentication Required']);
    expect(literalRuns('cannot reach host at 10:30 from C:\\Users\\me today')).toEqual(['cannot reach host at']);
  });

  it('prose keeps the report and the code lines, not the traceback boilerplate', () => {
    const p = proseOf(REPORT);
    expect(p).toContain('return json.loads(body)');
    expect(p).toContain('json.loads crashes on an empty body');
    expect(p).not.toMatch(/Traceback|File "|line 88/);
  });
});

describe('test files', () => {
  it.each([
    ['tests/test_invoice.py', true],
    ['pkg/test/helpers.py', true],
    ['src/__tests__/a.ts', true],
    ['conftest.py', true],
    ['pkg/io_test.py', true],
    ['web/app.spec.ts', true],
    ['web/app.test.mjs', true],
    ['pkg/testing.py', false],
    ['pkg/contest.py', false],
    ['src/latest/app.py', false],
    ['billing/invoice.py', false],
  ])('%s → %s', (p, expected) => expect(isTestPath(p)).toBe(expected));
});
