// The source roots a Python project file declares, relative to the folder holding it: where
// `import pkg` finds `pkg` once the project is installed. Read, never executed: `pyproject.toml`
// through a reader of the few TOML shapes these keys take (no TOML library is installed here, and
// only these keys are read), `setup.cfg` as INI, `setup.py` by regular expressions.

/** Roots declared by the project files in one folder ('.' for the folder itself); null: no project file. */
export function declaredRoots(read: (name: string) => string | undefined, exists: (rel: string) => boolean): string[] | null {
  const pyproject = read('pyproject.toml');
  const setupCfg = read('setup.cfg');
  const setupPy = read('setup.py');
  if (pyproject === undefined && setupCfg === undefined && setupPy === undefined) return null;
  const roots = new Set<string>();
  if (pyproject !== undefined) for (const r of pyprojectRoots(pyproject, exists)) roots.add(r);
  if (setupCfg !== undefined) for (const r of setupCfgRoots(setupCfg)) roots.add(r);
  if (setupPy !== undefined) for (const r of setupPyRoots(setupPy)) roots.add(r);
  // Nothing declared: setuptools' automatic discovery, a `src/` layout or the folder itself.
  if (!roots.size) roots.add(exists('src') ? 'src' : '.');
  return [...roots].map(clean);
}

/**
 * What `declaredRoots` reads of one project file's text, as a string (a file's name, not its
 * path); undefined for a file it does not read. Whether `src/` exists is not in it: folder
 * listings are not tracked.
 */
export function rootsView(name: string, text: string): string | undefined {
  if (name === 'setup.cfg') return JSON.stringify(['setup.cfg', setupCfgRoots(text)]);
  if (name === 'setup.py') return JSON.stringify(['setup.py', setupPyRoots(text)]);
  if (name !== 'pyproject.toml') return undefined;
  const t = parseTomlTables(text);
  const hatch = HATCH_TABLES.map((k) => [t.get(k)?.packages, t.get(k)?.sources, t.get(`${k}.sources`)]);
  return JSON.stringify(['pyproject.toml', t.get('tool.setuptools')?.['package-dir'], t.get('tool.setuptools.package-dir'), t.get('tool.setuptools.packages.find')?.where, hatch, t.get('tool.poetry')?.packages, t.get('tool.flit.module')?.name, t.get('tool.uv.build-backend') ?? null]);
}

const HATCH_TABLES = ['tool.hatch.build.targets.wheel', 'tool.hatch.build'];

function pyprojectRoots(text: string, exists: (rel: string) => boolean): string[] {
  const t = parseTomlTables(text);
  const out: string[] = [];
  const st = t.get('tool.setuptools');
  const pkgDir = st?.['package-dir'] ?? t.get('tool.setuptools.package-dir');
  if (isTable(pkgDir) && typeof pkgDir[''] === 'string') out.push(pkgDir['']);
  const find = t.get('tool.setuptools.packages.find');
  for (const w of strings(find?.where)) out.push(w);
  // hatch: `packages = ["src/foo"]` names package folders; `sources = ["src"]` or `{"src" = ""}` strips prefixes.
  for (const key of HATCH_TABLES) {
    const h = t.get(key);
    for (const p of strings(h?.packages)) out.push(parent(p));
    const sources = h?.sources ?? t.get(`${key}.sources`);
    for (const s of strings(sources)) out.push(s);
    if (isTable(sources)) for (const [from, to] of Object.entries(sources)) if (to === '') out.push(from);
  }
  // poetry: `packages = [{ include = "foo", from = "src" }]`.
  const poetry = t.get('tool.poetry');
  if (Array.isArray(poetry?.packages)) for (const p of poetry.packages) if (isTable(p)) out.push(typeof p.from === 'string' ? p.from : '.');
  // flit: the module lives in the folder itself or under `src/`.
  const flit = t.get('tool.flit.module');
  const flitName = typeof flit?.name === 'string' ? flit.name.replace(/\./g, '/') : undefined;
  if (flitName) out.push(exists(`src/${flitName}`) ? 'src' : '.');
  // uv's build backend: `module-root`, "src" by default.
  const uv = t.get('tool.uv.build-backend');
  if (uv) out.push(typeof uv['module-root'] === 'string' ? uv['module-root'] : 'src');
  return out;
}

