// The project files a language reads to name modules (tsconfig.json `paths`, pyproject.toml
// source roots) are not indexed, yet the edges come from what they say. When one changes, the
// next index run — in this process or another — makes the import targets and edges that depend
// on it again (a Python project file only names modules: nothing is parsed again), and the graph
// equals a cold index of the same files.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { edgeList } from './helpers/workspace';
import { coldGraph } from './helpers/cold-diff';
import { digest } from '../server/src/engine/digest';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const open = (root: string) => Engine.open({ root, workers: 0, embeddings: { model: 'none' } });

function tree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-project-'));
  dirs.push(root);
  for (const [rel, text] of Object.entries(files)) write(root, rel, text);
  return root;
}

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

const calls = (e: Engine, id: string) => e.outgoing(id, ['CALLS']).map((x) => x.target).sort();

const tsconfig = (to: string) => JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@app/*': [`${to}/*`] } } });
const TS = {
  'tsconfig.json': tsconfig('src'),
  'src/x.ts': 'export function go(): number {\n  return 1;\n}\n',
  'lib/x.ts': 'export function go(): number {\n  return 2;\n}\n',
  'main.ts': "import { go } from '@app/x';\n\nexport function run(): number {\n  return go();\n}\n",
};

/** Two folders that each hold a package `pkg`, and a script importing `pkg.core`. */
const TWO_PKGS = {
      'lib/pkg/__init__.py': '',
      'lib/pkg/core.py': 'def go():\n    return 1\n',
      'vendored/pkg/__init__.py': '',
      'vendored/pkg/core.py': 'def go():\n    return 2\n',
      'app.py': 'from pkg.core import go\n\n\ndef run():\n    return go()\n',
};

