// TypeScript, TSX and JavaScript: one extractor and skeleton over three grammars, registered as
// three languages in ../registry.ts. One folder because the three share every rule that matters
// (modules, classes, calls, CommonJS/ES interop) and the grammars share their node types; the
// registrations differ only in grammar, extensions and the queries a grammar can compile
// (typed.scm names TypeScript-only nodes, jsx.scm JSX ones). They are one family: they import each other.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Grammar, LanguageSupport } from '../types';
import { TsExtractor } from './extract';
import { absoluteModule, BUILTINS, EXCEPTION_BASES, importersDecidedBy, isPropertyGetter, moduleName } from './names';
import { projectFileView } from './project';
import { skeletonTypescript } from './skeleton';

/** The .scm files sit next to the sources; compiled code runs from dist/, which mirrors them. */
function readQuery(name: string): string {
  const here = path.join(__dirname, 'queries', name);
  const src = path.join(__dirname.replace(`${path.sep}dist${path.sep}`, path.sep), 'queries', name);
  return fs.readFileSync(fs.existsSync(here) ? here : src, 'utf8');
}

function support(id: string, extensions: string[], wasm: string, queryFiles: string[]): LanguageSupport {
  // The grammar compiles (and keeps) the query in its own tree-sitter instance.
  let text: string | null = null;
  const queryFor = (grammar: Grammar) => grammar.query((text ??= queryFiles.map(readQuery).join('\n')));
  return {
    id,
    family: 'ecmascript',
    extensions,
    wasmPath: () => require.resolve(wasm),
    extract: (tree, source, file, grammar) => new TsExtractor(source, file).run(tree, queryFor(grammar), id),
    skeleton: skeletonTypescript,
    moduleName,
    absoluteModule,
    importersDecidedBy,
    projectFileView,
    builtins: BUILTINS,
    exceptionBases: EXCEPTION_BASES,
    constructorName: 'constructor',
    isDeclarationFile: (file) => /\.d\.[cm]?ts$/.test(file),
    isPropertyGetter,
    sameModuleRank,
  };
}

/** Declarations (`.d.ts`), TypeScript sources, JavaScript: what each kind of file imports first. */
const FLAVOUR_ORDER: Record<string, string[]> = { decl: ['decl', 'ts', 'js'], ts: ['ts', 'decl', 'js'], js: ['js', 'ts', 'decl'] };

function flavour(file: string): { kind: string; ext: string; family: string } {
  const ext = /(\.d)?\.[cm]?[jt]sx?$/.exec(file)?.[0] ?? '';
  const family = /^(\.d)?\.([cm]?)/.exec(ext)?.[2] ?? '';
  return { kind: ext.startsWith('.d.') ? 'decl' : /^\.[cm]?ts/.test(ext) ? 'ts' : 'js', ext, family };
}

/**
 * A TypeScript source compiled in place (`x.ts`, `x.js`, `x.d.ts`), a package's dual build
 * (`x.cjs`, `x.mjs`, `x.d.cts`): the importer's own kind first, then the rest in
 * FLAVOUR_ORDER; within a kind, the importer's own extension (`.cjs` from a `.cjs`) first, then
 * its module family (`.js` from a `.ts`, `.mjs` from a `.mts`: what TypeScript maps an import
 * to), then the others.
 */
function sameModuleRank(importer: string, file: string): number {
  const from = flavour(importer);
  const to = flavour(file);
  return 3 * FLAVOUR_ORDER[from.kind].indexOf(to.kind) + (to.ext === from.ext ? 0 : to.family === from.family ? 1 : 2);
}

export const typescript = support('typescript', ['.ts', '.mts', '.cts'], 'tree-sitter-typescript/tree-sitter-typescript.wasm', ['common.scm', 'typed.scm']);
export const tsx = support('tsx', ['.tsx'], 'tree-sitter-typescript/tree-sitter-tsx.wasm', ['common.scm', 'typed.scm', 'jsx.scm']);
export const javascript = support('javascript', ['.js', '.jsx', '.mjs', '.cjs'], 'tree-sitter-javascript/tree-sitter-javascript.wasm', ['common.scm', 'untyped.scm', 'jsx.scm']);
