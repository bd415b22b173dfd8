// Tree-sitter loading. One `Parsers` per thread: web-tree-sitter is initialised once, each
// grammar is loaded on first use, and one Parser per language is reused for every file.
import { Language, Parser, type Tree } from 'web-tree-sitter';
import type { LanguageSupport } from '../languages/types';

export class Parsers {
  private static init: Promise<void> | null = null;
  private readonly loaded = new Map<string, { parser: Parser; language: Language }>();

  /** Loads the grammars of these languages; must be awaited before `parse`. */
  async load(langs: readonly LanguageSupport[]): Promise<void> {
    Parsers.init ??= Parser.init();
    await Parsers.init;
    for (const lang of langs) {
      if (this.loaded.has(lang.id)) continue;
      const language = await Language.load(lang.wasmPath());
      const parser = new Parser();
      parser.setLanguage(language);
      this.loaded.set(lang.id, { parser, language });
    }
  }

  get(lang: LanguageSupport): { parser: Parser; language: Language } {
    const p = this.loaded.get(lang.id);
    if (!p) throw new Error(`grammar for ${lang.id} is not loaded`);
    return p;
  }

  parse(lang: LanguageSupport, text: string, old?: Tree): Tree {
    const tree = this.get(lang).parser.parse(text, old ?? null);
    if (!tree) throw new Error(`tree-sitter returned no tree for a ${lang.id} file`);
    return tree;
  }
}
