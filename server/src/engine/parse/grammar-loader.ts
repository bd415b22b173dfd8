// An engine's loads of tree-sitter grammars into its Parsers: one after another, each language
// asked for once, and a failed load asked for again by the next caller. A server loads them all
// at start; a lazy engine those of the files it must parse.
import { LANGUAGES } from '../languages/registry';
import type { LanguageSupport } from '../languages/types';
import type { Parsers } from './parsers';

export class GrammarLoader {
  /** The loads so far, chained: a new one starts when the last is over. */
  private loading: Promise<void> = Promise.resolve();
  /** Ids of the languages asked for so far (a failed load takes its own back out). */
  private readonly asked = new Set<string>();
  private allLoaded = false;

  constructor(
    private readonly parsers: Parsers,
    /** The engine's start-up steps, in milliseconds: loading time is added to `grammars`. */
    private readonly steps: Record<string, number>,
  ) {}

  /** Every language's grammar is loaded. */
  get ready(): boolean {
    return this.allLoaded;
  }

  /** Loads the grammars of these languages (default: all); idempotent. */
  load(langs: readonly LanguageSupport[] = LANGUAGES): Promise<void> {
    const missing = langs.filter((l) => !this.asked.has(l.id));
    if (!missing.length) return this.loading;
    for (const l of missing) this.asked.add(l.id);
    const t = performance.now();
    const load = this.loading
      .catch(() => undefined)
      .then(() => this.parsers.load(missing))
      .then(() => {
        this.steps.grammars = (this.steps.grammars ?? 0) + performance.now() - t;
        this.allLoaded = LANGUAGES.every((l) => this.asked.has(l.id));
      });
    // A failed load is tried again by the next caller.
    load.catch(() => missing.forEach((l) => this.asked.delete(l.id)));
    this.loading = load;
    return load;
  }

  /** Null once every grammar is loaded; else their loading. */
  pending(): Promise<void> | null {
    return this.allLoaded ? null : this.load();
  }
}
