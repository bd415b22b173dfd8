// The frames search_and_rank reads out of a traceback pasted as the query: innermost first,
// module-level frames dropped, Python and JavaScript formats.
import { describe, expect, it } from 'vitest';
import { tracebackFrames } from '../clients/mcp/query';

describe('tracebackFrames', () => {
  it('reads a Python traceback innermost first and drops <module> frames', () => {
    const tb = [
      'Traceback (most recent call last):',
      '  File "/srv/app/main.py", line 40, in <module>',
      '    run()',
      '  File "/srv/app/shop/services/checkout.py", line 12, in checkout',
      '  File "C:\\app\\shop\\payments.py", line 6, in Gateway.send',
      'ValueError: amount must be positive',
    ].join('\n');
    expect(tracebackFrames(tb)).toEqual([
      { file: 'C:\\app\\shop\\payments.py', line: 6, name: 'Gateway.send' },
      { file: '/srv/app/shop/services/checkout.py', line: 12, name: 'checkout' },
    ]);
  });

  it('reads a JavaScript stack innermost first', () => {
    const stack = [
      'TypeError: Cannot read properties of undefined',
      '    at Router.handle (/srv/app/src/router.ts:88:13)',
      '    at async serve (/srv/app/src/server.ts:12:5)',
      '    at <anonymous> (/srv/app/src/index.ts:3:1)',
    ].join('\n');
    expect(tracebackFrames(stack)).toEqual([
      { file: '/srv/app/src/router.ts', line: 88, name: 'Router.handle' },
      { file: '/srv/app/src/server.ts', line: 12, name: 'serve' },
    ]);
  });

  it('finds no frames in a plain bug report', () => {
    expect(tracebackFrames('checkout crashes when the basket is empty (see line 12 of checkout.py)')).toEqual([]);
  });
});
