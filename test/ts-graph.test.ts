// The TypeScript fixture's graph, known by heart (fixtures/typescript): entities of every kind
// TypeScript adds (interfaces, type aliases, enums, getters, overloads, parameter properties),
// and edges resolved through a barrel, `export … as`, default exports, `import * as ns` with a
// `.js` specifier, typed parameters, constructor parameter properties and destructured props.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('typescript');
});
afterAll(() => ws.dispose());

const ENTITIES: Record<string, string[]> = {
  'src/models/base.ts': [
    'module:src/models/base.ts:base',
    'interface:src/models/base.ts:Saveable',
    'method:src/models/base.ts:Saveable.save',
    'class:src/models/base.ts:Model',
    'attr:src/models/base.ts:Model.updatedAt',
    'method:src/models/base.ts:Model.constructor',
    'attr:src/models/base.ts:Model.table', // a constructor parameter property
    'method:src/models/base.ts:Model.touch',
    'method:src/models/base.ts:Model.save',
    'func:src/models/base.ts:write',
    'func:src/models/base.ts:stamp',
    'class:src/models/base.ts:StoreError',
  ],
  'src/models/index.ts': ['module:src/models/index.ts:index'],
  'src/models/user.ts': [
    'module:src/models/user.ts:user',
    'type:src/models/user.ts:UserId',
    'enum:src/models/user.ts:Role',
    'class:src/models/user.ts:User',
    'attr:src/models/user.ts:User.role',
    'method:src/models/user.ts:User.constructor',
    'attr:src/models/user.ts:User.email',
    'method:src/models/user.ts:User.display', // a getter
    'method:src/models/user.ts:User.rename', // two overload signatures and the implementation: one entity
  ],
  'src/services/checkout.ts': [
    'module:src/services/checkout.ts:checkout',
    'global:src/services/checkout.ts:MAX_ITEMS',
    'class:src/services/checkout.ts:Cart',
    'attr:src/services/checkout.ts:Cart.items',
    'method:src/services/checkout.ts:Cart.constructor',
    'attr:src/services/checkout.ts:Cart.owner',
    'method:src/services/checkout.ts:Cart.add',
    'method:src/services/checkout.ts:Cart.checkout',
    'func:src/services/checkout.ts:checkout',
  ],
  'src/services/payments.ts': [
    'module:src/services/payments.ts:payments',
    'func:src/services/payments.ts:charge',
    'func:src/services/payments.ts:validate',
    'func:src/services/payments.ts:rate', // an arrow function bound to a const
    'class:src/services/payments.ts:PaymentError',
  ],
  'src/ui/CartView.tsx': [
    'module:src/ui/CartView.tsx:CartView',
    'interface:src/ui/CartView.tsx:Props',
    'attr:src/ui/CartView.tsx:Props.cart',
    'func:src/ui/CartView.tsx:CartView',
    'func:src/ui/CartView.tsx:CartView.onAdd', // a nested arrow function
    'func:src/ui/CartView.tsx:CartSummary',
    'func:src/ui/CartView.tsx:Item',
    'func:src/ui/CartView.tsx:nextSku',
    'func:src/ui/CartView.tsx:formatSku',
  ],
};

describe('entities', () => {
  test.each(Object.entries(ENTITIES))('%s has exactly its entities, in source order', (file, ids) => {
    expect(ws.engine.fileEntities(file).map((e) => e.id)).toEqual(ids);
  });

  test('signatures keep their types, JSDoc is the docstring, getters are marked', () => {
    const user = ws.engine.entity('class:src/models/user.ts:User');
    expect(user.signature).toBe('class User extends Model');
    expect(user.docstring).toBe('A customer account.');
    expect(ws.engine.entity('method:src/models/base.ts:Model.touch').docstring).toBe('Marks the model as changed.');
    expect(ws.engine.entity('func:src/services/payments.ts:charge').signature).toBe('function charge(user: User, amount: number): number');
    expect(ws.engine.entity('func:src/services/payments.ts:rate').signature).toBe('const rate = (): number =>');
    expect(ws.engine.entity('method:src/models/user.ts:User.display').decorators).toEqual(['get']);
    expect(ws.engine.entity('interface:src/models/base.ts:Saveable').docstring).toBe('Something that can be saved.');
  });

  test('an overloaded method is one entity: from its first signature to the implementation, named there', () => {
    const rename = ws.engine.entity('method:src/models/user.ts:User.rename');
    expect(rename.signature).toBe('rename(email: string, notify = false): void');
    expect(rename.nameSpan.start).toEqual({ row: 23, column: 2 });
    expect(rename.span.start.row).toBe(21);
    expect(rename.span.end.row).toBe(26);
  });
});

