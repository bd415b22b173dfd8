// incremental-vs-cold.test.ts for TypeScript: random edits of the TypeScript fixtures (top-level
// declarations removed and copied to other files, files added that import through relative
// paths, path aliases and workspace packages, files deleted, moved and restored), each followed
// by an incremental run and compared edge for edge with a cold index of a copy.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { edgeList } from './helpers/workspace';
import { coldGraph, randomEditsEqualCold } from './helpers/cold-diff';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const open = (root: string) => Engine.open({ root, workers: 0, embeddings: { model: 'none' } });

type Rng = () => number;
const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];

function tsFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory() && d.name !== '.nsccn' && d.name !== 'node_modules') out.push(...tsFiles(root, p));
    else if (/\.(tsx?|m?js|cjs)$/.test(d.name)) out.push(p);
  }
  return out.sort();
}

/** What the edits may touch: the code, and the tsconfig.json whose path alias they may move. */
function editedFiles(root: string): string[] {
  return [...tsFiles(root), ...(fs.existsSync(path.join(root, 'tsconfig.json')) ? ['tsconfig.json'] : [])];
}

/** Top-level declarations: [first line, end line) with their name. */
function blocks(lines: string[]): Array<{ start: number; end: number; name: string; kind: string }> {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(?:export )?(?:default )?(?:abstract )?(function|class|interface|const|type) (\w+)/.exec(lines[i]);
    if (!m) continue;
    let end = i + 1;
    if (/\{\s*$/.test(lines[i])) while (end < lines.length && !/^\}/.test(lines[end - 1])) end++;
    out.push({ start: i, end, name: m[2], kind: m[1] });
  }
  return out;
}

/** Exported functions and classes, with the file that holds each. */
function exported(root: string): Array<{ file: string; name: string; kind: string }> {
  const out = [];
  for (const f of tsFiles(root)) {
    for (const m of fs.readFileSync(path.join(root, f), 'utf8').matchAll(/^export (?:abstract )?(function|class) (\w+)/gm)) out.push({ file: f, name: m[2], kind: m[1] });
  }
  return out;
}

