// The causal fixture: every expected edge (MUTATES, READS_CONFIG, PROPAGATES_ERROR and the
// tricky CALLS cases), and the trace directions that read them.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('causal');
});
afterAll(() => ws.dispose());

const has = (edge: string) => expect(edgeList(ws.engine)).toContain(edge);

describe('edges', () => {
  test('the whole graph, exactly', () => {
    expect(edgeList(ws.engine)).toEqual(
      [
        'class:service/core.py:Service -CALLS-> func:service/core.py:audited',
        'class:service/errors.py:Declined -INHERITS-> class:service/errors.py:ServiceError',
        'class:service/errors.py:NotFound -INHERITS-> class:service/errors.py:ServiceError',
        'class:service/errors.py:ServiceError -INHERITS-> ?Exception',
        'class:service/models.py:Premium -INHERITS-> class:service/models.py:Account',
        'class:service/store.py:Store -CALLS-> ?classmethod',
        'func:app.py:main -CALLS-> method:service/core.py:Service.__init__',
        'func:app.py:main -CALLS-> method:service/core.py:Service.refund',
        'func:app.py:main -CALLS-> method:service/store.py:Store.__init__',
        'func:service/core.py:make_service -CALLS-> method:service/core.py:Service.__init__',
        'func:service/core.py:make_service -CALLS-> method:service/core.py:Service.open',
        'func:service/core.py:make_service -CALLS-> method:service/store.py:Store.__init__',
        'func:service/core.py:make_service -CALLS-> method:service/store.py:Store.create',
        'func:service/core.py:make_service -CALLS-> method:service/store.py:Store.reset',
        'func:service/core.py:tune -CALLS-> method:service/core.py:Service.find',
        'func:service/core.py:tune -MUTATES-> attr:service/core.py:Service.cache',
        'func:service/util_a.py:normalize -CALLS-> ?strip',
        'func:service/util_b.py:normalize -CALLS-> ?lower',
        'method:service/core.py:Service.__init__ -MUTATES-> attr:service/core.py:Service.cache',
        'method:service/core.py:Service.__init__ -MUTATES-> attr:service/core.py:Service.store',
        'method:service/core.py:Service.charge -CALLS-> class:service/errors.py:Declined',
        'method:service/core.py:Service.charge -CALLS-> method:service/store.py:Store.get',
        'method:service/core.py:Service.charge -MUTATES-> attr:service/core.py:Service.cache',
        'method:service/core.py:Service.charge -PROPAGATES_ERROR-> class:service/errors.py:Declined',
        'method:service/core.py:Service.charge -READS_CONFIG-> global:service/settings.py:MAX_AMOUNT',
        'method:service/core.py:Service.debug -READS_CONFIG-> config:NSCCN_DEBUG',
        'method:service/core.py:Service.debug -READS_CONFIG-> global:service/settings.py:DEBUG',
        'method:service/core.py:Service.find -CALLS-> method:service/store.py:Store.get',
        'method:service/core.py:Service.load -CALLS-> ?json.load',
        'method:service/core.py:Service.load -CALLS-> ?open',
        'method:service/core.py:Service.load -READS_CONFIG-> file:config/service.json',
        'method:service/core.py:Service.open -CALLS-> ?AUDIT.append',
        'method:service/core.py:Service.open -CALLS-> func:service/util_a.py:normalize (ambiguous)',
        'method:service/core.py:Service.open -CALLS-> func:service/util_b.py:normalize (ambiguous)',
        'method:service/core.py:Service.open -CALLS-> method:service/models.py:Account.__init__',
        'method:service/core.py:Service.open -CALLS-> method:service/models.py:Premium.__init__',
        'method:service/core.py:Service.open -CALLS-> method:service/store.py:Store.put',
        'method:service/core.py:Service.open -MUTATES-> global:service/core.py:AUDIT',
        'method:service/core.py:Service.open -MUTATES-> global:service/core.py:COUNTER',
        'method:service/core.py:Service.refund -CALLS-> method:service/core.py:Service.charge',
        'method:service/core.py:Service.refund -PROPAGATES_ERROR-> class:service/errors.py:Declined',
        'method:service/models.py:Account.__init__ -MUTATES-> attr:service/models.py:Account.balance',
        'method:service/models.py:Account.__init__ -MUTATES-> attr:service/models.py:Account.email',
        'method:service/models.py:Account.deposit -MUTATES-> attr:service/models.py:Account.balance',
        'method:service/models.py:Premium.__init__ -CALLS-> method:service/models.py:Account.__init__',
        'method:service/models.py:Premium.__init__ -MUTATES-> attr:service/models.py:Premium.level',
        'method:service/models.py:Premium.describe -CALLS-> method:service/models.py:Account.describe',
        'method:service/models.py:Premium.upgrade -CALLS-> method:service/models.py:Account.deposit',
        'method:service/models.py:Premium.upgrade -MUTATES-> attr:service/models.py:Premium.level',
        'method:service/store.py:Store.__init__ -MUTATES-> attr:service/store.py:Store.rows',
        'method:service/store.py:Store.__init__ -MUTATES-> attr:service/store.py:Store.writes',
        'method:service/store.py:Store.create -CALLS-> method:service/store.py:Store.__init__',
        'method:service/store.py:Store.get -CALLS-> class:service/errors.py:NotFound',
        'method:service/store.py:Store.get -PROPAGATES_ERROR-> class:service/errors.py:NotFound',
        'method:service/store.py:Store.put -MUTATES-> attr:service/store.py:Store.rows',
        'method:service/store.py:Store.put -MUTATES-> attr:service/store.py:Store.writes',
        'method:service/store.py:Store.reset -MUTATES-> attr:service/store.py:Store.rows',
        'module:app.py:app -IMPORTS-> class:service/core.py:Service',
        'module:app.py:app -IMPORTS-> class:service/store.py:Store',
        'module:service/__init__.py:service -IMPORTS-> class:service/core.py:Service',
        'module:service/core.py:core -IMPORTS-> ?json',
        'module:service/core.py:core -IMPORTS-> ?os',
        'module:service/core.py:core -IMPORTS-> class:service/errors.py:Declined',
        'module:service/core.py:core -IMPORTS-> class:service/errors.py:NotFound',
        'module:service/core.py:core -IMPORTS-> class:service/models.py:Account',
        'module:service/core.py:core -IMPORTS-> class:service/models.py:Premium',
        'module:service/core.py:core -IMPORTS-> class:service/store.py:Store',
        'module:service/core.py:core -IMPORTS-> module:service/settings.py:settings',
        'module:service/settings.py:settings -CALLS-> ?os.environ.get',
        'module:service/settings.py:settings -CALLS-> ?os.getenv',
        'module:service/settings.py:settings -IMPORTS-> ?os',
        'module:service/settings.py:settings -READS_CONFIG-> config:DATABASE_URL',
        'module:service/settings.py:settings -READS_CONFIG-> config:DEBUG',
        'module:service/store.py:store -IMPORTS-> class:service/errors.py:NotFound',
      ].sort(),
    );
  });

  test.each([
    ['self.m() through the MRO', 'method:service/models.py:Premium.upgrade -CALLS-> method:service/models.py:Account.deposit'],
    ['super().m()', 'method:service/models.py:Premium.describe -CALLS-> method:service/models.py:Account.describe'],
    ['cls() constructs the class', 'method:service/store.py:Store.create -CALLS-> method:service/store.py:Store.__init__'],
    ['x = Cls(); x.m()', 'func:service/core.py:make_service -CALLS-> method:service/core.py:Service.open'],
    ['with Cls() as x: x.m()', 'func:service/core.py:make_service -CALLS-> method:service/store.py:Store.reset'],
    ['a parameter annotated with a class', 'func:service/core.py:tune -CALLS-> method:service/core.py:Service.find'],
    ['self.attr typed in __init__ (from an annotated parameter)', 'method:service/core.py:Service.charge -CALLS-> method:service/store.py:Store.get'],
    ['from a import b as c', 'method:service/core.py:Service.charge -PROPAGATES_ERROR-> class:service/errors.py:Declined'],
    ['a re-export through __init__.py', 'module:app.py:app -IMPORTS-> class:service/core.py:Service'],
    ['a decorated method is still a target', 'func:app.py:main -CALLS-> method:service/core.py:Service.refund'],
    ['an import alias of os', 'method:service/core.py:Service.debug -READS_CONFIG-> config:NSCCN_DEBUG'],
    ['same-directory guesses are kept as ambiguous candidates', 'method:service/core.py:Service.open -CALLS-> func:service/util_a.py:normalize (ambiguous)'],
  ])('%s', (_what, edge) => has(edge));
});

