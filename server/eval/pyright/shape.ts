// Reading a call site from its source line: the callee name, whether it is a call at all, and
// the receiver expression before the dot (`self.policy` in `self.policy.fold(x)`). Plain text
// scanning, enough to put a disagreement into a category; not a parser.

export interface CallShape {
  name: string;
  /** `(` follows the name: a call. Otherwise an attribute read (a property for pyright). */
  isCall: boolean;
  /** Expression before `.name`, or null for a plain name. */
  receiver: string | null;
  /** The site is the name of a decorator (`@name` / `@a.name`). */
  decorator: boolean;
}

const IDENT = /[A-Za-z0-9_]/;

export function callShape(line: string, column: number): CallShape {
  const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(line.slice(column))?.[0] ?? '';
  const after = line.slice(column + name.length).trimStart();
  let i = column - 1;
  while (i >= 0 && line[i] === ' ') i--;
  let receiver: string | null = null;
  if (i >= 0 && line[i] === '.') {
    const end = i;
    i--;
    while (i >= 0) {
      const ch = line[i];
      if (IDENT.test(ch) || ch === '.') i--;
      else if (ch === ')' || ch === ']') i = matchOpen(line, i) - 1;
      else if (ch === '"' || ch === "'") i = line.lastIndexOf(ch, i - 1) - 1;
      else break;
      if (i < -1) break;
    }
    receiver = line.slice(Math.max(0, i + 1), end).trim();
  }
  const head = line.slice(0, Math.max(0, i + 1)).trimEnd();
  return { name, isCall: after.startsWith('('), receiver, decorator: head.trim() === '@' };
}

/** Index of the bracket opening the one closing at `close`, or -1. */
function matchOpen(line: string, close: number): number {
  const pairs: Record<string, string> = { ')': '(', ']': '[' };
  const stack: string[] = [];
  for (let i = close; i >= 0; i--) {
    const ch = line[i];
    if (ch === ')' || ch === ']') stack.push(pairs[ch]);
    else if (ch === '(' || ch === '[') {
      if (stack.pop() !== ch) return -1;
      if (!stack.length) return i;
    }
  }
  return -1;
}

/** Parameter names of a one-line `def f(a, b: int = 1, *args, **kw) -> T` signature. */
export function parameterNames(signature: string): string[] {
  const open = signature.indexOf('(');
  if (open < 0) return [];
  let depth = 0;
  let cur = '';
  const parts: string[] = [];
  for (let i = open + 1; i < signature.length; i++) {
    const ch = signature[i];
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) {
      if (depth === 0) break;
      depth--;
    }
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  return parts
    .map((p) => /^\s*\**\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(p)?.[1])
    .filter((n): n is string => !!n);
}

export type LocalOrigin = 'call' | 'construct' | 'loop' | 'other' | null;

/**
 * How `name` gets its value inside the given lines (a function body): assigned from a call of
 * a function (`x = f()`), of a class (`x = Cls()`, by the capital letter), bound by
 * for/with/except, assigned otherwise, or not bound there at all.
 */
export function localOrigin(body: string[], name: string): LocalOrigin {
  const n = name.replace(/[^A-Za-z0-9_]/g, '');
  const assign = new RegExp(`^\\s*(?:[\\w.\\[\\], ]*,\\s*)?${n}\\s*(?::[^=]+)?=(?!=)\\s*(.*)$`);
  const loop = new RegExp(`(?:^\\s*(?:async\\s+)?for\\s+(?:[\\w, ()]*\\b)?${n}\\b[\\w, ()]*\\bin\\b)|(?:\\bas\\s+${n}\\b)|(?:\\(\\s*${n}\\s*:=)`);
  let found: LocalOrigin = null;
  for (const line of body) {
    const m = assign.exec(line);
    if (m) {
      const call = /^(?:await\s+)?([A-Za-z_][\w.]*)\s*\(/.exec(m[1]);
      if (call) {
        const last = call[1].slice(call[1].lastIndexOf('.') + 1);
        return /^[A-Z]/.test(last) && !/^[A-Z0-9_]+$/.test(last) ? 'construct' : 'call';
      }
      found = found ?? 'other';
    } else if (loop.test(line)) found = found ?? 'loop';
  }
  return found;
}

/** Does the file bind `name` by an import (`import name`, `import a as name`, `from m import name`)? */
export function importsName(fileLines: string[], name: string): boolean {
  const n = name.replace(/[^A-Za-z0-9_]/g, '');
  const direct = new RegExp(`^\\s*import\\s+.*\\b${n}\\b`);
  const from = new RegExp(`^\\s*from\\s+\\S+\\s+import\\s+.*\\b${n}\\b`);
  return fileLines.some((l) => direct.test(l) || from.test(l));
}

export function hasStarImport(fileLines: string[]): boolean {
  return fileLines.some((l) => /^\s*from\s+\S+\s+import\s+\*/.test(l));
}
