// What the embedding service needs from an embedder, whatever computes the vectors (a
// transformer in a worker thread, or the static code-embedding table).

/** Queries and documents may be embedded differently (some models want a query instruction). */
export type EmbedRole = 'document' | 'query';

export interface UnreadWords {
  unread: string[];
  readWeight: number;
  unreadWeight: number;
}

export interface Embedder {
  /** Identifies the vectors: a different id means stored vectors must be recomputed. */
  readonly id: string;
  readonly dims: number;
  /** Unit-length vectors, one per text, in order. */
  embed(texts: string[], role?: EmbedRole): Promise<Float32Array[]>;
  /** Told when the service has nothing left to embed: let go of what only a fill needs. */
  settled?(): void;
  /**
   * The words of a query the embedder cannot read (lower case, as the lexical index spells
   * them; a table has no row for a project's own words), how much the words it reads weigh
   * together, and what one unread word should weigh beside them.
   */
  unread?(text: string): UnreadWords;
}
