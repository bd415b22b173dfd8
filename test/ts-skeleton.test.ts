// TypeScript/JavaScript skeletons (fixtures/typescript, fixtures/javascript/esm): JSDoc kept,
// signatures with their types, overloads, interfaces, type aliases and enums whole, bodies
// elided, every entity pointed at its skeleton line.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { openWorkspace, type TestWorkspace } from './helpers/workspace';

let ws: TestWorkspace;
beforeAll(async () => {
  ws = await openWorkspace('typescript');
});
afterAll(() => ws.dispose());

test('a class with overloads, a getter, an enum and a type alias', () => {
  const sk = ws.engine.skeleton('src/models/user.ts');
  expect(sk.text).toBe(
    [
      "import { Model } from './base';",
      'export type UserId = string;',
      'export enum Role {',
      '  Admin,',
      '  Member,',
      '}',
      '/** A customer account. */',
      'export class User extends Model {',
      '  role: Role = Role.Member',
      '  constructor(public email: string) { … }',
      '  get display(): string { … }',
      '  rename(email: string): void',
      '  rename(email: string, notify: boolean): void',
      '  rename(email: string, notify = false): void { … }',
      '}',
      'export default User;',
      '',
    ].join('\n'),
  );
  const line = (id: string) => sk.entities.find((e) => e.id === id)?.skeletonLine;
  expect(line('class:src/models/user.ts:User')).toBe(8);
  expect(line('method:src/models/user.ts:User.display')).toBe(11);
  expect(line('method:src/models/user.ts:User.rename')).toBe(12); // its first signature
  expect(line('enum:src/models/user.ts:Role')).toBe(3);
  expect(sk.skeletonTokens).toBeLessThan(sk.originalTokens);
});

test('interfaces stay whole, JSX bodies and arrow bodies are elided', () => {
  const sk = ws.engine.skeleton('src/ui/CartView.tsx');
  expect(sk.text).toBe(
    [
      "import { Cart } from '../services/checkout';",
      'interface Props {',
      '  cart: Cart;',
      '}',
      '/** Lists the items of a cart, with a button that adds one more. */',
      'export function CartView({ cart }: Props) { … }',
      'export function CartSummary(props: Props) { … }',
      'const Item = ({ sku }: { sku: string }) => …',
      'function nextSku(): string { … }',
      'function formatSku(sku: string): string { … }',
      '',
    ].join('\n'),
  );
});

test('JSDoc at each docs level: whole, its first sentence, or not at all', async () => {
  const js = await openWorkspace('javascript');
  try {
    const at = (docs: 'full' | 'first-line' | 'none') => js.engine.skeleton('cjs/lib/store.js', { docs }).text;
    expect(at('full')).toContain('/**\n * Adds rows to a store.\n *\n * @param {Store} store\n */');
    expect(at('first-line')).toContain('/** Adds rows to a store. ... */');
    expect(at('first-line')).not.toContain('@param');
    expect(at('none')).not.toContain('Adds rows');
  } finally {
    await js.dispose();
  }
});

test("a file's opening comment says what it is for, at the docs level; a JSDoc there stays its declaration's", () => {
  ws.write(
    'src/tools/cli.ts',
    [
      '#!/usr/bin/env node',
      '// Command-line entry: parses the arguments and runs one command. Exits',
      '// non-zero when the command fails.',
      '',
      "import { User } from '../models/user';",
      'export function main(argv: string[]): number {',
      '  return argv.length;',
      '}',
      '',
    ].join('\n'),
  );
  ws.write('src/tools/block.ts', ['/*', ' * Sums of numbers.', ' * Nothing else.', ' */', 'export const zero = 0;', ''].join('\n'));
  ws.write('src/tools/doc.ts', ['/** The answer. */', 'export const answer = 42;', ''].join('\n'));
  const text = (file: string, docs: 'full' | 'first-line' | 'none') => ws.engine.skeleton(file, { docs }).text.split('\n');
  expect(text('src/tools/cli.ts', 'first-line').slice(0, 2)).toEqual(['// Command-line entry: parses the arguments and runs one command. ...', "import { User } from '../models/user';"]);
  expect(text('src/tools/cli.ts', 'full').slice(0, 3)).toEqual(['// Command-line entry: parses the arguments and runs one command. Exits', '// non-zero when the command fails.', "import { User } from '../models/user';"]);
  expect(text('src/tools/cli.ts', 'none')[0]).toBe("import { User } from '../models/user';");
  expect(text('src/tools/block.ts', 'first-line')[0]).toBe('// Sums of numbers. ...');
  expect(text('src/tools/block.ts', 'full').slice(0, 4)).toEqual(['/*', ' * Sums of numbers.', ' * Nothing else.', ' */']);
  expect(text('src/tools/doc.ts', 'first-line').slice(0, 2)).toEqual(['/** The answer. */', 'export const answer = 42']);
  // The module entity points at the first line, the function at its own.
  const sk = ws.engine.skeleton('src/tools/cli.ts');
  expect(sk.entities.find((e) => e.id === 'func:src/tools/cli.ts:main')?.skeletonLine).toBe(3);
});

test('functions assigned to members (a prototype, an app object, CommonJS exports) are signatures too', () => {
  ws.write(
    'src/legacy/app.js',
    [
      'var app = exports = module.exports = {};',
      '',
      '/** Initialize the server. */',
      'app.init = function init() {',
      '  this.cache = {};',
      '};',
      '',
      'function Router(options) {',
      '  this.stack = [];',
      '}',
      '',
      'Router.prototype.handle = function handle(req, res) {',
      '  return this.stack.length;',
      '};',
      '',
      'app.size = 3;',
      '',
    ].join('\n'),
  );
  const sk = ws.engine.skeleton('src/legacy/app.js');
  expect(sk.text).toBe(
    [
      'var app = exports = module.exports = {}',
      '/** Initialize the server. */',
      'app.init = function init() { … }',
      'function Router(options) { … }',
      'Router.prototype.handle = function handle(req, res) { … }',
      '',
    ].join('\n'),
  );
  // (A prototype's function is shown; the graph does not make it a method of `Router` yet.)
  expect(sk.entities.find((e) => e.id === 'func:src/legacy/app.js:init')?.skeletonLine).toBe(3);
});
