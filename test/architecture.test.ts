// The invariants of ARCHITECTURE.md that a reader of imports and string literals can check:
// the engine imports no face, SQL stays in the store, language knowledge stays in its folder,
// and the document names files that exist.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = path.resolve(__dirname, '..');

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${d.name}`;
    if (d.isDirectory()) out.push(...tsFiles(rel));
    else if (d.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** Module specifiers of a file's imports and requires. */
function imports(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|require\(\s*['"]([^'"]+)['"]\s*\)|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** Resolved workspace path of a relative specifier, else the package name. */
function target(file: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return path.relative(ROOT, path.resolve(ROOT, path.dirname(file), spec)).split(path.sep).join('/');
}

/** The code of a file without comments (so prose may name what code must not). */
function code(file: string): string {
  return fs
    .readFileSync(path.join(ROOT, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const ENGINE = tsFiles('server/src/engine');
const ALL = [...tsFiles('server/src'), ...tsFiles('protocol'), ...(fs.existsSync(path.join(ROOT, 'clients/mcp')) ? tsFiles('clients/mcp') : [])];

describe('ARCHITECTURE.md invariants', () => {
  test('1. the engine imports no face: no LSP, MCP or CLI library, no lsp/, cli/ or clients/ module', () => {
    const bad: string[] = [];
    for (const f of ENGINE) {
      for (const spec of imports(f)) {
        const t = target(f, spec);
        if (/^(vscode-languageserver|vscode-jsonrpc|@modelcontextprotocol\/|commander|cli-progress)/.test(t) || /^server\/src\/(lsp|cli)\//.test(t) || t.startsWith('clients/')) bad.push(`${f} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('the faces enter the engine by its front door (server/src/engine/index.ts) only', () => {
    const bad: string[] = [];
    const faces = [...tsFiles('server/src/lsp'), ...tsFiles('server/src/cli'), ...(fs.existsSync(path.join(ROOT, 'clients/mcp')) ? tsFiles('clients/mcp') : [])];
    for (const f of faces) {
      for (const spec of imports(f)) {
        const t = target(f, spec);
        if (t.startsWith('server/src/engine/') || (t.startsWith('server/src/engine') && t !== 'server/src/engine')) bad.push(`${f} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
    expect(fs.existsSync(path.join(ROOT, require('../package.json').main.replace(/^dist\//, '').replace(/\.js$/, '.ts')))).toBe(true);
  });

  test('2. all SQL lives in engine/store: only the store opens SQLite or writes SQL', () => {
    const bad: string[] = [];
    for (const f of ALL) {
      if (f.startsWith('server/src/engine/store/')) continue;
      if (imports(f).some((s) => s === 'better-sqlite3' || s === 'sqlite-vec')) bad.push(`${f} imports SQLite`);
      const sql = code(f).match(/['"`][^'"`]*\b(SELECT\s+[\w*(),. ]+\s+FROM|INSERT\s+(OR\s+\w+\s+)?INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|CREATE\s+(VIRTUAL\s+)?(TABLE|INDEX)|DROP\s+(TABLE|INDEX)|PRAGMA)\b/i);
      if (sql) bad.push(`${f}: ${sql[0].slice(0, 60)}`);
    }
    expect(bad).toEqual([]);
  });

  test('3. language knowledge stays in languages/<lang>/: no language names or Python spellings elsewhere', () => {
    const bad: string[] = [];
    for (const f of ALL) {
      if (/^server\/src\/engine\/languages\//.test(f)) continue;
      const m = code(f).match(/['"`](python|typescript|javascript|__init__|__new__|\.py|\.ts|\.js)['"`]/);
      if (m) bad.push(`${f}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });

  test('4. the wire contract is protocol/: method names of nsccn/* requests are spelled only there', () => {
    const bad: string[] = [];
    for (const f of ALL) {
      if (f.startsWith('protocol/')) continue;
      const m = code(f).match(/['"`]nsccn\/\w+['"`]/);
      if (m) bad.push(`${f}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });

  test('the code map names folders and files that exist', () => {
    const doc = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const named = [...doc.matchAll(/`((?:protocol|server|clients|test|fixtures)\/[\w./-]*)`/g)].map((m) => m[1].replace(/\/$/, ''));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((p) => !fs.existsSync(path.join(ROOT, p)))).toEqual([]);
  });
});
