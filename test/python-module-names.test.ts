// Which workspace file an absolute Python import finds: the source roots project files declare
// (every shape of pyproject.toml, setup.cfg and setup.py the reader knows), a workspace root
// that is itself a package, and names the project's virtual environment installs. The rules are
// in server/src/engine/graph/README.md ("Module names"); the samples under
// fixtures/resolution/ show them in small workspaces.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { declaredRoots, parseTomlTables } from '../server/src/engine/languages/python/project-roots';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function workspace(files: Record<string, string>, name = 'ws'): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-modnames-'));
  dirs.push(parent);
  const root = path.join(parent, name);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

async function calls(root: string, from: string): Promise<string[]> {
  const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
  try {
    await e.indexWorkspace();
    return e
      .outgoing(from, ['CALLS'])
      .map((x) => x.target ?? `?${x.targetName}`)
      .sort();
  } finally {
    await e.close();
  }
}

/** The roots one folder's project files declare, given its files. */
function rootsOf(files: Record<string, string>, folders: string[] = []): string[] | null {
  return declaredRoots(
    (name) => files[name],
    (rel) => folders.includes(rel),
  );
}

describe('source roots declared by project files', () => {
  test.each([
    ['setuptools package-dir, inline table', '[tool.setuptools]\npackage-dir = {"" = "lib"}\n', ['lib']],
    ['setuptools package-dir, own table', '[tool.setuptools.package-dir]\n"" = "lib"\n', ['lib']],
    ['setuptools packages.find where', '[tool.setuptools.packages.find]\nwhere = [\n  "lib", # comment\n]\n', ['lib']],
    ['hatch packages', '[tool.hatch.build.targets.wheel]\npackages = ["code/foo"]\n', ['code']],
    ['hatch sources as a list', '[tool.hatch.build.targets.wheel]\nsources = ["code"]\n', ['code']],
    ['hatch sources as a table', '[tool.hatch.build.targets.wheel.sources]\n"code" = ""\n', ['code']],
    ['poetry packages from', '[tool.poetry]\nname = "x"\npackages = [\n  { include = "foo", from = "code" },\n  { include = "bar" },\n]\n', ['code', '.']],
    ['uv module-root', '[tool.uv.build-backend]\nmodule-root = "code"\n', ['code']],
    ['nothing declared, flat layout', '[project]\nname = "x"\n', ['.']],
  ])('%s', (_name, text, want) => {
    expect(rootsOf({ 'pyproject.toml': text })).toEqual(want);
  });

  test('flit and uv find their module under src/ when it is there', () => {
    expect(rootsOf({ 'pyproject.toml': '[tool.flit.module]\nname = "foo"\n' }, ['src/foo'])).toEqual(['src']);
    expect(rootsOf({ 'pyproject.toml': '[tool.flit.module]\nname = "foo"\n' })).toEqual(['.']);
    expect(rootsOf({ 'pyproject.toml': '[tool.uv.build-backend]\nmodule-name = "foo"\n' })).toEqual(['src']);
    expect(rootsOf({ 'pyproject.toml': '[project]\nname = "x"\n' }, ['src'])).toEqual(['src']);
  });

  test('setup.cfg and setup.py', () => {
    expect(rootsOf({ 'setup.cfg': '[options]\npackage_dir =\n    =lib\npackages = find:\n' })).toEqual(['lib']);
    expect(rootsOf({ 'setup.cfg': '[options.packages.find]\nwhere = lib\n' })).toEqual(['lib']);
    expect(rootsOf({ 'setup.py': 'setup(\n    package_dir={"": "lib"},\n    packages=find_packages(where="lib"),\n)\n' })).toEqual(['lib']);
    expect(rootsOf({ 'setup.py': 'setup(packages=find_namespace_packages("lib"))\n' })).toEqual(['lib']);
    expect(rootsOf({})).toBeNull();
  });

  test('a project file the reader cannot read loses a root, not the project', () => {
    expect(rootsOf({ 'pyproject.toml': '[tool.setuptools\npackage-dir = {"" = \n' })).toEqual(['.']);
    expect(parseTomlTables('a = "x\n[b]\nc = [1, {d = "e"}]\n').get('b')).toEqual({ c: [1, { d: 'e' }] });
  });
});

describe('absolute imports in whole workspaces', () => {
  test('a workspace root that is itself a package is named by its folder (site-packages/flask indexed alone)', async () => {
    const root = workspace(
      {
        '__init__.py': 'from .app import Flask\n',
        'app.py': 'class Flask:\n    def run(self):\n        return 1\n',
        'json/__init__.py': 'def dumps(o):\n    return o\n',
        'cli.py': 'import json\nfrom flask.app import Flask\nfrom flask.json import dumps\n\n\ndef main():\n    json.loads("1")\n    dumps(1)\n    return Flask().run()\n',
      },
      'flask',
    );
    expect(await calls(root, 'func:cli.py:main')).toEqual(['?json.loads', 'class:app.py:Flask', 'func:json/__init__.py:dumps', 'method:app.py:Flask.run']);
  });

  test("a name the project's virtual environment installs never binds to another folder's stray module", async () => {
    const root = workspace({
      '.venv/lib/python3.11/site-packages/requests/__init__.py': 'def get(url):\n    return url\n',
      '.gitignore': '.venv/\n',
      'src/pkg/__init__.py': '',
      'src/pkg/fetch.py': 'import requests\nimport helpers\n\n\ndef fetch():\n    requests.get("x")\n    return helpers.help()\n',
      'tools/requests.py': 'def get(url):\n    return url\n',
      'tools/helpers.py': 'def help():\n    return 1\n',
    });
    // `helpers` is nobody's installed name: the only file of that name is found (another basedir).
    expect(await calls(root, 'func:src/pkg/fetch.py:fetch')).toEqual(['?requests.get', 'func:tools/helpers.py:help']);
  });

  test('among stray modules of one name in other folders, the nearest wins, and a tie is ambiguous', async () => {
    const root = workspace({
      'jobs/a/util.py': 'def go():\n    return 1\n',
      'jobs/b/util.py': 'def go():\n    return 2\n',
      'jobs/b/deep/run.py': 'import util\n\n\ndef main():\n    return util.go()\n',
      'other/run.py': 'import util\n\n\ndef main():\n    return util.go()\n',
    });
    expect(await calls(root, 'func:jobs/b/deep/run.py:main')).toEqual(['func:jobs/b/util.py:go']);
    const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    try {
      await e.indexWorkspace();
      const out = e.outgoing('func:other/run.py:main', ['CALLS']);
      expect(out.map((x) => [x.target, x.ambiguous]).sort()).toEqual([
        ['func:jobs/a/util.py:go', true],
        ['func:jobs/b/util.py:go', true],
      ]);
    } finally {
      await e.close();
    }
  });
});
