// Content digests, for telling whether text changed (not for security): the graph's resolution
// contexts, the project files an index was built from, files, entities, skeletons.
//
// node:crypto is loaded on the first digest: it costs ~5 ms to load, and a query on an index
// that is up to date hashes nothing.
type Crypto = typeof import('node:crypto');
let crypto: Crypto | undefined;

export function nodeCrypto(): Crypto {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (crypto ??= require('node:crypto') as Crypto);
}

export function digest(text: string): string {
  return nodeCrypto().createHash('sha1').update(text).digest('base64');
}
