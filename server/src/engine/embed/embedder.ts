// What the embedding service needs from an embedder, whatever computes the vectors (a
// transformer in a worker thread, or the static code-embedding table).

/** Queries and documents may be embedded differently (some models want a query instruction). */
export type EmbedRole = 'document' | 'query';

export interface Embedder {
  /** Identifies the vectors: a different id means stored vectors must be recomputed. */
  readonly id: string;
  readonly dims: number;
  /** Unit-length vectors, one per text, in order. */
  embed(texts: string[], role?: EmbedRole): Promise<Float32Array[]>;
  /** Told when the service has nothing left to embed: let go of what only a fill needs. */
  settled?(): void;
}
