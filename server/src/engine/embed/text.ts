// The text an entity is embedded from: a header saying where and what it is, its signature, its
// docstring and the significant words of its body — what a reader skims to know what the code
// does. Capped near 256 model tokens: longer inputs cost time (attention is quadratic) and add
// little for retrieval, since the header and docstring carry most of the meaning.
import { splitIdentifier } from '../store/words';
import type { EmbeddableEntity } from '../store/vectors';

/** ~4 characters per token for code and English under BPE/WordPiece vocabularies. */
export const MAX_EMBED_CHARS = 1024;
const MAX_DOC_CHARS = 600;

type EntityText = Pick<EmbeddableEntity, 'kind' | 'name' | 'qname' | 'path' | 'signature' | 'docstring' | 'body'>;

export function embeddingText(e: EntityText): string {
  const words = splitIdentifier(e.qname);
  const header = `${e.path} ${e.kind} ${e.qname}${words && words !== e.qname.toLowerCase() ? ` (${words})` : ''}`;
  const parts = [header];
  if (e.signature && e.kind !== 'module') parts.push(e.signature);
  if (e.docstring) parts.push(clip(e.docstring.replace(/\s+/g, ' ').trim(), MAX_DOC_CHARS));
  if (e.body) parts.push(e.body);
  return clip(parts.join('\n'), MAX_EMBED_CHARS);
}

/** Cuts at a word boundary at or before `max` characters. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max);
  return text.slice(0, cut > max * 0.8 ? cut : max);
}
