// Orient, Trace, Examine and Locate on the shop fixture: skeleton text, traces, windows, search,
// and the errors a user gets for unknown ids and paths outside the workspace.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ErrorCodes } from '../protocol';
import { SKELETON_FORMAT } from '../server/src/engine/skeleton/service';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('python');
});
afterAll(() => ws.dispose());

describe('skeleton', () => {
  test('keeps signatures, docstrings, decorators and class attributes; bodies become ...', () => {
    const sk = ws.engine.skeleton('shop/models.py');
    expect(sk.text).toBe(
      [
        '"""Domain models of the shop."""',
        '# imports: .base.{Model, register}',
        '',
        '@register',
        'class User(Model):',
        '    """A customer account."""',
        '    table = "users"',
        '    def __init__(self, email: str, name: str): ...',
        '    def rename(self, name: str) -> None:',
        '        """Change the display name and persist it."""',
        '        ...',
        '    class Meta:',
        '        ordering = ["email"]',
        '',
        'class Order(Model):',
        '    """A basket of items bought by one user."""',
        '    table = "orders"',
        '    def __init__(self, user: User): ...',
        '    def add_item(self, sku: str, qty: int = 1):',
        '        """Put `qty` of `sku` in the basket."""',
        '        ...',
        '    def total(self) -> float: ...',
        '',
        'def price_of(sku: str) -> float:',
        '    """Look up the unit price of a product."""',
        '    ...',
        '',
      ].join('\n'),
    );
    expect(sk.skeletonTokens).toBeLessThan(sk.originalTokens);
    const rename = sk.entities.find((e) => e.id === 'method:shop/models.py:User.rename')!;
    expect(sk.text.split('\n')[rename.skeletonLine - 1]).toContain('def rename');
    expect(rename.sourceLine).toBe(16);
  });

  test('the imports line says a re-export `X as X` as `X`, keeps a real alias, and leaves out `__future__`', () => {
    ws.write('shop/api.py', 'from __future__ import annotations\nfrom .models import User as User, Order as Orders\nimport json as json\n');
    expect(ws.engine.skeleton('shop/api.py').text).toBe('# imports: .models.{User, Order as Orders}, json\n');
    fs.rmSync(path.join(ws.root, 'shop/api.py'));
  });

  test('a skeleton cached by an older NSCCN (another format) is made again, not served', () => {
    const fresh = ws.engine.skeleton('shop/models.py');
    const stale = { ...fresh, text: 'an old rendering\n' };
    const hash = ws.engine.store.skeleton('shop/models.py')!.hash.replace(/#.*/, '');
    ws.engine.store.putSkeleton('shop/models.py', `${hash}#${SKELETON_FORMAT - 1}`, JSON.stringify(stale));
    expect(ws.engine.skeleton('shop/models.py').text).toBe(fresh.text);
    ws.engine.store.putSkeleton('shop/models.py', `${hash}#${SKELETON_FORMAT}`, JSON.stringify(stale));
    expect(ws.engine.skeleton('shop/models.py').text).toBe('an old rendering\n'); // the same format is served from the cache
    ws.engine.store.putSkeleton('shop/models.py', `${hash}#${SKELETON_FORMAT}`, JSON.stringify(fresh));
  });

  test('is cached by content: an edit on disk shows at once', async () => {
    const first = ws.engine.skeleton('shop/services/payments.py');
    expect(ws.engine.skeleton('shop/services/payments.py')).toEqual(first);
    ws.write('shop/services/payments.py', fs.readFileSync(path.join(ws.root, 'shop/services/payments.py'), 'utf8') + '\n\ndef refund(user, amount):\n    """Give money back."""\n    return charge(user, -amount)\n');
    expect(ws.engine.skeleton('shop/services/payments.py').text).toContain('def refund(user, amount):\n    """Give money back."""');
    await ws.engine.indexWorkspace();
  });
});

describe('trace', () => {
  test('down: callees to the given depth, with unresolved names kept', () => {
    const t = ws.engine.trace({ id: 'method:shop/models.py:User.rename', direction: 'down', depth: 2 });
    expect(t.root).toBe('method:shop/models.py:User.rename');
    expect(t.adjacency['method:shop/models.py:User.rename'].map((e) => e.target)).toEqual(['method:shop/base.py:Model.save']);
    expect(t.adjacency['method:shop/base.py:Model.save'].map((e) => `${e.target}:${e.resolved}`).sort()).toEqual([
      'func:shop/base.py:_write:true',
      'method:shop/base.py:Model.touch:true',
      'vars:false',
    ]);
    expect(t.adjacency['method:shop/base.py:Model.touch']).toBeUndefined(); // depth 2 stops before it
    expect(t.entities['method:shop/base.py:Model.save']).toEqual({ kind: 'method', signature: 'def save(self)', file: 'shop/base.py', line: 25 });
  });

  test('up: callers, cycle-safe', () => {
    ws.write('shop/cycle.py', 'def ping(n):\n    return pong(n - 1)\n\n\ndef pong(n):\n    return ping(n)\n');
    return ws.engine.indexWorkspace().then(() => {
      const t = ws.engine.trace({ id: 'func:shop/cycle.py:ping', direction: 'up', depth: 10 });
      expect(t.adjacency).toEqual({
        'func:shop/cycle.py:ping': [{ target: 'func:shop/cycle.py:pong', relation: 'CALLS', resolved: true, incoming: true, line: 6 }],
        'func:shop/cycle.py:pong': [{ target: 'func:shop/cycle.py:ping', relation: 'CALLS', resolved: true, incoming: true, line: 2 }],
      });
    });
  });

  test('bad depth and direction are refused', () => {
    expect(() => ws.engine.trace({ id: 'func:shop/cycle.py:ping', direction: 'up', depth: 11 })).toThrow(/depth must be an integer from 1 to 10/);
    expect(() => ws.engine.trace({ id: 'func:shop/cycle.py:ping', direction: 'sideways' as never })).toThrow(/direction must be one of/);
  });
});

describe('window', () => {
  test("the entity with numbered lines and context, which stops at the file's last line", () => {
    const w = ws.engine.window('func:shop/models.py:price_of', 1);
    // The file's 46 lines end with a newline: there is no empty line 47 after it to show.
    expect(w).toMatchObject({ id: 'func:shop/models.py:price_of', file: 'shop/models.py', start: 43, end: 46, entityStart: 44, entityEnd: 46 });
    expect(w.code).toBe(['43 | ', '44 | def price_of(sku: str) -> float:', '45 |     """Look up the unit price of a product."""', '46 |     return 9.99'].join('\n'));
  });
});

describe('search', () => {
  test('finds by words of names and docstrings, snake and camel case alike', async () => {
    const r = await ws.engine.search({ query: 'charge card', limit: 3 });
    expect(r.results[0]).toMatchObject({ id: 'func:shop/services/payments.py:charge', kind: 'function', name: 'charge', file: 'shop/services/payments.py', line: 4, endLine: 7, signature: 'def charge(user, amount)' });
    expect((await ws.engine.search({ query: 'priceOf' })).results[0].id).toBe('func:shop/models.py:price_of');
    expect((await ws.engine.search({ query: 'unit price product' })).results[0].id).toBe('func:shop/models.py:price_of');
  });

  test('an identifier query ranks the entity of that exact name first', async () => {
    expect((await ws.engine.search({ query: 'User.rename' })).results[0].id).toBe('method:shop/models.py:User.rename');
    expect((await ws.engine.search({ query: 'touch' })).results[0].id).toBe('method:shop/base.py:Model.touch');
  });

  test('kind and path filters', async () => {
    const r = await ws.engine.search({ query: 'init', kinds: ['method'], paths: ['shop/models.py'] });
    expect(r.results.map((x) => x.id).slice(0, 2).sort()).toEqual(['method:shop/models.py:Order.__init__', 'method:shop/models.py:User.__init__']);
    expect(r.results.every((x) => x.kind === 'method' && x.file === 'shop/models.py')).toBe(true);
  });

  test('a bad limit is refused', async () => {
    await expect(ws.engine.search({ query: 'x', limit: 0 })).rejects.toThrow(/limit must be/);
  });
});

describe('bad ids and paths', () => {
  test('an unknown id names itself and suggests the closest ids', () => {
    try {
      ws.engine.entity('func:shop/models.py:price_off');
      expect.unreachable();
    } catch (e) {
      const err = e as { code: number; message: string; data: { suggestions: string[] } };
      expect(err.code).toBe(ErrorCodes.UnknownEntity);
      expect(err.message).toContain('func:shop/models.py:price_off');
      expect(err.data.suggestions[0]).toBe('func:shop/models.py:price_of');
    }
  });

  test('a qualified name alone names its one entity; one that several share says which', async () => {
    expect(ws.engine.entity('User.rename').id).toBe('method:shop/models.py:User.rename');
    expect(ws.engine.trace({ id: 'User.rename', direction: 'down', depth: 1 }).root).toBe('method:shop/models.py:User.rename');
    expect(ws.engine.window('price_of').id).toBe('func:shop/models.py:price_of');
    fs.writeFileSync(path.join(ws.root, 'shop', 'twice.py'), 'def price_of(sku):\n    return 0\n');
    await ws.engine.indexWorkspace();
    try {
      ws.engine.entity('price_of');
      expect.unreachable();
    } catch (e) {
      const err = e as { code: number; message: string; data: { suggestions: string[] } };
      expect(err.code).toBe(ErrorCodes.UnknownEntity);
      expect(err.message).toMatch(/^price_of names 2 entities; give one id: /);
      expect(err.data.suggestions).toEqual(['func:shop/models.py:price_of', 'func:shop/twice.py:price_of']);
    } finally {
      fs.rmSync(path.join(ws.root, 'shop', 'twice.py'));
      await ws.engine.indexWorkspace();
    }
  });

  /** Each name written names the entity meant. */
  const expectNamed = (table: Array<[written: string, meant: string]>) => {
    for (const [written, meant] of table) expect(ws.engine.entity(written).id, written).toBe(meant);
  };

  test('the names people write name the entity: without its kind, a dotted module path, a pytest id, a file', () => {
    expectNamed([
      ['shop/models.py:price_of', 'func:shop/models.py:price_of'],
      ['shop/models.py:Order.total', 'method:shop/models.py:Order.total'],
      ['function:shop/models.py:price_of', 'func:shop/models.py:price_of'],
      ['shop.models.Order.total', 'method:shop/models.py:Order.total'],
      ['shop.services.payments.charge', 'func:shop/services/payments.py:charge'],
      ['shop/models.py::Order::total', 'method:shop/models.py:Order.total'],
      ['shop/models.py::Order::total[2-3.5]', 'method:shop/models.py:Order.total'], // a parametrized case, as pytest prints it
      ['shop.models', 'module:shop/models.py:models'],
      ['shop/models.py', 'module:shop/models.py:models'],
      // A package names what its modules define, when only one of them defines it.
      ['shop.Order', 'class:shop/models.py:Order'],
      ['shop.services.charge', 'func:shop/services/payments.py:charge'],
      // A bare name that only one definition has.
      ['add_item', 'method:shop/models.py:Order.add_item'],
      ['validate_amount', 'func:shop/services/payments.py:validate_amount'],
      // As prose writes them.
      ['`Order.total`', 'method:shop/models.py:Order.total'],
      [' shop.models.price_of() ', 'func:shop/models.py:price_of'],
      ['"func:shop/models.py:price_of"', 'func:shop/models.py:price_of'],
    ]);
    expect(ws.engine.trace({ id: 'shop.models.User.rename', direction: 'down', depth: 1 }).root).toBe('method:shop/models.py:User.rename');
  });

  test('a skeleton of a module by its dotted name', () => {
    expect(ws.engine.skeleton('shop.models').file).toBe('shop/models.py');
    expect(ws.engine.skeleton('shop.services').file).toBe('shop/services/__init__.py');
    expect(() => ws.engine.skeleton('shop.nowhere')).toThrow(/shop.nowhere is neither a file NSCCN reads nor the dotted name of a module/);
  });

  test('a line of a file, as a traceback gives it, names the innermost definition holding it', () => {
    expectNamed([
      ['shop/models.py:18', 'method:shop/models.py:User.rename'],
      ['shop/models.py:16', 'method:shop/models.py:User.rename'],
      ['shop/models.py:9', 'class:shop/models.py:User'],
      ['shop/models.py:22', 'class:shop/models.py:User.Meta'],
      ['shop/models.py:1', 'module:shop/models.py:models'],
    ]);
    expect(ws.engine.window('shop/models.py:18').id).toBe('method:shop/models.py:User.rename');
    // The place is why it names nothing, and the message says so instead of listing look-alikes.
    const lines = fs.readFileSync(path.join(ws.root, 'shop/models.py'), 'utf8').split('\n').length - 1;
    expect(() => ws.engine.entity('shop/models.py:999')).toThrow(`unknown entity shop/models.py:999: shop/models.py has ${lines} lines`);
    expect(() => ws.engine.entity(`shop/models.py:${lines + 1}`)).toThrow(`shop/models.py has ${lines} lines`); // the row after the last newline
    expect(ws.engine.entity(`shop/models.py:${lines}`).id).toMatch(/^\w+:shop\/models\.py:/);
    expect(ws.engine.window('shop/models.py').end).toBe(lines); // no empty line past the end as context
    expect(() => ws.engine.entity('shop/models.py:0')).toThrow('unknown entity shop/models.py:0: lines count from 1');
    expect(() => ws.engine.entity('shop/nope.py:3')).toThrow('unknown entity shop/nope.py:3: shop/nope.py is not in the index');
    expect(() => ws.engine.entity('../outside.py:3')).toThrow(/^unknown entity \.\.\/outside\.py:3: \.\.\/outside\.py is outside the workspace /);
    expect(() => ws.engine.entity('tests/test_gone.py::test_a')).toThrow('unknown entity tests/test_gone.py::test_a: tests/test_gone.py is not in the index');
    expect(() => ws.engine.window('/etc/passwd:1')).toThrow(/^unknown entity \/etc\/passwd:1: \/etc\/passwd is outside the workspace /);
  });

  test('a file and a name it does not define: the message says so and suggests the nearest of its definitions', () => {
    const refused = (written: string) => {
      try {
        ws.engine.entity(written);
      } catch (e) {
        const err = e as { code: number; message: string; data: { suggestions: string[] } };
        expect(err.code).toBe(ErrorCodes.UnknownEntity);
        return err;
      }
      return expect.unreachable();
    };
    const typo = refused('shop/models.py::User::renam');
    expect(typo.message).toMatch(/^unknown entity shop\/models\.py::User::renam: shop\/models\.py defines no User\.renam; did you mean method:shop\/models\.py:User\.rename/);
    expect(typo.data.suggestions[0]).toBe('method:shop/models.py:User.rename');
    // Near means near in the last segment: User.name shares the class, not the name.
    expect(typo.data.suggestions.indexOf('attr:shop/models.py:User.name')).not.toBe(1);
    expect(refused('shop/models.py:prise_of').data.suggestions[0]).toBe('func:shop/models.py:price_of');
    expect(refused('shop/models.py::rename').data.suggestions[0]).toBe('method:shop/models.py:User.rename'); // the bare name of a method
    // Suggestions come from that file only, whatever else the workspace defines.
    const elsewhere = refused('shop/models.py::Nope');
    expect(elsewhere.message).toMatch(/^unknown entity shop\/models\.py::Nope: shop\/models\.py defines no Nope; did you mean /);
    // Nothing near that name: the file's definitions in source order, not attributes that happen to be short.
    expect(elsewhere.data.suggestions).toEqual(['class:shop/models.py:User', 'method:shop/models.py:User.__init__', 'method:shop/models.py:User.rename', 'class:shop/models.py:User.Meta', 'class:shop/models.py:Order']);
    // A dotted module and a name (an entry point's spelling) is not a path: the workspace's look-alikes as before.
    expect(refused('shop.models:prise_of').message).not.toContain('defines no');
  });

  test('a name several entities have lists them; a path outside the workspace names nothing', () => {
    for (const [written, listed] of [
      ['__init__', ['method:shop/base.py:Model.__init__', 'method:shop/models.py:Order.__init__', 'method:shop/models.py:User.__init__']],
      ['shop.models.__init__', null],
    ] as const) {
      try {
        ws.engine.entity(written);
        expect.unreachable();
      } catch (e) {
        const err = e as { code: number; message: string; data: { suggestions: string[] } };
        expect(err.code).toBe(ErrorCodes.UnknownEntity);
        if (listed) {
          expect(err.message).toMatch(new RegExp(`^${written} names \\d+ entities; give one id: `));
          expect(err.data.suggestions).toEqual(expect.arrayContaining([...listed]));
        } else expect(err.message).toMatch(/^unknown entity /);
      }
    }
    expect(() => ws.engine.entity('../outside.py:main')).toThrow(/^unknown entity \.\.\/outside\.py:main/);
  });

  test('a dotted name means the copy of a package nearest the root; a deeper one by its longer name', async () => {
    fs.mkdirSync(path.join(ws.root, 'third_party', 'shop'), { recursive: true });
    fs.writeFileSync(path.join(ws.root, 'third_party', 'shop', 'models.py'), 'def price_of(sku):\n    return 1\n');
    await ws.engine.indexWorkspace();
    try {
      expect(ws.engine.entity('shop.models.price_of').id).toBe('func:shop/models.py:price_of');
      expect(ws.engine.entity('third_party.shop.models.price_of').id).toBe('func:third_party/shop/models.py:price_of');
      expect(() => ws.engine.entity('price_of')).toThrow(/^price_of names 2 entities/);
    } finally {
      fs.rmSync(path.join(ws.root, 'third_party'), { recursive: true });
      await ws.engine.indexWorkspace();
    }
  });

  test('an id written without its kind or mistyped suggests the closest ids first, by name', async () => {
    // A one-letter name matches hundreds of ids: the one meant must not be lost among them.
    const many = Array.from({ length: 300 }, (_, i) => `class Fetcher${i}:\n    pass\n`).join('\n');
    fs.writeFileSync(path.join(ws.root, 'shop', 'fill.py'), `${many}\n\ndef f():\n    pass\n\ndef g():\n    pass\n`);
    await ws.engine.indexWorkspace();
    try {
      for (const [written, meant] of [
        ['shop/fill.py:F', 'func:shop/fill.py:f'],
        ['shop.models.Order.totl', 'method:shop/models.py:Order.total'],
        ['add_itemm', 'method:shop/models.py:Order.add_item'],
        ['renam', 'method:shop/models.py:User.rename'],
      ]) {
        try {
          ws.engine.entity(written);
          expect.unreachable();
        } catch (e) {
          expect((e as { data: { suggestions: string[] } }).data.suggestions[0], written).toBe(meant);
        }
      }
    } finally {
      fs.rmSync(path.join(ws.root, 'shop', 'fill.py'));
      await ws.engine.indexWorkspace();
    }
  });

  test.each(['../outside.py', '/etc/passwd', 'file:///etc/passwd', 'https://example.com/x.py'])('%s is outside the workspace', (p) => {
    expect(() => ws.engine.skeleton(p)).toThrow(expect.objectContaining({ code: ErrorCodes.OutsideWorkspace }));
  });

  test('a symlink pointing out of the workspace is refused', () => {
    fs.symlinkSync('/etc', path.join(ws.root, 'escape'));
    expect(() => ws.engine.skeleton('escape/passwd.py')).toThrow(/outside the workspace/);
  });
});