describe('a project file that changes reaches the graph', () => {
  test('a tsconfig path alias pointed elsewhere moves the edges, as a cold index has them', async () => {
    const root = tree(TS);
    const e = await open(root);
    await e.indexWorkspace();
    expect(calls(e, 'func:main.ts:run')).toEqual(['func:src/x.ts:go']);
    // An unchanged project: the next run is a no-op.
    expect((await e.indexWorkspace()).parsed).toBe(0);
    write(root, 'tsconfig.json', tsconfig('lib'));
    const s = await e.indexWorkspace();
    expect(s.notes?.join('\n')).toMatch(/tsconfig\.json changed: every file is indexed and resolved again/);
    expect(calls(e, 'func:main.ts:run')).toEqual(['func:lib/x.ts:go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    expect((await e.indexWorkspace()).parsed).toBe(0);
    await e.close();
  });

  test('another process sees it too: the index remembers which project files it was made from', async () => {
    const root = tree(TS);
    let e = await open(root);
    await e.indexWorkspace();
    await e.close();
    write(root, 'tsconfig.json', tsconfig('lib'));
    e = await open(root);
    await e.indexWorkspace();
    expect(calls(e, 'func:main.ts:run')).toEqual(['func:lib/x.ts:go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('a pyproject.toml that appears and declares a source root names the modules under it, and goes', async () => {
    const root = tree(TWO_PKGS);
    const e = await open(root);
    await e.indexWorkspace();
    // Two folders hold a `pkg`: without a declared root, both are candidates.
    const both = ['func:lib/pkg/core.py:go', 'func:vendored/pkg/core.py:go'];
    expect(calls(e, 'func:app.py:run')).toEqual(both);
    write(root, 'pyproject.toml', '[tool.setuptools.packages.find]\nwhere = ["lib"]\n');
    // It names modules and nothing else: no file is parsed again.
    const s = await e.indexWorkspace();
    expect(s.parsed).toBe(0);
    expect(s.notes?.join('\n')).toMatch(/pyproject\.toml changed: the modules below the root are named anew/);
    expect(calls(e, 'func:app.py:run')).toEqual(['func:lib/pkg/core.py:go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    expect((await e.indexWorkspace()).notes).toBeUndefined(); // recorded: the next run is a no-op
    fs.rmSync(path.join(root, 'pyproject.toml'));
    expect((await e.indexWorkspace()).parsed).toBe(0);
    expect(calls(e, 'func:app.py:run')).toEqual(both);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test("a pyproject.toml's dependencies or tool settings move nothing; its source roots do", async () => {
    const pyproject = (where: string, extra = '') => `[project]\nname = "app"\n${extra}\n[tool.setuptools.packages.find]\nwhere = ["${where}"]\n`;
    const root = tree({
      ...TWO_PKGS,
      'pyproject.toml': pyproject('lib'),
    });
    const e = await open(root);
    await e.indexWorkspace();
    expect(calls(e, 'func:app.py:run')).toEqual(['func:lib/pkg/core.py:go']);
    write(root, 'pyproject.toml', pyproject('lib', 'dependencies = ["requests>=2"]\n\n[tool.ruff]\nline-length = 100\n'));
    const s = await e.indexWorkspace();
    expect(s.parsed).toBe(0);
    expect(s.notes).toBeUndefined();
    write(root, 'pyproject.toml', pyproject('vendored', 'dependencies = ["requests>=2"]\n'));
    expect((await e.indexWorkspace()).notes?.join('\n')).toMatch(/pyproject\.toml changed: the modules below the root are named anew/);
    expect(calls(e, 'func:app.py:run')).toEqual(['func:vendored/pkg/core.py:go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test("a sub-project's setup.cfg and setup.py move the names below their folder, seen by another process too", async () => {
    const root = tree({
      'svc/src/svc_core/__init__.py': '',
      'svc/src/svc_core/jobs.py': 'def start():\n    return 1\n',
      'svc/svc_core/__init__.py': '',
      'svc/svc_core/jobs.py': 'def start():\n    return 2\n',
      'svc/svc_core/run.py': 'from svc_core.jobs import start\n\n\ndef main():\n    return start()\n',
      'tools/svc_core/jobs.py': 'def start():\n    return 3\n',
      'cli.py': 'from svc_core import jobs\n\n\ndef go():\n    return jobs.start()\n',
    });
    let e = await open(root);
    await e.indexWorkspace();
    const before = { run: calls(e, 'func:svc/svc_core/run.py:main'), cli: calls(e, 'func:cli.py:go') };
    write(root, 'svc/setup.cfg', '[options]\npackage_dir =\n    =src\n');
    let s = await e.indexWorkspace();
    expect(s.parsed).toBe(0);
    expect(s.notes?.join('\n')).toMatch(/svc\/setup\.cfg changed: the modules below svc are named anew/);
    expect(calls(e, 'func:cli.py:go')).toEqual(['func:svc/src/svc_core/jobs.py:start']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
    // Another process: a setup.py beside it that says the same, then the setup.cfg gone.
    write(root, 'svc/setup.py', "from setuptools import setup, find_packages\nsetup(packages=find_packages('src'))\n");
    fs.rmSync(path.join(root, 'svc/setup.cfg'));
    e = await open(root);
    s = await e.indexWorkspace();
    expect(s.parsed).toBe(1); // setup.py itself, a Python file
    expect(edgeList(e)).toEqual(await coldGraph(root));
    fs.rmSync(path.join(root, 'svc/setup.py'));
    await e.indexWorkspace();
    expect({ run: calls(e, 'func:svc/svc_core/run.py:main'), cli: calls(e, 'func:cli.py:go') }).toEqual(before);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('a dependency added or a compiler flag switched re-indexes nothing; a workspace package pointed elsewhere does', async () => {
    const pkg = (main: string, extra = {}) => JSON.stringify({ name: '@acme/core', version: '1.0.0', main, ...extra }, null, 2);
    const root = tree({
      'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'] }),
      'tsconfig.json': '{\n  // comments are allowed\n  "compilerOptions": { "strict": false }\n}\n',
      'packages/core/package.json': pkg('src/index.ts'),
      'packages/core/src/index.ts': 'export function go(): number {\n  return 1;\n}\n',
      'packages/core/src/alt.ts': 'export function go(): number {\n  return 2;\n}\n',
      'app.ts': "import { go } from '@acme/core';\n\nexport function run(): number {\n  return go();\n}\n",
    });
    const e = await open(root);
    await e.indexWorkspace();
    expect(calls(e, 'func:app.ts:run')).toEqual(['func:packages/core/src/index.ts:go']);
    write(root, 'package.json', JSON.stringify({ private: true, workspaces: ['packages/*'], devDependencies: { typescript: '^5.9.0' } }));
    write(root, 'packages/core/package.json', pkg('src/index.ts', { version: '1.1.0', dependencies: { zod: '^3.0.0' } }));
    write(root, 'tsconfig.json', '{\n  "compilerOptions": { "strict": true, "target": "es2022" }\n}\n');
    let s = await e.indexWorkspace();
    expect(s.parsed).toBe(0);
    expect(s.notes).toBeUndefined();
    write(root, 'packages/core/package.json', pkg('src/alt.ts', { version: '1.1.0' }));
    s = await e.indexWorkspace();
    expect(s.notes?.join('\n')).toMatch(/packages\/core\/package\.json changed: every file is indexed and resolved again/);
    expect(calls(e, 'func:app.ts:run')).toEqual(['func:packages/core/src/alt.ts:go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('an index that kept whole-file digests (made before views) sees the same changes, and keeps views from then on', async () => {
    const root = tree(TS);
    const e = await open(root);
    await e.indexWorkspace();
    // As an older build wrote it: the digest of each file's whole text.
    const reads = JSON.parse(e.store.meta('project_reads')!) as Array<[string, string | null]>;
    expect(reads.find(([rel]) => rel === 'tsconfig.json')?.[1]).toMatch(/^v:/);
    e.store.setMeta('project_reads', JSON.stringify(reads.map(([rel, d]) => [rel, d === null ? null : digest(fs.readFileSync(path.join(root, rel), 'utf8'))])));
    expect((await e.indexWorkspace()).notes).toBeUndefined(); // nothing changed
    // A flag switched: the whole text differs, so this once the old record says moved.
    write(root, 'tsconfig.json', JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@app/*': ['src/*'] }, strict: true } }));
    expect((await e.indexWorkspace()).notes?.join('\n')).toMatch(/tsconfig\.json changed/);
    write(root, 'tsconfig.json', JSON.stringify({ compilerOptions: { baseUrl: '.', paths: { '@app/*': ['src/*'] }, strict: false } }));
    expect((await e.indexWorkspace()).notes).toBeUndefined();
    write(root, 'tsconfig.json', tsconfig('lib'));
    await e.indexWorkspace();
    expect(calls(e, 'func:main.ts:run')).toEqual(['func:lib/x.ts:go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('a file open in the editor follows too, and a watched change to the project file starts the run', async () => {
    const root = tree(TS);
    const e = await open(root);
    await e.indexWorkspace();
    e.openDocument('main.ts', TS['main.ts'], 1);
    expect(e.isWatched('tsconfig.json')).toBe(true);
    write(root, 'tsconfig.json', tsconfig('lib'));
    await e.syncFiles([{ path: 'tsconfig.json', type: 'changed' }]);
    expect(calls(e, 'func:main.ts:run')).toEqual(['func:lib/x.ts:go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  describe('a file a path alias finds, appearing and going while its importer stays as it is', () => {
    const files = () => ({ 'tsconfig.json': tsconfig('src'), 'src/y.ts': 'export const y = 1;\n', 'main.ts': TS['main.ts'] });
    const X = 'export function go(): number {\n  return 1;\n}\n';

    test('through index runs', async () => {
      const root = tree(files());
      const e = await open(root);
      await e.indexWorkspace();
      expect(calls(e, 'func:main.ts:run')).toEqual([null]); // unresolved
      write(root, 'src/x.ts', X);
      const s = await e.indexWorkspace();
      expect(s.parsed).toBe(2); // src/x.ts, and main.ts again
      expect(calls(e, 'func:main.ts:run')).toEqual(['func:src/x.ts:go']);
      expect(edgeList(e)).toEqual(await coldGraph(root));
      fs.rmSync(path.join(root, 'src/x.ts'));
      await e.indexWorkspace();
      expect(calls(e, 'func:main.ts:run')).toEqual([null]); // unresolved
      expect(edgeList(e)).toEqual(await coldGraph(root));
      await e.close();
    });

    test('a found file open in the editor, deleted on disk and closed: its importers follow', async () => {
      const root = tree({ ...files(), 'src/x.ts': X });
      const e = await open(root);
      await e.indexWorkspace();
      e.openDocument('src/x.ts', X, 1);
      expect(calls(e, 'func:main.ts:run')).toEqual(['func:src/x.ts:go']);
      fs.rmSync(path.join(root, 'src/x.ts'));
      await e.closeDocument('src/x.ts');
      expect(calls(e, 'func:main.ts:run')).toEqual([null]); // unresolved
      expect(edgeList(e)).toEqual(await coldGraph(root));
      await e.close();
    });

    test('through watched changes, with the importer open in the editor or not', async () => {
      for (const openImporter of [false, true]) {
        const root = tree(files());
        const e = await open(root);
        await e.indexWorkspace();
        if (openImporter) e.openDocument('main.ts', TS['main.ts'], 1);
        write(root, 'src/x.ts', X);
        await e.syncFiles([{ path: 'src/x.ts', type: 'created' }]);
        expect(calls(e, 'func:main.ts:run'), `importer open: ${openImporter}`).toEqual(['func:src/x.ts:go']);
        expect(edgeList(e)).toEqual(await coldGraph(root));
        fs.rmSync(path.join(root, 'src/x.ts'));
        await e.syncFiles([{ path: 'src/x.ts', type: 'deleted' }]);
        expect(calls(e, 'func:main.ts:run')).toEqual([null]); // unresolved
        expect(edgeList(e)).toEqual(await coldGraph(root));
        await e.close();
      }
    });
  });
});