function setupCfgRoots(text: string): string[] {
  const out: string[] = [];
  let section = '';
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/[#;].*$/, '');
    const head = /^\s*\[([^\]]+)\]/.exec(line);
    if (head) {
      section = head[1].trim();
      continue;
    }
    const kv = /^(\w[\w-]*)\s*=\s*(.*)$/.exec(line);
    if (!kv) continue;
    // The value may continue on indented lines (`package_dir =\n    =src`).
    const value = [kv[2], ...takeIndented(lines, i + 1)].join('\n');
    if (section === 'options' && kv[1] === 'package_dir') {
      const m = /(?:^|\n)\s*=\s*(\S+)/.exec(value);
      if (m) out.push(m[1]);
    }
    if (section === 'options.packages.find' && kv[1] === 'where') out.push(...value.split(/\s+/).filter(Boolean));
  }
  return out;
}

function takeIndented(lines: string[], from: number): string[] {
  const out: string[] = [];
  for (let k = from; k < lines.length && /^\s+\S/.test(lines[k]); k++) out.push(lines[k].trim());
  return out;
}

function setupPyRoots(text: string): string[] {
  const out: string[] = [];
  const dir = /package_dir\s*=\s*\{\s*(['"])\1\s*:\s*['"]([^'"]+)['"]/.exec(text);
  if (dir) out.push(dir[2]);
  for (const m of text.matchAll(/find_(?:namespace_)?packages\(\s*(?:where\s*=\s*)?['"]([^'"]+)['"]/g)) out.push(m[1]);
  return out;
}

function parent(p: string): string {
  const s = clean(p);
  const i = s.lastIndexOf('/');
  return i < 0 ? '.' : s.slice(0, i);
}

function clean(p: string): string {
  const s = p.replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '');
  return s === '' ? '.' : s;
}

// --- a reader for the TOML these keys use ---------------------------------------------------

type TomlValue = string | number | boolean | TomlValue[] | { [k: string]: TomlValue };
type TomlTable = Record<string, TomlValue>;

function isTable(v: TomlValue | undefined): v is TomlTable {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function strings(v: TomlValue | undefined): string[] {
  if (typeof v === 'string') return [v];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/**
 * Tables by their dotted header (`tool.setuptools.packages.find`); a dotted key inside a table
 * (`packages.find.where = …`) also lands in the table it names. Values this reader cannot read
 * are left out: a project file it misreads only loses a declared root, never a file.
 */
export function parseTomlTables(text: string): Map<string, TomlTable> {
  const tables = new Map<string, TomlTable>();
  const table = (name: string) => {
    let t = tables.get(name);
    if (!t) tables.set(name, (t = {}));
    return t;
  };
  let current = '';
  let i = 0;
  const src = text.replace(/\r\n/g, '\n');
  while (i < src.length) {
    const lineEnd = src.indexOf('\n', i) < 0 ? src.length : src.indexOf('\n', i);
    const line = src.slice(i, lineEnd).trim();
    if (line === '' || line.startsWith('#')) {
      i = lineEnd + 1;
      continue;
    }
    const head = /^\[\[?\s*([^\]]+?)\s*\]\]?/.exec(line);
    if (head) {
      current = splitKey(head[1]).join('.');
      table(current);
      i = lineEnd + 1;
      continue;
    }
    const eq = keyEnd(src, i);
    if (eq < 0) {
      i = lineEnd + 1;
      continue;
    }
    const key = splitKey(src.slice(i, eq));
    const r = new ValueReader(src, eq + 1);
    const value = r.value();
    i = r.pos;
    const next = src.indexOf('\n', i);
    i = next < 0 ? src.length : next + 1;
    if (value === undefined || !key.length) continue;
    const owner = [current, ...key.slice(0, -1)].filter(Boolean).join('.');
    table(owner)[key[key.length - 1]] = value;
  }
  return tables;
}

/** Index of the `=` ending a key that starts at `from` on this line, or -1. */
function keyEnd(src: string, from: number): number {
  let q: string | null = null;
  for (let k = from; k < src.length && src[k] !== '\n'; k++) {
    const c = src[k];
    if (q) {
      if (c === q) q = null;
    } else if (c === '"' || c === "'") q = c;
    else if (c === '=') return k;
  }
  return -1;
}

function splitKey(raw: string): string[] {
  const out: string[] = [];
  for (const m of raw.matchAll(/\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([\w-]+))\s*(?:\.|$)/g)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

class ValueReader {
  constructor(
    private readonly s: string,
    public pos: number,
  ) {}

  private skip(newlines: boolean): void {
    while (this.pos < this.s.length) {
      const c = this.s[this.pos];
      if (c === ' ' || c === '\t' || (newlines && (c === '\n' || c === '\r'))) this.pos++;
      else if (newlines && c === '#') while (this.pos < this.s.length && this.s[this.pos] !== '\n') this.pos++;
      else break;
    }
  }

  value(): TomlValue | undefined {
    this.skip(false);
    const c = this.s[this.pos];
    if (c === '"' || c === "'") return this.string();
    if (c === '[') return this.array();
    if (c === '{') return this.inline();
    const m = /^[^,\]}\n#]+/.exec(this.s.slice(this.pos, this.pos + 200));
    if (!m) return undefined;
    this.pos += m[0].length;
    const w = m[0].trim();
    if (w === 'true' || w === 'false') return w === 'true';
    const n = Number(w);
    return Number.isNaN(n) ? undefined : n;
  }

  private string(): string {
    const q = this.s[this.pos];
    const triple = this.s.startsWith(q.repeat(3), this.pos);
    const close = triple ? q.repeat(3) : q;
    this.pos += close.length;
    let out = '';
    while (this.pos < this.s.length && !this.s.startsWith(close, this.pos) && (triple || this.s[this.pos] !== '\n')) {
      if (q === '"' && this.s[this.pos] === '\\') {
        out += this.s[this.pos + 1] ?? '';
        this.pos += 2;
      } else out += this.s[this.pos++];
    }
    if (this.s.startsWith(close, this.pos)) this.pos += close.length;
    return out;
  }

  private array(): TomlValue[] {
    this.pos++;
    const out: TomlValue[] = [];
    for (;;) {
      this.skip(true);
      if (this.pos >= this.s.length) return out;
      if (this.s[this.pos] === ']') {
        this.pos++;
        return out;
      }
      if (this.s[this.pos] === ',') {
        this.pos++;
        continue;
      }
      const start = this.pos;
      const v = this.value();
      if (v !== undefined) out.push(v);
      if (this.pos === start) this.pos++; // unreadable: step over it
    }
  }

  private inline(): TomlTable {
    this.pos++;
    const out: TomlTable = {};
    for (;;) {
      this.skip(true);
      if (this.pos >= this.s.length) return out;
      const c = this.s[this.pos];
      if (c === '}') {
        this.pos++;
        return out;
      }
      if (c === ',') {
        this.pos++;
        continue;
      }
      const eq = keyEnd(this.s, this.pos);
      if (eq < 0) {
        this.pos++;
        continue;
      }
      const key = splitKey(this.s.slice(this.pos, eq));
      this.pos = eq + 1;
      const v = this.value();
      if (v !== undefined && key.length === 1) out[key[0]] = v;
    }
  }
}
