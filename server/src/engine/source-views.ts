// Views of source text, cut to a token budget when asked: a file's skeleton (the Orient step) and
// an entity's window (the Examine step). The text is the open buffer's, else the disk's.
import type { DocsLevel, Skeleton, Window } from '../../../protocol';
import { DEFAULT_DOCS_LEVEL, DOCS_LEVELS, DOTTED_MODULE_NAME, ErrorCodes, WINDOW_MAX_CONTEXT } from '../../../protocol';
import { fitWindow } from './budget/lists';
import { checkMaxTokens } from './budget/measure';
import { fitSkeleton } from './budget/skeleton';
import { EngineError } from './errors';
import type { GraphQueries } from './graph-queries';
import { LANGUAGES, languageForPath } from './languages/registry';
import type { SkeletonOptions } from './languages/types';
import type { GrammarLoader } from './parse/grammar-loader';
import { GrammarsNotLoaded, type Parsers } from './parse/parsers';
import { skeletonOf } from './skeleton/service';
import type { Store } from './store/store';
import { sourceWindow } from './window';
import type { Buffers } from './workspace/buffers';
import type { WorkspacePaths } from './workspace/workspace-paths';

/** A skeleton request: the language's options, and a token budget the answer must fit. */
export interface SkeletonRequest extends SkeletonOptions {
  maxTokens?: number;
}

export class SourceViews {
  constructor(
    private readonly store: Store,
    private readonly parsers: Parsers,
    private readonly grammars: GrammarLoader,
    /** Open buffers: their parse trees spare a parse. */
    private readonly docs: Buffers,
    private readonly paths: WorkspacePaths,
    private readonly queries: GraphQueries,
    /** Throws when the engine is closed. */
    private readonly assertOpen: () => void,
  ) {}

  skeleton(file: string, opts: SkeletonRequest = {}): Skeleton {
    this.assertOpen();
    const docs = opts.docs ?? DEFAULT_DOCS_LEVEL;
    if (!DOCS_LEVELS.includes(docs)) throw new EngineError(ErrorCodes.InvalidParams, `docs must be one of ${DOCS_LEVELS.join(', ')}, got ${JSON.stringify(opts.docs)}`);
    const maxTokens = checkMaxTokens(opts.maxTokens);
    let rel = this.paths.relativePath(file);
    let lang = languageForPath(rel);
    // A module by its dotted name (`flask.app`), as imports and tracebacks write it.
    const module = lang ? null : this.queries.moduleFile(rel);
    if (module) [rel, lang] = [module, languageForPath(module)];
    if (!lang && DOTTED_MODULE_NAME.test(rel)) throw new EngineError(ErrorCodes.NotIndexed, `${rel} is neither a file NSCCN reads nor the dotted name of a module in the index`);
    if (!lang) throw new EngineError(ErrorCodes.NotIndexed, `${rel} is not in a language NSCCN reads`);
    const text = this.paths.fileText(rel);
    const make = (level: DocsLevel) => skeletonOf(this.store, this.parsers, lang, rel, text, this.docs.get(rel)?.tree, level);
    return maxTokens === undefined ? make(docs) : fitSkeleton(make, docs, maxTokens);
  }

  /**
   * `skeleton` for a lazy engine: answered from the cached skeleton when the file is as indexed,
   * else the grammars are loaded first and the file is parsed.
   */
  async skeletonLoading(file: string, opts: SkeletonRequest = {}): Promise<Skeleton> {
    try {
      return this.skeleton(file, opts);
    } catch (e) {
      if (!(e instanceof GrammarsNotLoaded)) throw e;
    }
    const rel = this.paths.relativePath(file);
    const lang = languageForPath(this.queries.moduleFile(rel) ?? rel);
    await this.grammars.load(lang ? [lang] : LANGUAGES);
    return this.skeleton(file, opts);
  }

  window(id: string, contextLines?: number, maxTokens?: number): Window {
    this.assertOpen();
    const budget = checkMaxTokens(maxTokens);
    if (contextLines !== undefined && (!Number.isInteger(contextLines) || contextLines < 0 || contextLines > WINDOW_MAX_CONTEXT)) {
      throw new EngineError(ErrorCodes.InvalidParams, `contextLines must be an integer from 0 to ${WINDOW_MAX_CONTEXT}, got ${JSON.stringify(contextLines)}`);
    }
    const e = this.queries.entity(id);
    if (!e.file) throw new EngineError(ErrorCodes.InvalidParams, `${id} is a ${e.kind}, not code: it has no source window`);
    const w = sourceWindow(e, this.paths.fileText(e.file), contextLines);
    return budget === undefined ? w : fitWindow(w, budget);
  }
}
