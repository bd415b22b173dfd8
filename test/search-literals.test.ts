// A bug report quotes the message the code raised: `OSError: Tunnel connection failed: 407 Proxy
// Authentication Required`. The words of that message sit in a string literal of the raiser, not
// in its name or docstring, so each entity keeps its message-like literals (value slots blanked,
// docstrings left out) and lexical search reads them (languages/literals.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageText } from '../server/src/engine/languages/literals';
import { literalsOf } from '../server/src/engine/languages/typescript/syntax';
import { analyzeQuery } from '../server/src/engine/search/query';
import { SignalStream } from '../server/src/engine/search/signals';
import { FtsIndex } from '../server/src/engine/store/fts';
import { isTestPath } from '../server/src/engine/testcode';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('messages');
  await ws.engine.embeddings.idle(); // every stream complete: the same answer each run
});
afterAll(() => ws.dispose());

const literals = () =>
  Object.fromEntries((ws.engine.store.db.prepare("SELECT qname, literals FROM entities WHERE literals <> ''").all() as Array<{ qname: string; literals: string }>).map((r) => [r.qname, r.literals]));
const top = async (query: string, n = 1) => (await ws.engine.search({ query, limit: n })).results.map((r) => r.id);

describe('message literals', () => {
  it('keep the words a message spells out, values blanked, and nothing shorter than three words', () => {
    expect(messageText('invalid port number %r for base %d')).toBe('invalid port number for base');
    expect(messageText('Tunnel connection failed: {code} {reason.strip()}')).toBe('Tunnel connection failed:');
    expect(messageText('Server answered with status ${res.status} for ${url}')).toBe('Server answered with status for');
    expect(messageText('%(name)s: line %d\\n')).toBeNull();
    for (const notAMessage of ['utf-8', 'Content-Type', 'CONNECT %s:%d HTTP/1.0\\r\\n\\r\\n', 'no port']) expect(messageText(notAMessage)).toBeNull();
    expect(messageText('word '.repeat(100))!.length).toBe(200);
  });

  it('belong to the entity whose body holds them; docstrings and short strings are not messages', () => {
    expect(literals()).toEqual({
      ports: 'no port number was given for the service',
      parse_port: 'invalid port number for base',
      open_tunnel: 'Tunnel connection failed:',
      _handshake: 'Remote end closed connection without response',
      fetchJson: 'Server answered with status for',
      fetchText: 'Server answered with status for',
      retrying: 'Gave up after attempts to reach the server',
      test_bad_port: 'invalid port number',
    });
  });

  it("in TypeScript, a comment's apostrophe or `//` opens no string, and a string's `//` is text", () => {
    expect(literalsOf(`// don't stop here\nconst u = "see http://example.org for the full list"; /* it's 'fine' */`)).toBe('see http://example.org for the full list');
  });

  it('find the raiser of a message a report quotes, above code whose prose uses the same words', async () => {
    expect(await top('OSError: Tunnel connection failed: 407 Proxy Authentication Required')).toEqual(['func:netio/proxy.py:open_tunnel']);
    expect(await top("ValueError: invalid port number '8o80' for base 10")).toEqual(['func:netio/ports.py:parse_port']);
    expect(await top('http.client.RemoteDisconnected: Remote end closed connection without response')).toEqual(['func:netio/proxy.py:_handshake']);
    expect(await top('Uncaught Error: Gave up after 4 attempts to reach the server')).toEqual(['global:web/client.ts:retrying']);
  });

  it('a message only one entity spells out leads the answer (tests quoting it do not count); one that two spell out leads with neither', async () => {
    // The docstring of `close_tunnel` says "tunnel connection that failed": words, not the message.
    expect(await top('OSError: Tunnel connection failed: 502 Bad Gateway when talking to the proxy from the tunnel helper, close the tunnel connection', 1)).toEqual(['func:netio/proxy.py:open_tunnel']);
    // tests/test_ports.py quotes "invalid port number" too (pytest.raises(match=…)): a test does not count.
    const report = analyzeQuery("ValueError: invalid port number '8o80' for base 16");
    const fts = new FtsIndex(ws.engine.store.db);
    const leaders = (isTest: (p: string) => boolean) => new SignalStream(ws.engine.store, fts, isTest).leaders(report).map((eid) => ws.engine.store.entityByEid(eid)?.id);
    expect(leaders(isTestPath)).toEqual(['func:netio/ports.py:parse_port']);
    expect(leaders(() => false)).toEqual([]);
    // fetchJson and fetchText both spell it: the ranking orders them with the rest (`answered`'s
    // docstring holds "server answered … status").
    const three = await top('Error: Server answered with status 502 for https://api.example.org/v1/items', 3);
    expect(three).toEqual(expect.arrayContaining(['func:web/client.ts:fetchJson', 'func:web/client.ts:fetchText']));
  });

  it("a V8 stack's innermost workspace frame leads, named or not", async () => {
    const stack = (frame: string) => `Error: the request failed\n    at ${frame}\n    at async main (/srv/app/main.ts:3:3)\n    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;
    expect(await top(stack('fetchText (/srv/app/web/client.ts:11:26)'))).toEqual(['func:web/client.ts:fetchText']);
    expect(await top(stack('/srv/app/web/client.ts:4:25'))).toEqual(['func:web/client.ts:fetchJson']);
  });

  it('follow an edit: a message changed in the buffer is found by its new words, not its old ones', async () => {
    const text = ws.engine.fileText('netio/ports.py').replace('invalid port number %r for base %d', 'port %r cannot be read in base %d');
    ws.engine.openDocument('netio/ports.py', text, 1);
    expect(await top("ValueError: port '8o80' cannot be read in base 10")).toEqual(['func:netio/ports.py:parse_port']);
    expect(literals().parse_port).toBe('port cannot be read in base');
  });
});
