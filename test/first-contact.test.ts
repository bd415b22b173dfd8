// What a new user meets first: the workspace root found from a subfolder, the project config
// file (.nsccn.json) and its errors, index-shaping flags that persist, no model unless named.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { IndexSummary, StatsResponse } from '../protocol';
import { findWorkspaceRoot } from '../server/src/engine/config/root';
import { sourceRootExcludes } from '../server/src/engine/config/project';
import { NO_MODEL_NOTE } from '../server/src/engine/embed/model-settings';
import { Engine } from '../server/src/engine/engine';
import { copyFixture } from './helpers/workspace';

const CLI = path.resolve(__dirname, '../dist/server/src/cli/main.js');
const roots: string[] = [];

function fresh(): string {
  const root = copyFixture('causal');
  roots.push(root);
  return root;
}

function nsccn(cwd: string, ...args: string[]) {
  const env = { ...process.env };
  delete env.NSCCN_MODEL;
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...env, NSCCN_STATIC_TABLE: 'none' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm test does it first)`);
});
afterEach(() => {
  while (roots.length) fs.rmSync(roots.pop()!, { recursive: true, force: true });
});

describe('the workspace root', () => {
  test('found upward: an index or config file beats a nearer project file', () => {
    const root = fresh();
    fs.mkdirSync(path.join(root, 'service/sub'), { recursive: true });
    fs.writeFileSync(path.join(root, 'service/pyproject.toml'), '');
    expect(findWorkspaceRoot(path.join(root, 'service/sub'))).toBe(path.join(root, 'service'));
    fs.writeFileSync(path.join(root, '.nsccn.json'), '{}');
    expect(findWorkspaceRoot(path.join(root, 'service/sub'))).toBe(root);
  });

  test('nsccn run from a subfolder uses the index at the root, and .nsccn/ ignores itself in git', () => {
    const root = fresh();
    fs.writeFileSync(path.join(root, '.nsccn.json'), '{}');
    const first = nsccn(root, 'index', '--json');
    expect(first.code).toBe(0);
    const again = nsccn(path.join(root, 'service'), 'index', '--json');
    expect(JSON.parse(again.stdout) as IndexSummary).toMatchObject({ files: 9, parsed: 0, unchanged: 9 });
    expect(fs.existsSync(path.join(root, 'service', '.nsccn'))).toBe(false);
    expect(fs.readFileSync(path.join(root, '.nsccn', '.gitignore'), 'utf8')).toContain('*');
  });
});

describe('.nsccn.json', () => {
  test('exclude and sourceRoots shape the index for the CLI and the engine alike', async () => {
    const root = fresh();
    fs.writeFileSync(path.join(root, '.nsccn.json'), JSON.stringify({ sourceRoots: ['service'], exclude: ['util_*.py'] }));
    const summary = JSON.parse(nsccn(root, 'index', '--json').stdout) as IndexSummary;
    expect(summary.files).toBe(6); // service/ without util_a.py, util_b.py; not app.py
    const engine = await Engine.open({ root, workers: 0 });
    try {
      expect(engine.store.files().map((f) => f.path).sort()).toEqual([
        'service/__init__.py',
        'service/core.py',
        'service/errors.py',
        'service/models.py',
        'service/settings.py',
        'service/store.py',
      ]);
      expect((await engine.indexWorkspace()).parsed).toBe(0);
    } finally {
      await engine.close();
    }
  });

  test('a bad key or value is an error that names it', () => {
    const root = fresh();
    fs.writeFileSync(path.join(root, '.nsccn.json'), JSON.stringify({ exlude: ['x'] }));
    const r = nsccn(root, 'stats');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`nsccn: ${path.join(root, '.nsccn.json')}: unknown key "exlude" (known: exclude, sourceRoots, maxFileBytes, model, quantization, testGlobs)\n`);
    fs.writeFileSync(path.join(root, '.nsccn.json'), JSON.stringify({ maxFileBytes: 'big' }));
    expect(nsccn(root, 'stats').stderr).toBe(`nsccn: ${path.join(root, '.nsccn.json')}: "maxFileBytes" must be a positive integer, got "big"\n`);
    fs.writeFileSync(path.join(root, '.nsccn.json'), '{ nope');
    expect(nsccn(root, 'stats').stderr).toMatch(/\.nsccn\.json: not valid JSON/);
  });

  test('sourceRoots become excludes that keep the way down to each root', () => {
    expect(sourceRootExcludes(['src/pkg', 'lib'])).toEqual(['/*', '!/src/', '!/lib/', '/src/*', '!/src/pkg/']);
    expect(sourceRootExcludes(['src', 'src/pkg'])).toEqual(['/*', '!/src/']);
  });
});

describe('index-shaping flags persist', () => {
  test('index --exclude is kept by later queries; a query with other flags is an error', () => {
    const root = fresh();
    expect(JSON.parse(nsccn(root, 'index', '--exclude', 'service/util_b.py', '--json').stdout).files).toBe(8);
    const stats = JSON.parse(nsccn(root, 'stats', '--json').stdout) as StatsResponse;
    expect(stats.files).toBe(8);
    const other = nsccn(root, 'stats', '--exclude', 'app.py');
    expect(other.code).toBe(1);
    expect(other.stderr).toBe('nsccn: the index was built with --exclude service/util_b.py; to index with --exclude app.py, run nsccn index with them (or put them in .nsccn.json)\n');
    expect(nsccn(root, 'stats', '--exclude', 'service/util_b.py').code).toBe(0);
  });
});

describe('no model unless named', () => {
  test('the engine says so and loads nothing', async () => {
    const root = fresh();
    const saved = process.env.NSCCN_MODEL;
    delete process.env.NSCCN_MODEL;
    const engine = await Engine.open({ root, workers: 0 });
    try {
      expect(engine.status().notes).toContain(NO_MODEL_NOTE);
      expect(engine.status().embeddings).toBeNull();
    } finally {
      await engine.close();
      if (saved !== undefined) process.env.NSCCN_MODEL = saved;
    }
  });
});
