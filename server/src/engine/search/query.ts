// What a query says besides its words: a search box gets identifiers, dotted names and whole
// bug reports as often as sentences. This pulls out the parts that name code — traceback frames
// (`File "x.py", line N, in f`), file paths, dotted names, identifiers, exception names, quoted
// or raised messages — so the streams can match them exactly, and keeps the prose for the rest.
// Plain data in, plain data out: no store, no SQL.

export interface Frame {
  /** The path as written in the traceback (absolute paths included). */
  file: string;
  line: number;
  func: string;
}

export interface QuerySignals {
  /** The query is one identifier or dotted name (`validate_token`, `Session.send`). */
  identifier: boolean;
  /** Traceback frames, innermost (last printed) first. */
  frames: Frame[];
  /** File paths mentioned outside frames (`src/auth.py`, `json/decoder.py`). */
  paths: string[];
  /** Dotted names (`Session.resolve_redirects`, `os.path.join`), calls stripped of `()`. */
  dotted: string[];
  /** Words that look like code: snake_case, camelCase, dunder, or followed by `(`. */
  identifiers: string[];
  /** Exception class names (`JSONDecodeError`, `ValueError`; `Error` of `wave.Error`). */
  exceptions: string[];
  /** Quoted strings and exception messages: literal text likely to sit in the code. */
  messages: string[];
  /** Long text (a report, not a search phrase): term selection and weights change. */
  long: boolean;
}

