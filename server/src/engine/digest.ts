// A short content digest, for telling whether text changed (not for security): the graph's
// resolution contexts and the project files an index was built from.
import { createHash } from 'node:crypto';

export function digest(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}