describe('properties', () => {
  test('reading a property calls its getter; reading a plain attribute is no call', async () => {
    ws.write('service/props.py', [
      'class Box:',
      '    def __init__(self):',
      '        self.size = 1',
      '',
      '    @property',
      '    def area(self):',
      '        return self.size * self.size',
      '',
      '    @area.setter',
      '    def area(self, value):',
      '        self.size = value',
      '',
      '    def describe(self):',
      '        return f"{self.area} from {self.size}"',
      '',
    ].join('\n'));
    await ws.engine.indexWorkspace();
    expect(ws.engine.outgoing('method:service/props.py:Box.describe').map((e) => `${e.relation} ${e.target}`)).toEqual(['CALLS method:service/props.py:Box.area']);
    ws.remove('service/props.py');
    await ws.engine.indexWorkspace();
  });
});

describe('error factories', () => {
  test('raise make_error(...) propagates the class the factory returns', async () => {
    ws.write('service/factory.py', 'from .errors import NotFound\n\n\ndef make_error(key):\n    return NotFound(key)\n\n\ndef lookup(key):\n    raise make_error(key)\n');
    await ws.engine.indexWorkspace();
    expect(ws.engine.outgoing('func:service/factory.py:lookup', ['PROPAGATES_ERROR']).map((e) => e.target)).toEqual(['class:service/errors.py:NotFound']);
    ws.remove('service/factory.py');
    await ws.engine.indexWorkspace();
  });
});