describe('edges', () => {
  test('the whole graph, exactly', () => {
    expect(edgeList(ws.engine)).toEqual(
      [
        // implements and extends are both INHERITS; a base outside the workspace keeps its name
        'class:src/models/base.ts:Model -INHERITS-> interface:src/models/base.ts:Saveable',
        'class:src/models/base.ts:StoreError -INHERITS-> ?Error',
        'class:src/models/user.ts:User -INHERITS-> class:src/models/base.ts:Model',
        'class:src/services/payments.ts:PaymentError -INHERITS-> ?Error',
        // `function stamp(this: Model)`: `this` typed by its parameter
        'func:src/models/base.ts:stamp -CALLS-> method:src/models/base.ts:Model.touch',
        'func:src/models/base.ts:write -CALLS-> class:src/models/base.ts:StoreError',
        'func:src/models/base.ts:write -PROPAGATES_ERROR-> class:src/models/base.ts:StoreError',
        // `write` through the barrel's `export *`; `new DefaultUser()` through a default import
        'func:src/services/checkout.ts:checkout -CALLS-> func:src/models/base.ts:write',
        'func:src/services/checkout.ts:checkout -CALLS-> method:src/models/user.ts:User.constructor',
        // reading `user.display` runs the getter
        'func:src/services/checkout.ts:checkout -CALLS-> method:src/models/user.ts:User.display',
        // `const cart = new Cart(user)`: a local typed by `new`
        'func:src/services/checkout.ts:checkout -CALLS-> method:src/services/checkout.ts:Cart.add',
        'func:src/services/checkout.ts:checkout -CALLS-> method:src/services/checkout.ts:Cart.checkout',
        'func:src/services/checkout.ts:checkout -CALLS-> method:src/services/checkout.ts:Cart.constructor',
        'func:src/services/payments.ts:charge -CALLS-> func:src/services/payments.ts:rate',
        'func:src/services/payments.ts:charge -CALLS-> func:src/services/payments.ts:validate',
        // `user: User` (a type-only import) reaches the inherited method
        'func:src/services/payments.ts:charge -CALLS-> method:src/models/base.ts:Model.touch',
        'func:src/services/payments.ts:rate -CALLS-> ?Number',
        'func:src/services/payments.ts:rate -READS_CONFIG-> config:RATE',
        'func:src/services/payments.ts:validate -CALLS-> class:src/services/payments.ts:PaymentError',
        'func:src/services/payments.ts:validate -PROPAGATES_ERROR-> class:src/services/payments.ts:PaymentError',
        // `const { cart } = props` with `props: Props`
        'func:src/ui/CartView.tsx:CartSummary -CALLS-> method:src/services/checkout.ts:Cart.checkout',
        'func:src/ui/CartView.tsx:CartView -CALLS-> ?items.map',
        // a JSX element renders (calls) its component
        'func:src/ui/CartView.tsx:CartView -CALLS-> func:src/ui/CartView.tsx:Item',
        'func:src/ui/CartView.tsx:CartView.onAdd -CALLS-> func:src/ui/CartView.tsx:nextSku',
        // `{ cart }: Props` takes the type of `Props.cart`
        'func:src/ui/CartView.tsx:CartView.onAdd -CALLS-> method:src/services/checkout.ts:Cart.add',
        'func:src/ui/CartView.tsx:Item -CALLS-> func:src/ui/CartView.tsx:formatSku',
        'func:src/ui/CartView.tsx:formatSku -CALLS-> ?toUpperCase',
        'func:src/ui/CartView.tsx:nextSku -CALLS-> ?Date.now',
        'method:src/models/base.ts:Model.save -CALLS-> func:src/models/base.ts:write',
        'method:src/models/base.ts:Model.save -CALLS-> method:src/models/base.ts:Model.touch',
        'method:src/models/base.ts:Model.touch -CALLS-> ?Date.now',
        'method:src/models/base.ts:Model.touch -MUTATES-> attr:src/models/base.ts:Model.updatedAt',
        // `super(...)` is the base class's constructor
        'method:src/models/user.ts:User.constructor -CALLS-> method:src/models/base.ts:Model.constructor',
        'method:src/models/user.ts:User.display -CALLS-> ?email.toLowerCase',
        'method:src/models/user.ts:User.rename -CALLS-> method:src/models/base.ts:Model.save',
        'method:src/models/user.ts:User.rename -MUTATES-> attr:src/models/user.ts:User.email',
        'method:src/services/checkout.ts:Cart.add -CALLS-> ?RangeError',
        'method:src/services/checkout.ts:Cart.add -CALLS-> ?items.push',
        // `this.items.push(…)` changes the field
        'method:src/services/checkout.ts:Cart.add -MUTATES-> attr:src/services/checkout.ts:Cart.items',
        'method:src/services/checkout.ts:Cart.add -PROPAGATES_ERROR-> ?RangeError',
        'method:src/services/checkout.ts:Cart.add -READS_CONFIG-> global:src/services/checkout.ts:MAX_ITEMS',
        // `payments.X` through `import * as payments from './payments.js'`
        'method:src/services/checkout.ts:Cart.checkout -CALLS-> class:src/services/payments.ts:PaymentError',
        'method:src/services/checkout.ts:Cart.checkout -CALLS-> func:src/services/payments.ts:charge',
        // `this.owner` is a parameter property typed `Account`, the barrel's `User as Account`
        'method:src/services/checkout.ts:Cart.checkout -CALLS-> method:src/models/user.ts:User.rename',
        'method:src/services/checkout.ts:Cart.checkout -PROPAGATES_ERROR-> class:src/services/payments.ts:PaymentError',
        'module:src/models/index.ts:index -IMPORTS-> class:src/models/user.ts:User',
        'module:src/models/index.ts:index -IMPORTS-> module:src/models/base.ts:base',
        'module:src/models/user.ts:user -IMPORTS-> class:src/models/base.ts:Model',
        'module:src/services/checkout.ts:checkout -IMPORTS-> class:src/models/user.ts:User',
        'module:src/services/checkout.ts:checkout -IMPORTS-> func:src/models/base.ts:write',
        'module:src/services/checkout.ts:checkout -IMPORTS-> module:src/services/payments.ts:payments',
        'module:src/services/payments.ts:payments -IMPORTS-> class:src/models/user.ts:User',
        'module:src/ui/CartView.tsx:CartView -IMPORTS-> class:src/services/checkout.ts:Cart',
      ].sort(),
    );
  });

  test('a throw inside try is caught there; the rethrow in catch escapes', () => {
    const raised = ws.engine.outgoing('method:src/services/checkout.ts:Cart.checkout', ['PROPAGATES_ERROR']);
    expect(raised.map((e) => [e.target, e.caught]).sort()).toEqual([
      ['class:src/services/payments.ts:PaymentError', false],
      ['class:src/services/payments.ts:PaymentError', true],
    ]);
  });

  test('call sites carry the range of the called name', () => {
    const [site] = ws.engine.outgoing('method:src/models/user.ts:User.rename', ['CALLS']);
    expect(site.span).toEqual({ start: { row: 25, column: 9 }, end: { row: 25, column: 13 } });
  });

  test('who subclasses Model, who implements Saveable', () => {
    expect(ws.engine.incoming('class:src/models/base.ts:Model', ['INHERITS']).map((e) => e.source)).toEqual(['class:src/models/user.ts:User']);
    expect(ws.engine.incoming('interface:src/models/base.ts:Saveable', ['INHERITS']).map((e) => e.source)).toEqual(['class:src/models/base.ts:Model']);
  });
});
