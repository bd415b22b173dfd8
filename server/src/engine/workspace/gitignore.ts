// One .gitignore file, compiled for speed. Git decides a path by the LAST rule that matches it;
// testing every rule for every path costs O(rules) per file (12 ms per path with 10,000 rules).
// Most real rules are literal names (`build/`, `secret.txt`), literal paths (`/docs/out`) or
// `*.ext`; those go into maps looked up by the path's basename, full path or suffixes, and only
// the rest are tested one by one as regular expressions (translated from git's wildmatch here,
// checked against `git check-ignore` by test/ignore-rules.test.ts).

interface Rule {
  index: number; // position in the file: the highest matching index wins
  negate: boolean;
  dirOnly: boolean;
}

interface GlobRule extends Rule {
  regex: RegExp;
  /** Tested against the basename (unanchored pattern) or the whole relative path. */
  onBasename: boolean;
}

/** True when `s` has an unescaped wildcard or bracket. */
function hasGlob(s: string): boolean {
  return /[*?[]/.test(s.replace(/\\./g, ''));
}

function unescape(s: string): string {
  return s.replace(/\\(.)/gs, '$1');
}

/** The rules of one .gitignore (or of a user exclude list), relative to the directory holding it. */
export class GitignoreFile {
  private readonly byBasename = new Map<string, Rule[]>();
  private readonly byPath = new Map<string, Rule[]>();
  private readonly bySuffix = new Map<string, Rule[]>();
  /** Anchored globs by their literal first segment (`out/x*.o` under `out`). */
  private readonly globsByFirstSegment = new Map<string, GlobRule[]>();
  /** Basename globs by the literal text they end with (`test_*.py` under `.py`), or else begin with. */
  private readonly globsByTail = new Map<string, GlobRule[]>();
  private readonly globsByHead = new Map<string, GlobRule[]>();
  private readonly globs: GlobRule[] = []; // the rest, ascending index
  readonly size: number;

  constructor(lines: readonly string[]) {
    let index = 0;
    for (const raw of lines) {
      const parsed = parseLine(raw);
      if (!parsed) continue;
      this.addRule(parsed, index++);
    }
    this.size = index;
  }

  static parse(text: string): GitignoreFile {
    return new GitignoreFile(text.split(/\r?\n/));
  }

  /**
   * The verdict of this file for `rel` (relative to the file's directory, '/'-separated, no
   * trailing slash): true = ignored, false = re-included by a negation, undefined = no rule matches.
   */
  verdict(rel: string, isDir: boolean): boolean | undefined {
    const base = rel.slice(rel.lastIndexOf('/') + 1);
    let best: Rule | undefined;
    // Each list is in ascending rule order: scan from its end, stop below the best so far.
    const consider = <R extends Rule>(rules: R[] | undefined, matches?: (r: R) => boolean): void => {
      if (!rules) return;
      for (let i = rules.length - 1; i >= 0; i--) {
        const r = rules[i];
        if (best && r.index < best.index) return;
        if (r.dirOnly && !isDir) continue;
        if (matches && !matches(r)) continue;
        best = r;
        return;
      }
    };
    const globMatches = (g: GlobRule): boolean => g.regex.test(g.onBasename ? base : rel);
    consider(this.byBasename.get(base));
    consider(this.byPath.get(rel));
    for (let dot = base.indexOf('.'); dot >= 0; dot = base.indexOf('.', dot + 1)) consider(this.bySuffix.get(base.slice(dot)));
    const slash = rel.indexOf('/');
    if (slash > 0) consider(this.globsByFirstSegment.get(rel.slice(0, slash)), globMatches);
    if (this.globsByTail.size) for (let i = 0; i < base.length; i++) consider(this.globsByTail.get(base.slice(i)), globMatches);
    if (this.globsByHead.size) for (let i = 1; i <= base.length; i++) consider(this.globsByHead.get(base.slice(0, i)), globMatches);
    consider(this.globs, globMatches);
    return best ? !best.negate : undefined;
  }

  private addRule(p: ParsedPattern, index: number): void {
    const rule: Rule = { index, negate: p.negate, dirOnly: p.dirOnly };
    let body = p.body;
    let anchored = p.anchored;
    // `**/x` is `x` at any depth: the unanchored form when nothing else in it is a path.
    while (body.startsWith('**/') && !body.slice(3).includes('/')) {
      body = body.slice(3);
      anchored = false;
    }
    if (!hasGlob(body) && !body.endsWith('\\')) return push(anchored ? this.byPath : this.byBasename, unescape(body), rule);
    const rest = body.slice(1);
    if (!anchored && body.startsWith('*') && rest.startsWith('.') && !hasGlob(rest) && !rest.endsWith('\\') && !rest.includes('/')) {
      return push(this.bySuffix, unescape(rest), rule);
    }
    const regex = compileGlob(body);
    if (!regex) return;
    const glob: GlobRule = { ...rule, regex, onBasename: !anchored };
    const slash = body.indexOf('/');
    const tail = body.slice(Math.max(body.lastIndexOf('*'), body.lastIndexOf('?'), body.lastIndexOf(']')) + 1);
    const head = body.slice(0, body.search(/[*?[\\]/));
    if (anchored && slash > 0 && !hasGlob(body.slice(0, slash)) && !body.slice(0, slash).includes('\\')) {
      push(this.globsByFirstSegment, body.slice(0, slash), glob);
    } else if (!anchored && tail !== '' && !tail.includes('\\')) {
      push(this.globsByTail, tail, glob);
    } else if (!anchored && head !== '') {
      push(this.globsByHead, head, glob);
    } else {
      this.globs.push(glob);
    }
  }
}

function push(map: Map<string, Rule[]>, key: string, rule: Rule): void {
  const list = map.get(key);
  if (list) list.push(rule);
  else map.set(key, [rule]);
}

interface ParsedPattern {
  negate: boolean;
  dirOnly: boolean;
  /** Contains a slash before its end: matched against the path relative to the file's directory. */
  anchored: boolean;
  body: string; // no leading '/', no trailing '/'
}

/** One line of a .gitignore as git reads it (gitignore(5)); null for blanks and comments. */
export function parseLine(raw: string): ParsedPattern | null {
  let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  if (line === '' || line.startsWith('#')) return null;
  // Trailing spaces are dropped unless escaped with a backslash.
  let end = line.length;
  while (end > 0 && line[end - 1] === ' ' && !isEscaped(line, end - 1)) end--;
  line = line.slice(0, end);
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith('/') && !isEscaped(line, line.length - 1)) {
    dirOnly = true;
    line = line.replace(/\/+$/, '');
  }
  if (line === '') return null;
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  if (line === '') return null;
  return { negate, dirOnly, anchored, body: line };
}

function isEscaped(s: string, at: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= 0 && s[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9', alpha: 'a-zA-Z', blank: ' \\t', cntrl: '\\x00-\\x1f\\x7f', digit: '0-9',
  graph: '\\x21-\\x7e', lower: 'a-z', print: '\\x20-\\x7e', punct: '!-\\/:-@\\[-`{-~',
  space: ' \\t\\n\\r\\f\\v', upper: 'A-Z', xdigit: '0-9A-Fa-f',
};

/** git's wildmatch (with WM_PATHNAME) as a regular expression; null for a pattern git never matches. */
export function compileGlob(glob: string): RegExp | null {
  let out = '^';
  let i = 0;
  const n = glob.length;
  while (i < n) {
    const c = glob[i];
    if (c === '*') {
      let j = i;
      while (glob[j] === '*') j++;
      const stars = j - i;
      const atSegmentStart = i === 0 || glob[i - 1] === '/';
      const atSegmentEnd = j === n || glob[j] === '/';
      if (stars >= 2 && atSegmentStart && atSegmentEnd) {
        if (j === n) {
          out += '.*'; // `a/**`: everything inside (the slash before is already emitted)
        } else {
          out += '(?:.*/)?'; // `**/`: zero or more directories
          j++; // the slash is part of it
        }
      } else {
        out += '[^/]*';
      }
      i = j;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      const cls = bracket(glob, i);
      if (!cls) return null; // an unclosed bracket never matches in wildmatch
      out += cls.source;
      i = cls.end;
    } else if (c === '\\') {
      if (i + 1 >= n) return null; // a trailing backslash: an invalid pattern, never matches
      out += escapeRegex(glob[i + 1]);
      i += 2;
    } else {
      out += escapeRegex(c);
      i++;
    }
  }
  try {
    return new RegExp(out + '$', 's');
  } catch {
    return null;
  }
}

function bracket(glob: string, start: number): { source: string; end: number } | null {
  let i = start + 1;
  let negate = false;
  if (glob[i] === '!' || glob[i] === '^') {
    negate = true;
    i++;
  }
  let body = '';
  let first = true;
  while (i < glob.length) {
    const c = glob[i];
    if (c === ']' && !first) {
      return { source: `(?!/)[${negate ? '^' : ''}${body}]`, end: i + 1 };
    }
    first = false;
    if (c === '[' && glob[i + 1] === ':') {
      const close = glob.indexOf(':]', i + 2);
      const cls = close > 0 ? POSIX_CLASSES[glob.slice(i + 2, close)] : undefined;
      if (cls === undefined) return null;
      body += cls;
      i = close + 2;
      continue;
    }
    if (c === '\\' && i + 1 < glob.length) {
      body += escapeClassChar(glob[i + 1]);
      i += 2;
      continue;
    }
    if (c === '-' && body !== '' && glob[i + 1] !== ']' && i + 1 < glob.length) {
      body += '-';
      i++;
      continue;
    }
    body += escapeClassChar(c);
    i++;
  }
  return null;
}

function escapeClassChar(c: string): string {
  return /[\\\]\[^-]/.test(c) ? '\\' + c : c;
}

function escapeRegex(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? '\\' + c : c;
}
