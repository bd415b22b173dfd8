// Message-like string literals: the text a user sees when code raises, warns or logs, kept per
// entity so that a bug report quoting an error message finds the code that spells it out.
// Language-neutral: each extractor hands over a literal's raw content (quotes stripped, value
// slots of an f-string or template already blanked); this decides what is worth keeping.

/** A literal's kept text, at most (a usage blob or an embedded template is not a message). */
export const MAX_LITERAL_CHARS = 200;
/** All of an entity's literals together, at most. */
export const MAX_LITERALS_CHARS = 600;

// printf slots (`%s`, `%(name)r`, `%-8.3f`), format fields (`{}`, `{0!r}`, `{name:>8}`) and
// escapes: values, not words. A slot becomes a space, so the words around it stay apart.
const PRINTF = /%(?:\([^)]*\))?[-#0+]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[diouxXeEfFgGcrsa%]/g;
const FIELD = /\$?\{[^{}]*\}/g;
const ESCAPE = /\\(?:[nrtvfab0\\'"]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})/g;

/**
 * The message a literal spells out, or null when it is not one: fewer than three words of
 * letters (keys, encodings, paths, single words say nothing a name does not).
 */
export function messageText(raw: string): string | null {
  // Three words of two letters and two spaces: most literals (keys, encodings) are shorter, and
  // blanking only shortens a text.
  if (raw.length < 8) return null;
  const t = raw.replace(ESCAPE, ' ').replace(PRINTF, ' ').replace(FIELD, ' ').replace(/\s+/g, ' ').trim();
  let words = 0;
  for (const _ of t.matchAll(/[A-Za-z]{2,}/g)) if (++words === 3) break;
  if (words < 3) return null;
  return t.length > MAX_LITERAL_CHARS ? t.slice(0, MAX_LITERAL_CHARS) : t;
}

/** Adds a literal's message to `into` while the entity has room; returns the room left. */
export function keepMessage(into: string[], raw: string, room: number): number {
  if (room <= 0) return room;
  const m = messageText(raw);
  if (!m || into.includes(m)) return room;
  const kept = m.length > room ? m.slice(0, room) : m;
  into.push(kept);
  return room - kept.length - 1;
}
