// How TypeScript/JavaScript files map to module names, what the languages bind themselves, and
// the shapes of code that read configuration or mutate. Data, not logic.
import type { ProjectFiles } from '../types';
import { ProjectResolver } from './project';

/** Extensions a specifier may name or leave out; `.js` in a TS import names the `.ts` file. */
const CODE_EXT = /(\.d)?\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

/**
 * Module name of a file: its path without the extension, an `index` file named by its
 * directory (`src/models/index.ts` → `src/models`), so `./models` finds either layout. Paths
 * keep their `/`: a TS module name never looks like a dotted Python one.
 */
export function moduleName(file: string): string | null {
  if (!CODE_EXT.test(file)) return null;
  return normalize(file.replace(CODE_EXT, ''));
}

function normalize(path: string): string {
  const p = path.replace(/(^|\/)index$/, '');
  return p === '' ? 'index' : p;
}

/**
 * One resolver per workspace's project files: it caches directory listings and parsed configs
 * for as long as the graph that owns `project` lives (a cache keyed by that object, not state).
 */
const resolvers = new WeakMap<ProjectFiles, ProjectResolver>();

/**
 * Absolute module of a specifier in `fromFile`: `../lib/x.js` in `src/a.ts` → `lib/x`; a bare
 * specifier mapped by tsconfig `paths`/`baseUrl` or naming a workspace package → that file's
 * module; other bare specifiers (`react`) as written; null if it climbs above the root.
 */
export function absoluteModule(spec: string, fromFile: string, project?: ProjectFiles): string | null {
  if (!spec.startsWith('.')) {
    if (!project) return spec;
    let r = resolvers.get(project);
    if (!r) resolvers.set(project, (r = new ProjectResolver(project)));
    return r.resolve(spec, fromFile) ?? spec;
  }
  const parts = fromFile.split('/').slice(0, -1);
  for (const seg of spec.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (!parts.length) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return normalize(parts.join('/').replace(CODE_EXT, ''));
}

/**
 * The files whose bare imports were answered by whether one of `paths` exists (a path alias or
 * a workspace package's entry that finds a file now, or no longer): see ProjectResolver.
 */
export function importersDecidedBy(paths: readonly string[], project?: ProjectFiles): Set<string> {
  return (project && resolvers.get(project)?.importersDecidedBy(paths)) || new Set();
}

/** A specifier naming the file itself (self-bindings: `export default X`, `module.exports = X`). */
export function selfSpecifier(file: string): string {
  return './' + file.slice(file.lastIndexOf('/') + 1);
}

export { MODULE_VALUE } from '../types';

/** Names the runtime binds (never guessed as workspace functions, never config constants). */
export const BUILTINS: ReadonlySet<string> = new Set(
  (
    'Array Object String Number Boolean Symbol BigInt Function Promise Map Set WeakMap WeakSet Date RegExp Error ' +
    'TypeError RangeError SyntaxError ReferenceError EvalError URIError AggregateError JSON Math Reflect Proxy ' +
    'Intl URL URLSearchParams TextEncoder TextDecoder Buffer console process require module exports globalThis ' +
    'window document setTimeout clearTimeout setInterval clearInterval setImmediate queueMicrotask fetch ' +
    'parseInt parseFloat isNaN isFinite encodeURIComponent decodeURIComponent structuredClone NaN Infinity undefined ' +
    'ArrayBuffer DataView Uint8Array Int32Array Float64Array AbortController Event EventTarget'
  ).split(' '),
);

/** Builtin errors and their builtin base, for caught-or-escaping. */
export const EXCEPTION_BASES: Readonly<Record<string, string>> = {
  TypeError: 'Error',
  RangeError: 'Error',
  SyntaxError: 'Error',
  ReferenceError: 'Error',
  EvalError: 'Error',
  URIError: 'Error',
  AggregateError: 'Error',
};

/** Methods that change the container they are called on. */
export const MUTATORS: ReadonlySet<string> = new Set([
  'push', 'pop', 'shift', 'unshift', 'splice', 'sort', 'reverse', 'fill', 'copyWithin', 'set', 'delete', 'clear', 'add',
]);

/** ALL_CAPS constants (at least two characters). */
export const CONSTANT = /^_?[A-Z][A-Z0-9_]+$/;
/** File names whose literal mention in a call is a configuration read. */
export const CONFIG_FILE = /^[\w./\\-]+\.(ini|json|ya?ml|toml|cfg|conf|env)$|(^|\/)\.env(\.\w+)?$/i;

/** Member modifiers kept with the decorators: `get` makes a property getter. */
export function isPropertyGetter(decorators: readonly string[]): boolean {
  return decorators.includes('get');
}

/** Members of every function that call it with a `this` of the caller's choosing (`f.call(self, x)`). */
export const INVOKERS: ReadonlySet<string> = new Set(['call', 'apply']);
