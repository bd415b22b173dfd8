// One workspace's search: the streams it is made of (lexical, with the common words' scores a
// server keeps; exact names; the signals of reports; the vector streams as they come), put
// together on first use, and the answer the faces get, cut to a budget and saying which vector
// streams were not complete yet.
import type { SearchParams, SearchResponse } from '../../../../protocol';
import { fitSearch } from '../budget/lists';
import { checkMaxTokens } from '../budget/measure';
import type { EmbeddingService } from '../embed/service';
import type { Cancellation } from '../graph/cooperative';
import type { Db } from '../store/db';
import { FtsIndex } from '../store/fts';
import type { Store } from '../store/store';
import { testMatcher } from '../testcode';
import { CommonTermScores } from './common-terms';
import { ExactNameStream } from './exact';
import { LexicalStream } from './lexical';
import { SearchService, type DetailedSearch, type SearchOptions } from './service';
import { SignalStream } from './signals';

export class WorkspaceSearch {
  private service_: SearchService | null = null;
  /** The lexical stream's scores of common words (./common-terms.ts), made with the service. */
  private commonTerms: CommonTermScores | null = null;

  constructor(
    private readonly db: Db,
    private readonly store: Store,
    /** The engine's vector service, which the engine makes on first use. */
    private readonly embeddings: () => EmbeddingService,
    /** A one-shot command's engine: it keeps no scores between searches. */
    private readonly lazy: boolean,
    /** `.nsccn.json`'s globs of test code (ranked after the rest), read when the streams are made. */
    private readonly testGlobs: string[] | undefined,
    /** Throws when the engine is closed. */
    private readonly assertOpen: () => void,
  ) {}

  /** Search over every stream (made on first use). */
  private get service(): SearchService {
    if (!this.service_) {
      const fts = new FtsIndex(this.db);
      // Kept scores pay from the second search on: a one-shot command (lazy) asks FTS5 alone,
      // which also spares it the vocabulary reads that decide which words are common.
      this.commonTerms = this.lazy ? null : new CommonTermScores(fts, this.store, true);
      const lexical = new LexicalStream(fts, this.commonTerms);
      const exact = new ExactNameStream(this.store);
      const isTest = testMatcher(this.testGlobs);
      const signals = new SignalStream(this.store, fts, isTest);
      this.service_ = new SearchService(this.store, () => [lexical, exact, signals, ...this.embeddings().streams()], isTest, signals);
    }
    return this.service_;
  }

  /** Makes the streams now: a server's lexical stream then reads its common words' scores once the index is quiet. */
  prepare(): void {
    void this.service;
  }

  /** `cancel`: a caller that may give up (the language server's request token); checked between stages. */
  async search(params: SearchParams, cancel?: Cancellation): Promise<SearchResponse> {
    const embeddings = this.embeddings();
    embeddings.start(); // a lazy engine's vector streams start with its first search
    const maxTokens = checkMaxTokens(params.maxTokens);
    const { results, streams, files, queryCut } = await this.detailed(params, cancel);
    const r: SearchResponse = { results, streams, ...(files ? { files } : {}), ...(queryCut ? { queryCut } : {}) };
    const incomplete = embeddings.incompleteStreams();
    if (incomplete.length) r.incomplete = incomplete;
    return maxTokens === undefined ? r : fitSearch(r, maxTokens);
  }

  /** Search with each stream's own ranking (for the eval). */
  detailed(params: SearchParams, cancel?: Cancellation, options?: SearchOptions): Promise<DetailedSearch> {
    this.assertOpen();
    return this.service.search(params, cancel, options);
  }

  /** Reads the lexical stream's common words now (what a server does after a quiet spell). */
  async warm(): Promise<void> {
    this.assertOpen();
    void this.service;
    await this.commonTerms?.warm();
  }

  streamNames(): string[] {
    return this.service.streamNames();
  }

  /** Stops the background reads of common words (made or not). */
  dispose(): void {
    this.commonTerms?.dispose();
  }
}
