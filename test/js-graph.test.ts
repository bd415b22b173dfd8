// The JavaScript fixtures' graphs, known by heart: CommonJS (fixtures/javascript/cjs: `require`,
// destructured requires, `module.exports = { … }` and `module.exports = fn`, `this.x = …` fields)
// and ES modules (fixtures/javascript/esm: default and renamed imports, `.mjs`, private fields,
// `super()`, object-literal methods, a dynamic `import()`, `import.meta.env`).
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

describe('CommonJS', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await openWorkspace('javascript/cjs');
  });
  afterAll(() => ws.dispose());

  test('entities, in source order; `this.rows = …` in the constructor declares the field', () => {
    expect(ws.engine.fileEntities('lib/store.js').map((e) => e.id)).toEqual([
      'module:lib/store.js:store',
      'class:lib/store.js:Store',
      'method:lib/store.js:Store.constructor',
      'attr:lib/store.js:Store.rows',
      'method:lib/store.js:Store.add',
      'global:lib/store.js:opened',
      'func:lib/store.js:open',
      'func:lib/store.js:fill',
    ]);
    expect(ws.engine.fileEntities('app.js').map((e) => e.id)).toEqual(['module:app.js:app', 'func:app.js:main', 'func:app.js:readSettings']);
    expect(ws.engine.entity('func:lib/store.js:open').docstring).toBe('Opens a fresh store.');
  });

  test('the whole graph, exactly', () => {
    expect(edgeList(ws.engine)).toEqual(
      [
        'func:app.js:main -CALLS-> ?JSON.stringify',
        'func:app.js:main -CALLS-> func:app.js:readSettings',
        // `const log = require('./lib/logger')` where the module is `module.exports = log`
        'func:app.js:main -CALLS-> func:lib/logger.js:log',
        // `const { open } = require(…)`
        'func:app.js:main -CALLS-> func:lib/store.js:open',
        // `const s = open(); s.add()` (open returns `new Store()`) and
        // `store.create().add()` (`create: open` in the exported object)
        'func:app.js:main -CALLS-> method:lib/store.js:Store.add',
        'func:app.js:main -READS_CONFIG-> config:DEBUG',
        // a required JSON file is configuration, not a module
        'func:app.js:readSettings -READS_CONFIG-> file:./settings.json',
        'func:lib/logger.js:log -CALLS-> ?console.log',
        'func:lib/store.js:fill -CALLS-> ?forEach',
        // `@param {Store} store` in JSDoc (a blank line before the function), used in a callback
        'func:lib/store.js:fill -CALLS-> method:lib/store.js:Store.add',
        'func:lib/store.js:open -CALLS-> method:lib/store.js:Store.constructor',
        // a module-level `let` changed by `opened++`
        'func:lib/store.js:open -MUTATES-> global:lib/store.js:opened',
        'method:lib/store.js:Store.add -CALLS-> ?rows.push',
        'method:lib/store.js:Store.add -MUTATES-> attr:lib/store.js:Store.rows',
        'method:lib/store.js:Store.constructor -MUTATES-> attr:lib/store.js:Store.rows',
        'module:app.js:app -IMPORTS-> func:lib/store.js:open',
        'module:app.js:app -IMPORTS-> module:lib/logger.js:logger',
        'module:app.js:app -IMPORTS-> module:lib/store.js:store',
      ].sort(),
    );
  });
});

describe('ES modules', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await openWorkspace('javascript/esm');
  });
  afterAll(() => ws.dispose());

  test('entities: private fields, object-literal methods, a default export', () => {
    expect(ws.engine.fileEntities('src/shapes.js').map((e) => e.id)).toEqual([
      'module:src/shapes.js:shapes',
      'class:src/shapes.js:Shape',
      'method:src/shapes.js:Shape.area',
      'class:src/shapes.js:Square',
      'attr:src/shapes.js:Square.#side',
      'method:src/shapes.js:Square.constructor',
      'method:src/shapes.js:Square.area',
      'method:src/shapes.js:Square.grow',
      'global:src/shapes.js:registry',
      'method:src/shapes.js:registry.square',
    ]);
    // `return function addN() {}`: a named function expression is a function of its own
    expect(ws.engine.fileEntities('src/math.mjs').map((e) => e.id)).toEqual(['module:src/math.mjs:math', 'func:src/math.mjs:add', 'func:src/math.mjs:adder', 'func:src/math.mjs:adder.addN', 'func:src/math.mjs:multiply']);
  });

  test('the whole graph, exactly', () => {
    expect(edgeList(ws.engine)).toEqual(
      [
        'class:src/shapes.js:Square -INHERITS-> class:src/shapes.js:Shape',
        'func:src/main.js:run -CALLS-> ?TypeError',
        // `const { plugin } = await import('./plugin.js')` binds inside `run`
        'func:src/main.js:run -CALLS-> func:src/plugin.js:plugin',
        'func:src/main.js:run -CALLS-> method:src/shapes.js:registry.square',
        'func:src/main.js:run -IMPORTS-> func:src/plugin.js:plugin',
        'func:src/main.js:run -PROPAGATES_ERROR-> ?TypeError',
        'func:src/main.js:run -READS_CONFIG-> config:MODE',
        'func:src/math.mjs:adder.addN -CALLS-> func:src/math.mjs:add',
        'func:src/math.mjs:multiply -CALLS-> func:src/math.mjs:add',
        // `new Promise((plugin) => plugin(value))`: the callback's parameter, not the function
        'func:src/plugin.js:later -CALLS-> ?Promise',
        // an untyped parameter: the member name only
        'func:src/plugin.js:plugin -CALLS-> ?area',
        // `import multiply from './math.mjs'`: the default export
        'method:src/shapes.js:Square.area -CALLS-> func:src/math.mjs:multiply',
        // `super()` with no constructor in the base: the base class itself
        'method:src/shapes.js:Square.constructor -CALLS-> class:src/shapes.js:Shape',
        'method:src/shapes.js:Square.constructor -MUTATES-> attr:src/shapes.js:Square.#side',
        // `{ add as plus }`
        'method:src/shapes.js:Square.grow -CALLS-> func:src/math.mjs:add',
        'method:src/shapes.js:Square.grow -CALLS-> method:src/shapes.js:Square.area',
        'method:src/shapes.js:Square.grow -MUTATES-> attr:src/shapes.js:Square.#side',
        'method:src/shapes.js:registry.square -CALLS-> method:src/shapes.js:Square.constructor',
        'module:src/main.js:main -IMPORTS-> class:src/shapes.js:Shape',
        'module:src/main.js:main -IMPORTS-> global:src/shapes.js:registry',
        'module:src/shapes.js:shapes -IMPORTS-> func:src/math.mjs:add',
        'module:src/shapes.js:shapes -IMPORTS-> func:src/math.mjs:multiply',
      ].sort(),
    );
  });
});