/** How `from` imports `to`: relative, or through the fixture's alias or package when one covers it. */
function specifier(r: Rng, from: string, to: string): string {
  const bare = to.replace(/\.(tsx?|m?js|cjs)$/, '');
  if (bare.startsWith('apps/web/src/') && r() < 0.6) return `@app/${bare.slice('apps/web/src/'.length)}`;
  if (bare === 'packages/core/src/index' && r() < 0.6) return '@acme/core';
  if (bare === 'packages/core/src/math' && r() < 0.6) return '@acme/core/math';
  let rel = path.posix.relative(path.posix.dirname(from), bare);
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

/** One random edit of the workspace on disk; returns what it did. */
function mutate(root: string, original: Map<string, string>, r: Rng): string {
  const files = tsFiles(root);
  const f = pick(r, files);
  const abs = path.join(root, f);
  const op = Math.floor(r() * 7);
  if (op === 6 && fs.existsSync(path.join(root, 'tsconfig.json'))) {
    // The path alias points elsewhere: every import through it names other files.
    const to = pick(r, ['apps/web/src/*', 'lib/*', 'packages/core/src/*']);
    write(root, 'tsconfig.json', JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@app/*': [to] } } }, null, 2));
    return `tsconfig.json: @app/* → ${to}`;
  }
  if (op === 0) {
    const lines = fs.readFileSync(abs, 'utf8').split('\n');
    const bs = blocks(lines);
    if (bs.length) {
      const b = pick(r, bs);
      lines.splice(b.start, b.end - b.start);
      fs.writeFileSync(abs, lines.join('\n'));
      return `${f}: removed ${b.name}`;
    }
  }
  if (op === 1) {
    const other = pick(r, files);
    const lines = fs.readFileSync(path.join(root, other), 'utf8').split('\n');
    const bs = blocks(lines);
    if (bs.length) {
      const b = pick(r, bs);
      fs.appendFileSync(abs, '\n' + lines.slice(b.start, b.end).join('\n') + '\n');
      return `${f}: copied ${b.name} from ${other}`;
    }
  }
  if (op === 2) {
    const n = Math.floor(r() * 1000);
    const dir = path.posix.dirname(f) === '.' ? '' : path.posix.dirname(f) + '/';
    const file = `${dir}added_${n}${/\.(m?js|cjs)$/.test(f) ? '.js' : '.ts'}`;
    const names = exported(root).filter((x) => x.file !== file);
    const used = new Map<string, { file: string; name: string; kind: string }>();
    for (let k = 0; k < 3 && names.length; k++) {
      const x = pick(r, names);
      used.set(x.name, x);
    }
    const imports = [...used.values()].map((x) => `import { ${x.name} } from '${specifier(r, file, x.file)}';`);
    const body = [...used.values()].map((x) => (x.kind === 'class' ? `  new ${x.name}();` : `  ${x.name}();`));
    const ret = file.endsWith('.ts') ? ': void' : '';
    write(root, file, `${imports.join('\n')}\n\nexport function added_${n}()${ret} {\n${body.join('\n')}\n}\n`);
    return `added ${file} (${[...used.keys()].join(', ')})`;
  }
  if (op === 3 && files.length > 4) {
    fs.rmSync(abs);
    return `deleted ${f}`;
  }
  if (op === 4 && files.length > 1) {
    // Moved next to another file: what imported it by path or alias finds it no more, or elsewhere.
    const to = `${path.posix.dirname(pick(r, files))}/${path.posix.basename(f)}`;
    if (to !== f && !fs.existsSync(path.join(root, to))) {
      write(root, to, fs.readFileSync(abs, 'utf8'));
      fs.rmSync(abs);
      return `moved ${f} to ${to}`;
    }
  }
  const back = pick(r, [...original.keys()]);
  write(root, back, original.get(back)!);
  return `restored ${back}`;
}

describe('TypeScript: incremental equals cold', () => {
  for (const [fixture, seed] of [
    ['typescript', 1],
    ['typescript', 2],
    ['ts-project', 3],
    ['ts-project', 4],
    ['javascript', 5],
    ...(process.env.NSCCN_MORE_SEEDS ? Array.from({ length: Number(process.env.NSCCN_MORE_SEEDS) }, (_, i) => [(['typescript', 'ts-project', 'javascript'] as const)[i % 3], 100 + i] as const) : []),
  ] as const) {
    const live = seed % 2 === 0; // every other seed: through buffers and watched changes, not index runs
    test(`40 random edits of ${fixture} (seed ${seed}), each ${live ? 'typed into buffers or watched' : 're-indexed incrementally'}, equal a cold index`, () =>
      randomEditsEqualCold({ fixture, seed, live, files: editedFiles, mutate, cleanup: dirs }), 120_000);
  }
});

// The rules the random edits above found missing, one sample each.
describe('TypeScript: what a change re-resolves elsewhere', () => {
  async function steps(files: Record<string, string>, edits: Array<Record<string, string | null>>, id: string, expected: Array<Array<string | null>>) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-ts-rule-'));
    dirs.push(root);
    for (const [rel, text] of Object.entries(files)) write(root, rel, text);
    const e = await open(root);
    await e.indexWorkspace();
    const seen = [e.outgoing(id, ['CALLS']).map((x) => x.target)];
    for (const edit of edits) {
      for (const [rel, text] of Object.entries(edit)) text === null ? fs.rmSync(path.join(root, rel)) : write(root, rel, text);
      await e.indexWorkspace();
      seen.push(e.outgoing(id, ['CALLS']).map((x) => x.target));
      expect(edgeList(e)).toEqual(await coldGraph(root));
    }
    await e.close();
    expect(seen).toEqual(expected);
  }

  test('a class that comes back behind `export default X` is found again through the default import', async () => {
    const user = 'export class User {\n  constructor(public email: string) {}\n}\n\nexport default User;\n';
    await steps(
      { 'user.ts': user, 'main.ts': "import DefaultUser from './user';\n\nexport function make() {\n  return new DefaultUser('a');\n}\n" },
      [{ 'user.ts': 'export default User;\n' }, { 'user.ts': user }],
      'func:main.ts:make',
      [['method:user.ts:User.constructor'], [null], ['method:user.ts:User.constructor']],
    );
  });

  for (const spec of ['./models', './models/index'])
    test(`a folder index that goes and comes back, imported as '${spec}'`, async () => {
      const index = "export { write } from './base';\n";
      await steps(
        { 'models/base.ts': 'export function write(): void {}\n', 'models/index.ts': index, 'main.ts': `import { write } from '${spec}';\n\nexport function run() {\n  write();\n}\n` },
        [{ 'models/index.ts': null }, { 'models/index.ts': index }],
        'func:main.ts:run',
        [['func:models/base.ts:write'], [null], ['func:models/base.ts:write']],
      );
    });

  test('a name defined twice in one file and once removed: a guess elsewhere finds the one left', async () => {
    const twice = 'export function a() {}\n\nfunction next(): number {\n  return 1;\n}\n\nfunction next(): number {\n  return 2;\n}\n';
    await steps(
      { 'ui/view.ts': twice, 'svc/use.ts': 'export function use() {\n  return next();\n}\n' },
      [{ 'ui/view.ts': 'export function a() {}\n\nfunction next(): number {\n  return 2;\n}\n' }],
      'func:svc/use.ts:use',
      [[null], ['func:ui/view.ts:next']],
    );
  });
});