const IDENTIFIER = /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/;
const FRAME = /File "([^"]+)", line (\d+), in ([\w<>.]+)/g;
// A V8 stack line (Node, Chrome): `at fn (/app/x.js:10:15)`, `at async Foo.bar (file:///x.mjs:3:1)`,
// `at new Foo (…)`, `at /app/x.js:10:15` (no name). `node:internal/…` frames match nothing here.
const JS_FRAME = /^\s*at (?:(?:async |new )?([^\s()]+)(?: \[as [^\]]+\])? \()?(?:file:\/\/)?((?:[A-Za-z]:)?[^\s():]+):(\d+):\d+\)?\s*$/gm;
const PATH = /(?:^|[\s'"`(])((?:[\w.-]+\/)*[\w.-]+\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs))\b/g;
const DOTTED = /\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?=\s*\(|\b)/g;
const WORD = /\b([A-Za-z_]\w*)(\s*\()?/g;
const EXCEPTION = /\b([A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt))\b/g;
// `ValueError: …`, `json.decoder.JSONDecodeError: …`, and JavaScript's bare `Error: …` as a
// console prints it (`Uncaught Error: …`, `Uncaught (in promise) TypeError: …`).
// Exception classes not named …Error print the same way (`http.client.RemoteDisconnected: …`,
// `zipfile.BadZipFile: …`): a CamelCase name with an inner capital.
const RAISED = /^\s*(?:Uncaught (?:\(in promise\) )?)?(?:[\w.]+\.)?(?:[A-Z][a-z0-9]+[A-Z]\w*|(?:[A-Z]\w*)?(?:Error|Exception|Warning)\w*): (.+)$/gm;
const QUOTED = /"([^"\n]{8,200})"|'([^'\n]{8,200})'|`([^`\n]{3,200})`/g;
// Prose words that look like code only by position (sentence starts, English compounds).
const NOT_CODE = new Set(['e.g', 'i.e', 'etc']);

export const LONG_QUERY_WORDS = 12;

/**
 * The part of a query search reads: all of it, or past `max` characters its start and its end
 * (protocol SEARCH_MAX_QUERY_CHARS), never splitting a surrogate pair.
 */
export function readablePart(query: string, max: number): string {
  if (query.length <= max) return query;
  let head = Math.floor(max / 2);
  let tail = query.length - (max - head);
  if (/[\uDC00-\uDFFF]/.test(query[head] ?? '')) head--;
  if (/[\uDC00-\uDFFF]/.test(query[tail] ?? '')) tail++;
  return `${query.slice(0, head)}\n…\n${query.slice(tail)}`;
}

export function analyzeQuery(query: string): QuerySignals {
  const q = query.trim();
  const words = q.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;
  const out: QuerySignals = { identifier: IDENTIFIER.test(q), frames: [], paths: [], dotted: [], identifiers: [], exceptions: [], messages: [], long: words > LONG_QUERY_WORDS };
  if (out.identifier) return out;
  // Each list once per value, looked up in a set: a pasted log can hold tens of thousands.
  const seen = new Map<string[], Set<string>>();
  const push = (list: string[], v: string): void => {
    let had = seen.get(list);
    if (!had) seen.set(list, (had = new Set(list)));
    if (had.has(v)) return;
    had.add(v);
    list.push(v);
  };

  for (const m of q.matchAll(FRAME)) out.frames.push({ file: m[1], line: Number(m[2]), func: m[3] });
  // Python prints the innermost frame last, V8 first.
  out.frames.reverse();
  for (const m of q.matchAll(JS_FRAME)) out.frames.push({ file: m[2], line: Number(m[3]), func: m[1] ?? '' });
  const framed = new Set(out.frames.map((f) => f.file));
  for (const m of q.matchAll(PATH)) if (!framed.has(m[1])) push(out.paths, m[1]);

  for (const m of q.matchAll(DOTTED)) {
    const d = m[1];
    const last = d.slice(d.lastIndexOf('.') + 1);
    // `json.loads` yes; `README.md`, `x.py`, `e.g` no.
    if (NOT_CODE.has(d.toLowerCase()) || /^(py|pyi|ts|tsx|js|md|txt|json|toml|cfg|ini|html|org|com)$/i.test(last)) continue;
    if (/^\d/.test(last)) continue;
    push(out.dotted, d);
    // `wave.Error`, `errors.Exception`: a module's own error class, named by its module.
    if (/^(Error|Exception|Warning)$/.test(last)) push(out.exceptions, last);
  }
  for (const m of q.matchAll(WORD)) {
    const w = m[1];
    const called = !!m[2];
    if (called || looksLikeCode(w)) push(out.identifiers, w);
  }
  for (const m of q.matchAll(EXCEPTION)) push(out.exceptions, m[1]);
  for (const m of q.matchAll(RAISED)) push(out.messages, m[1].trim());
  for (const m of q.matchAll(QUOTED)) {
    const s = (m[1] ?? m[2] ?? m[3]).trim();
    // A quoted identifier is a name, not a message.
    if (IDENTIFIER.test(s)) push(looksLikeCode(s) || s.includes('.') ? out.dotted : out.identifiers, s);
    else if (/\s/.test(s) && !/^[\w./-]+\.(py|ts|js)$/.test(s)) push(out.messages, s);
  }
  return out;
}

/** snake_case, camelCase, PascalCase with an inner capital, dunder or a trailing digit. */
export function looksLikeCode(w: string): boolean {
  return /[a-z0-9]_[a-z0-9]/i.test(w) || /^_/.test(w) || /[a-z][A-Z]/.test(w) || /^[A-Z][a-z]+[A-Z]/.test(w);
}

/** The traceback frames of a text (Python's and V8's), innermost first: what `analyzeQuery` reads. */
export function tracebackFrames(text: string): Frame[] {
  return analyzeQuery(text).frames;
}

/** Phrases of at least `min` plain words inside a message: what a `raise` would spell out. */
export function literalRuns(message: string, min = 3): string[] {
  const runs: string[] = [];
  // Values interpolated into a message (numbers, paths, quoted bits, `12:30`, `C:\x`) break it
  // into literal runs; a colon ending a word (`failed: 407`) is punctuation, not a value.
  for (const part of message.split(/'[^']*'|"[^"]*"|\S*[\d/\\=<>%{}()[\]]\S*|\S*:\S+|[,;.!?:]/)) {
    const words = part.match(/[A-Za-z]+/g) ?? [];
    if (words.length >= min) runs.push(words.join(' '));
  }
  return runs;
}

/** The last segment of a frame's function (`<module>`, lambdas and V8's nameless frames name nothing). */
export function frameName(f: Frame): string | null {
  const last = f.func.slice(f.func.lastIndexOf('.') + 1);
  return /^[A-Za-z_]\w*$/.test(last) ? last : null;
}

/**
 * The query without traceback boilerplate (headers, frame lines, caret markers): what is left
 * is prose and code lines, for the word-matching streams. Frames are the signals stream's job.
 */
export function proseOf(query: string): string {
  return query
    .split('\n')
    .filter((l) => !/^\s*(Traceback \(most recent call last\):|File "[^"]+", line \d+|During handling of the above exception|The above exception was the direct cause)/.test(l) && !/^\s*[~^]+\s*$/.test(l) && !/^\s*at \S.*:\d+:\d+\)?\s*$/.test(l))
    .join('\n');
}
