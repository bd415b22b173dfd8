// The shop fixture's graph, known by heart: exact entity ids and edges, resolution through
// relative, aliased and re-exported imports, inheritance across modules and a broken file.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('python');
});
afterAll(() => ws.dispose());

const ENTITIES: Record<string, string[]> = {
  'shop/__init__.py': ['module:shop/__init__.py:shop', 'global:shop/__init__.py:__version__'],
  'shop/base.py': [
    'module:shop/base.py:base',
    'global:shop/base.py:REGISTRY',
    'func:shop/base.py:register',
    'class:shop/base.py:Model',
    'attr:shop/base.py:Model.table',
    'method:shop/base.py:Model.__init__',
    'attr:shop/base.py:Model.updated_at',
    'method:shop/base.py:Model.touch',
    'method:shop/base.py:Model.save',
    'func:shop/base.py:_write',
  ],
  'shop/models.py': [
    'module:shop/models.py:models',
    'class:shop/models.py:User',
    'attr:shop/models.py:User.table',
    'method:shop/models.py:User.__init__',
    'attr:shop/models.py:User.email',
    'attr:shop/models.py:User.name',
    'method:shop/models.py:User.rename',
    'class:shop/models.py:User.Meta',
    'attr:shop/models.py:User.Meta.ordering',
    'class:shop/models.py:Order',
    'attr:shop/models.py:Order.table',
    'method:shop/models.py:Order.__init__',
    'attr:shop/models.py:Order.user',
    'attr:shop/models.py:Order.items',
    'method:shop/models.py:Order.add_item',
    'method:shop/models.py:Order.total',
    'func:shop/models.py:price_of',
  ],
  'shop/services/__init__.py': ['module:shop/services/__init__.py:services'],
  'shop/services/checkout.py': ['module:shop/services/checkout.py:checkout', 'func:shop/services/checkout.py:checkout', 'func:shop/services/checkout.py:cancel'],
  'shop/services/payments.py': [
    'module:shop/services/payments.py:payments',
    'func:shop/services/payments.py:charge',
    'func:shop/services/payments.py:validate_amount',
    'func:shop/services/payments.py:_gateway',
    'class:shop/services/payments.py:_gateway.Gateway',
    'method:shop/services/payments.py:_gateway.Gateway.send',
  ],
  'shop/broken.py': ['module:shop/broken.py:broken', 'func:shop/broken.py:ok_before', 'func:shop/broken.py:broken', 'class:shop/broken.py:StillHere', 'method:shop/broken.py:StillHere.method'],
};

describe('entities', () => {
  test.each(Object.entries(ENTITIES))('%s has exactly its entities, in source order', (file, ids) => {
    expect(ws.engine.fileEntities(file).map((e) => e.id)).toEqual(ids);
  });

  test('signatures, decorators, docstrings and spans are recorded', () => {
    const user = ws.engine.entity('class:shop/models.py:User');
    expect(user.signature).toBe('class User(Model)');
    expect(user.decorators).toEqual(['register']);
    expect(user.docstring).toBe('A customer account.');
    expect(user.span).toEqual({ start: { row: 4, column: 0 }, end: { row: 21, column: 28 } });
    expect(user.nameSpan).toEqual({ start: { row: 5, column: 6 }, end: { row: 5, column: 10 } });
    const add = ws.engine.entity('method:shop/models.py:Order.add_item');
    expect(add.signature).toBe('def add_item(self, sku: str, qty: int = 1)');
    expect(add.parent).toBe('class:shop/models.py:Order');
    expect(ws.engine.entity('class:shop/models.py:User.Meta').parent).toBe('class:shop/models.py:User');
  });

  test('a file with a syntax error still yields what tree-sitter recovers', () => {
    expect(ws.engine.store.file('shop/broken.py')?.syntax_errors).toBeGreaterThan(0);
    expect(ws.engine.outgoing('method:shop/broken.py:StillHere.method').map((e) => e.target)).toEqual(['func:shop/broken.py:ok_before']);
  });
});

