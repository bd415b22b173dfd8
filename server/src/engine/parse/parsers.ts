// Tree-sitter loading. One `Parsers` per thread: each grammar is loaded once and one Parser per
// language is reused for every file.
//
// A WASM abort (tree-sitter out of its 2 GB heap on a huge file) kills the whole web-tree-sitter
// instance: every later parse would fail too. So `Parsers` keeps a spare instance, loaded in
// advance with the same grammars, and switches to it after an abort (loading the next spare in
// the background). Trees made by the dead instance must not be used again.
import { createRequire } from 'node:module';
import type { Language, Parser, Tree } from 'web-tree-sitter';
import type { Grammar, LanguageSupport } from '../languages/types';
import { flatCursors } from './flat-cursor';
import { copySyntax, LanguageTables } from './syntax-copy';

type Binding = typeof import('web-tree-sitter');

interface Instance {
  binding: Binding;
  /** The Emscripten module object (web-tree-sitter's init fills the options object it is given). */
  module: Record<string, unknown>;
  loaded: Map<string, Loaded>;
}

interface Loaded {
  parser: Parser;
  language: Language;
  grammar: Grammar;
}

export interface ParsersOptions {
  /** Cap of each instance's WASM heap in bytes, at least 32 MB (default: web-tree-sitter's 2 GB). */
  maxHeapBytes?: number;
  /**
   * `background`: `load` returns once the first instance is ready and the spare loads after it
   * (half the start-up; an abort in that window fails parses with a clear error until the spare
   * is ready, as after a second abort). Default `eager`: `load` waits for both.
   */
  spare?: 'eager' | 'background';
}

// The WebAssembly global, typed here (the project's lib settings do not declare it).
const wasm = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error; Memory: new (d: { initial: number; maximum: number }) => unknown } }).WebAssembly;

/** The error a parse or an extraction throws when tree-sitter aborted on its input. */
export class ParserAborted extends Error {}

/** A parse asked of a Parsers whose `load` was never called (a lazy engine: load, then ask again). */
export class GrammarsNotLoaded extends Error {}

export class Parsers {
  private current: Instance | null = null;
  /** Ready before it is needed: switching to it after an abort is synchronous. */
  private spare: Instance | null = null;
  private langs: readonly LanguageSupport[] = [];
  private restarting: Promise<void> = Promise.resolve();
  /** Aborts survived so far (the next instance is used after each). */
  aborts = 0;

  constructor(private readonly opts: ParsersOptions = {}) {}

  /** Loads the grammars of these languages; must be awaited before `parse`. */
  async load(langs: readonly LanguageSupport[]): Promise<void> {
    this.langs = [...new Set([...this.langs, ...langs])];
    this.current = await this.instance(this.current);
    if (this.opts.spare !== 'background') {
      this.spare = await this.instance(null);
      return;
    }
    // After the spare being loaded, if any: the next one adds these languages to it.
    this.restarting = this.restarting.then(() => this.instance(this.spare)).then(
      (inst) => {
        if (this.current) this.spare = inst;
        else this.current = inst; // an abort came first: the spare is the instance now
      },
      () => {
        /* no spare: an abort makes parses fail with a clear message, as after a second one */
      },
    );
  }

  /** True once `load` was asked for this language's grammar. */
  wants(lang: LanguageSupport): boolean {
    return this.langs.includes(lang);
  }

  get(lang: LanguageSupport): Loaded {
    const p = this.current?.loaded.get(lang.id);
    if (p) return p;
    // Not loaded, or still loading (a server's first requests come while its grammars load in
    // the background): the caller loads or waits (`GrammarLoader.load`) and asks again. Only an
    // abort with no spare ready leaves no instance at all.
    if (this.current || this.aborts === 0) throw new GrammarsNotLoaded(`the ${lang.id} grammar is not loaded yet`);
    throw new Error('tree-sitter is restarting after an abort; try again');
  }

  parse(lang: LanguageSupport, text: string, old?: Tree): Tree {
    return this.guard(() => {
      const tree = this.get(lang).parser.parse(text, old ?? null);
      if (!tree) throw new Error(`tree-sitter returned no tree for a ${lang.id} file`);
      return tree;
    });
  }

  /**
   * Runs tree-sitter work (a parse, queries over a tree); an abort inside it switches to the
   * spare instance and is rethrown as ParserAborted.
   */
  guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof wasm.RuntimeError) && !/^Aborted\(/.test((e as Error)?.message ?? '')) throw e;
      this.recover();
      throw new ParserAborted(`tree-sitter aborted (${(e as Error).message.split('.')[0]}); the parser was restarted`);
    }
  }

  private recover(): void {
    this.aborts++;
    // The package frees its objects from FinalizationRegistry callbacks; into a dead instance
    // each would abort again, uncaught. Make its exports no-ops so the garbage goes quietly.
    const dead = this.current?.module;
    if (dead) for (const k of Object.keys(dead)) if (k.startsWith('_') && typeof dead[k] === 'function') dead[k] = () => 0;
    this.current = this.spare;
    this.spare = null;
    // The next spare loads in the background; a second abort before it is ready makes parses
    // fail with a clear message until it is (see get()).
    this.restarting = this.instance(null).then(
      (inst) => {
        if (this.current) this.spare = inst;
        else this.current = inst;
      },
      () => {
        /* tree-sitter could not be loaded again: parses keep saying so */
      },
    );
  }

  /** Resolves once a spare instance is ready again after an abort. */
  ready(): Promise<void> {
    return this.restarting;
  }

  /** A new web-tree-sitter instance (own WASM memory) with every grammar loaded. */
  private async instance(prev: Instance | null): Promise<Instance> {
    let binding = prev?.binding;
    let module = prev?.module ?? {};
    if (!binding) {
      // A fresh evaluation of the module is a fresh WASM instance (the package keeps one per
      // module). Nothing but this instance may keep it: not the require cache, not a parent
      // module's children (a throwaway require), or a dead instance would never be freed.
      const load = createRequire(__filename);
      const id = load.resolve('web-tree-sitter');
      delete load.cache[id];
      binding = load(id) as Binding;
      delete load.cache[id];
      const max = this.opts.maxHeapBytes;
      // Quiet: an abort is reported once, as a reason on the file, not printed on stderr.
      module = { printErr: () => {}, ...(max ? { wasmMemory: new wasm.Memory({ initial: 512, maximum: Math.max(512, max >> 16) }) } : {}) };
      await binding.Parser.init(module);
    }
    const loaded = prev?.loaded ?? new Map<string, Loaded>();
    const cursor = flatCursors(module);
    for (const lang of this.langs) {
      if (loaded.has(lang.id)) continue;
      const language = await binding.Language.load(lang.wasmPath());
      const parser = new binding.Parser();
      parser.setLanguage(language);
      const queries = new Map<string, InstanceType<Binding['Query']>>();
      const Query = binding.Query;
      const tables = new LanguageTables(language);
      const grammar: Grammar = {
        copy: (node, source, filter) => copySyntax(node, cursor(node), source, tables, filter),
        language,
        query: (source) => {
          let q = queries.get(source);
          if (!q) queries.set(source, (q = new Query(language, source)));
          return q;
        },
      };
      loaded.set(lang.id, { parser, language, grammar });
    }
    return { binding, module, loaded };
  }
}