describe('trace directions', () => {
  test('errors: what escapes, and what a try catches', () => {
    expect(ws.engine.trace({ id: 'method:service/core.py:Service.charge', direction: 'errors' }).escaping).toEqual(['class:service/errors.py:Declined', 'class:service/errors.py:NotFound']);
    expect(ws.engine.trace({ id: 'method:service/core.py:Service.find', direction: 'errors' }).escaping).toEqual([]);
    // refund catches Declined from charge but re-raises it; NotFound passes through.
    expect(ws.engine.trace({ id: 'method:service/core.py:Service.refund', direction: 'errors' }).escaping).toEqual(['class:service/errors.py:Declined', 'class:service/errors.py:NotFound']);
    // Depth bounds the search: at depth 1 only what refund raises itself is seen.
    expect(ws.engine.trace({ id: 'func:app.py:main', direction: 'errors', depth: 1 }).escaping).toEqual(['class:service/errors.py:Declined']);
    expect(ws.engine.trace({ id: 'func:app.py:main', direction: 'errors' }).escaping).toEqual(['class:service/errors.py:Declined', 'class:service/errors.py:NotFound']);
  });

  test('errors from an exception class: who raises it', () => {
    const t = ws.engine.trace({ id: 'class:service/errors.py:NotFound', direction: 'errors' });
    expect(t.adjacency['class:service/errors.py:NotFound'].map((e) => e.target)).toEqual(['method:service/store.py:Store.get']);
  });

  test('state: what X mutates through its callees, and who else mutates it', () => {
    const t = ws.engine.trace({ id: 'method:service/core.py:Service.open', direction: 'state', relations: ['CALLS', 'MUTATES'] });
    const mutated = Object.values(t.adjacency).flat().filter((e) => e.relation === 'MUTATES' && !e.incoming).map((e) => e.target);
    expect([...new Set(mutated)].sort()).toEqual([
      'attr:service/models.py:Account.balance',
      'attr:service/models.py:Account.email',
      'attr:service/models.py:Premium.level',
      'attr:service/store.py:Store.rows',
      'attr:service/store.py:Store.writes',
      'global:service/core.py:AUDIT',
      'global:service/core.py:COUNTER',
    ]);
    expect(t.adjacency['attr:service/store.py:Store.rows'].map((e) => e.target).sort()).toEqual(['method:service/store.py:Store.__init__', 'method:service/store.py:Store.reset']);
  });

  test('state from an attribute: who mutates it', () => {
    const t = ws.engine.trace({ id: 'attr:service/core.py:Service.cache', direction: 'state' });
    expect(t.adjacency['attr:service/core.py:Service.cache'].map((e) => e.target).sort()).toEqual(['func:service/core.py:tune', 'method:service/core.py:Service.__init__', 'method:service/core.py:Service.charge']);
  });

  test('config: what X depends on, and who reads a key', () => {
    const t = ws.engine.trace({ id: 'method:service/core.py:Service.debug', direction: 'config' });
    expect(t.adjacency['method:service/core.py:Service.debug'].map((e) => e.target).sort()).toEqual(['config:NSCCN_DEBUG', 'global:service/settings.py:DEBUG']);
    const readers = ws.engine.trace({ id: 'config:DATABASE_URL', direction: 'config' });
    expect(readers.adjacency['config:DATABASE_URL'].map((e) => e.target)).toEqual(['module:service/settings.py:settings']);
  });
});