describe('edges', () => {
  test('the whole graph, exactly', () => {
    expect(edgeList(ws.engine)).toEqual(
      [
        'class:shop/models.py:Order -INHERITS-> class:shop/base.py:Model',
        'class:shop/models.py:User -INHERITS-> class:shop/base.py:Model',
        'func:shop/base.py:register -MUTATES-> global:shop/base.py:REGISTRY',
        'func:shop/services/checkout.py:checkout -CALLS-> func:shop/base.py:_write',
        'func:shop/services/checkout.py:checkout -CALLS-> func:shop/services/payments.py:charge',
        'func:shop/services/checkout.py:checkout -CALLS-> method:shop/models.py:Order.__init__',
        'func:shop/services/checkout.py:checkout -CALLS-> method:shop/models.py:Order.add_item',
        'func:shop/services/checkout.py:checkout -CALLS-> method:shop/models.py:Order.total',
        'func:shop/services/payments.py:_gateway -CALLS-> class:shop/services/payments.py:_gateway.Gateway',
        'func:shop/services/payments.py:charge -CALLS-> method:shop/services/payments.py:_gateway.Gateway.send',
        'func:shop/services/payments.py:charge -CALLS-> func:shop/services/payments.py:_gateway',
        'func:shop/services/payments.py:charge -CALLS-> func:shop/services/payments.py:validate_amount',
        'func:shop/services/payments.py:validate_amount -CALLS-> ?ValueError',
        'func:shop/services/payments.py:validate_amount -PROPAGATES_ERROR-> ?ValueError',
        'method:shop/base.py:Model.__init__ -MUTATES-> attr:shop/base.py:Model.updated_at',
        'method:shop/base.py:Model.save -CALLS-> ?vars',
        'method:shop/base.py:Model.save -CALLS-> func:shop/base.py:_write',
        'method:shop/base.py:Model.save -CALLS-> method:shop/base.py:Model.touch',
        'method:shop/base.py:Model.touch -CALLS-> ?clock.time',
        'method:shop/base.py:Model.touch -MUTATES-> attr:shop/base.py:Model.updated_at',
        'method:shop/broken.py:StillHere.method -CALLS-> func:shop/broken.py:ok_before',
        'method:shop/models.py:Order.__init__ -CALLS-> method:shop/base.py:Model.__init__',
        'method:shop/models.py:Order.__init__ -MUTATES-> attr:shop/models.py:Order.items',
        'method:shop/models.py:Order.__init__ -MUTATES-> attr:shop/models.py:Order.user',
        'method:shop/models.py:Order.add_item -CALLS-> ?items.append',
        'method:shop/models.py:Order.add_item -CALLS-> method:shop/base.py:Model.touch',
        'method:shop/models.py:Order.add_item -MUTATES-> attr:shop/models.py:Order.items',
        'method:shop/models.py:Order.total -CALLS-> ?sum',
        'method:shop/models.py:Order.total -CALLS-> func:shop/models.py:price_of',
        'method:shop/models.py:User.__init__ -CALLS-> method:shop/base.py:Model.__init__',
        'method:shop/models.py:User.__init__ -MUTATES-> attr:shop/models.py:User.email',
        'method:shop/models.py:User.__init__ -MUTATES-> attr:shop/models.py:User.name',
        'method:shop/models.py:User.rename -CALLS-> method:shop/base.py:Model.save',
        'method:shop/models.py:User.rename -MUTATES-> attr:shop/models.py:User.name',
        'module:shop/__init__.py:shop -IMPORTS-> class:shop/models.py:Order',
        'module:shop/__init__.py:shop -IMPORTS-> class:shop/models.py:User',
        'module:shop/base.py:base -IMPORTS-> ?time',
        'module:shop/models.py:models -CALLS-> func:shop/base.py:register',
        'module:shop/models.py:models -IMPORTS-> class:shop/base.py:Model',
        'module:shop/models.py:models -IMPORTS-> func:shop/base.py:register',
        'module:shop/services/checkout.py:checkout -IMPORTS-> class:shop/models.py:Order',
        'module:shop/services/checkout.py:checkout -IMPORTS-> class:shop/models.py:User',
        'module:shop/services/checkout.py:checkout -IMPORTS-> module:shop/base.py:base',
        'module:shop/services/checkout.py:checkout -IMPORTS-> module:shop/services/payments.py:payments',
      ].sort(),
    );
  });

  test('callers of a base-class method called through self in a subclass', () => {
    const callers = ws.engine.incoming('method:shop/base.py:Model.touch', ['CALLS']).map((e) => e.source);
    expect(callers.sort()).toEqual(['method:shop/base.py:Model.save', 'method:shop/models.py:Order.add_item']);
  });

  test('call sites carry the range of the called name', () => {
    const [site] = ws.engine.outgoing('method:shop/models.py:User.rename', ['CALLS']);
    expect(site.span).toEqual({ start: { row: 18, column: 13 }, end: { row: 18, column: 17 } });
  });
});
