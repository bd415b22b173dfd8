// An index kept current file by file holds exactly the graph a cold index of the same files
// holds. Random edits to real fixture code (definitions removed and copied elsewhere, bases
// swapped, files added, deleted and restored, `__init__.py` created and deleted), each followed by an incremental run, compared
// edge for edge with a cold index of a copy. A failing seed prints its step for a reproduction.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { Engine } from '../server/src/engine/engine';
import { lastSegment } from '../server/src/engine/dotted';
import { mulberry32 } from '../server/eval/random';
import { copyFixture, edgeList } from './helpers/workspace';
import { decodeCallArgs } from '../server/src/engine/store/call-args-row';
import { coldGraph, randomEditsEqualCold } from './helpers/cold-diff';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const open = (root: string) => Engine.open({ root, workers: 0, embeddings: { model: 'none' } });

function pyFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory() && d.name !== '.nsccn') out.push(...pyFiles(root, p));
    else if (d.name.endsWith('.py')) out.push(p);
  }
  return out.sort();
}

/** What the edits may touch: the code, and the pyproject.toml that may declare a source root. */
function editedFiles(root: string): string[] {
  return [...pyFiles(root), ...(fs.existsSync(path.join(root, 'pyproject.toml')) ? ['pyproject.toml'] : [])];
}

/** `def`/`class` blocks: [first line, end line) at any indentation. */
function blocks(lines: string[]): Array<{ start: number; end: number; indent: number }> {
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)(def|class) \w+/.exec(lines[i]);
    if (!m) continue;
    const indent = m[1].length;
    let end = i + 1;
    while (end < lines.length && (lines[end].trim() === '' || lines[end].search(/\S/) > indent)) end++;
    out.push({ start: i, end, indent });
  }
  return out;
}

type Rng = () => number;
const pick = <T>(r: Rng, xs: T[]): T => xs[Math.floor(r() * xs.length)];

function names(root: string): { classes: string[]; defs: string[] } {
  const classes = new Set<string>();
  const defs = new Set<string>();
  for (const f of pyFiles(root)) {
    for (const m of fs.readFileSync(path.join(root, f), 'utf8').matchAll(/^\s*(def|class) (\w+)/gm)) (m[1] === 'class' ? classes : defs).add(m[2]);
  }
  return { classes: [...classes].sort(), defs: [...defs].sort() };
}

/**
 * One random edit of the workspace on disk; returns what it did. `overrides`: an eighth kind of
 * edit, a method named like one defined elsewhere added to a subclass (dispatch edges move).
 */
function mutate(root: string, original: Map<string, string>, r: Rng, overrides = false): string {
  const files = pyFiles(root);
  const f = pick(r, files);
  const abs = path.join(root, f);
  const lines = fs.readFileSync(abs, 'utf8').split('\n');
  const bs = blocks(lines);
  if (r() < 1 / 16) {
    // A pyproject.toml declares another source root, or goes: every module name may move.
    const pyproject = path.join(root, 'pyproject.toml');
    if (fs.existsSync(pyproject) && r() < 0.5) {
      fs.rmSync(pyproject);
      return 'deleted pyproject.toml';
    }
    const top = pick(r, ['.', ...new Set(files.map((x) => x.split('/')[0]).filter((d) => !d.endsWith('.py')))]);
    fs.writeFileSync(pyproject, `[tool.setuptools.packages.find]\nwhere = ["${top}"]\n`);
    return `pyproject.toml: where = ${top}`;
  }
  const op = Math.floor(r() * (overrides ? 8 : 7));
  if (op === 6) {
    // A folder becomes a package or stops being one: the import names of the files below move.
    const dirs = [...new Set(files.map((x) => path.dirname(x)))].filter((d) => d !== '.');
    const init = path.join(root, pick(r, dirs), '__init__.py');
    if (fs.existsSync(init)) fs.rmSync(init);
    else fs.writeFileSync(init, '');
    return `${fs.existsSync(init) ? 'created' : 'deleted'} ${path.relative(root, init)}`;
  }
  if (op === 7) {
    const subclasses = lines.flatMap((l, i) => (/^class \w+\(\w/.test(l) ? [i] : []));
    const methods = [...new Set([...fs.readFileSync(abs, 'utf8').matchAll(/^ +def (\w+)\(self/gm)].map((m) => m[1]))];
    if (subclasses.length && methods.length) {
      const at = pick(r, subclasses);
      const name = pick(r, methods);
      lines.splice(at + 1, 0, `    def ${name}(self, *args):`, '        return None', '');
      fs.writeFileSync(abs, lines.join('\n'));
      return `${f}: override ${name} added to ${lines[at]}`;
    }
  }
  if (op === 0 && bs.length) {
    const b = pick(r, bs);
    lines.splice(b.start, b.end - b.start, ...(b.indent ? [' '.repeat(b.indent) + 'pass'] : []));
    fs.writeFileSync(abs, lines.join('\n'));
    return `removed ${lines[b.start]?.trim() ?? ''} block at ${f}:${b.start + 1}`;
  }
  if (op === 1 && bs.length) {
    const b = pick(r, bs.filter((x) => x.indent === 0).concat(bs.filter((x) => x.indent === 0).length ? [] : bs));
    const text = lines.slice(b.start, b.end).map((l) => l.slice(b.indent)).join('\n');
    const to = pick(r, files);
    fs.appendFileSync(path.join(root, to), '\n\n' + text + '\n');
    return `copied ${f}:${b.start + 1} to ${to}`;
  }
  if (op === 2) {
    const { classes } = names(root);
    const i = lines.findIndex((l) => /^class \w+/.test(l));
    if (i >= 0 && classes.length) {
      const base = pick(r, classes);
      lines[i] = lines[i].replace(/^class (\w+)(\([^)]*\))?:/, `class $1(${base}):`);
      fs.writeFileSync(abs, lines.join('\n'));
      return `${f}: ${lines[i]}`;
    }
  }
  if (op === 3) {
    const { classes, defs } = names(root);
    const n = Math.floor(r() * 1000);
    const body = [`def added_${n}(x):`];
    for (let k = 0; k < 4; k++) {
      if (r() < 0.5 && classes.length) body.push(`    o${k} = ${pick(r, classes)}()`, `    o${k}.${pick(r, defs)}()`);
      else body.push(`    ${pick(r, defs)}(x)`);
    }
    const dir = path.dirname(f) === '.' ? '' : path.dirname(f) + '/';
    const mods = files.filter((x) => path.dirname(x) === path.dirname(f) && !x.endsWith('__init__.py')).map((x) => path.basename(x, '.py'));
    const imp = mods.length ? `from .${pick(r, mods)} import ${pick(r, [...classes, ...defs])}\n` : '';
    fs.writeFileSync(path.join(root, `${dir}added_${n}.py`), imp + body.join('\n') + '\n');
    return `added ${dir}added_${n}.py`;
  }
  if (op === 4 && files.length > 3) {
    fs.rmSync(abs);
    return `deleted ${f}`;
  }
  const back = pick(r, [...original.keys()]);
  fs.mkdirSync(path.dirname(path.join(root, back)), { recursive: true });
  fs.writeFileSync(path.join(root, back), original.get(back)!);
  return `restored ${back}`;
}

describe('incremental equals cold', () => {
  test('a constructor call through a base class __init__ follows the base when it changes', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-ctor-'));
    dirs.push(root);
    fs.writeFileSync(path.join(root, 'b.py'), 'class Base:\n    def __init__(self):\n        pass\n\n\nclass Child(Base):\n    pass\n');
    fs.writeFileSync(path.join(root, 'a.py'), 'from b import Child\n\n\ndef make():\n    return Child()\n');
    const e = await open(root);
    await e.indexWorkspace();
    expect(e.outgoing('func:a.py:make', ['CALLS']).map((x) => x.target)).toEqual(['method:b.py:Base.__init__']);
    fs.writeFileSync(path.join(root, 'b.py'), 'class Base:\n    pass\n\n\nclass Child(Base):\n    pass\n');
    await e.indexWorkspace();
    expect(e.outgoing('func:a.py:make', ['CALLS']).map((x) => x.target)).toEqual(['class:b.py:Child']);
    fs.writeFileSync(path.join(root, 'b.py'), 'class Base:\n    def __init__(self):\n        pass\n\n\nclass Child(Base):\n    pass\n');
    await e.indexWorkspace();
    expect(e.outgoing('func:a.py:make', ['CALLS']).map((x) => x.target)).toEqual(['method:b.py:Base.__init__']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('calls through an attribute or a property follow its type when it changes in another file', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-retyped-'));
    dirs.push(root);
    const a = (attr: string, prop: string) =>
      [
        'class X:\n    def go(self):\n        return 1\n',
        'class Y:\n    def go(self):\n        return 2\n',
        `class A:\n    def __init__(self):\n        self.r = ${attr}()\n\n    @property\n    def p(self) -> ${prop}:\n        return ${prop}()\n`,
      ].join('\n\n');
    fs.writeFileSync(path.join(root, 'a.py'), a('X', 'X'));
    // Typed by a parameter, by a local, and through `self` in a subclass.
    fs.writeFileSync(path.join(root, 'b.py'), 'from a import A\n\n\ndef use(a: A):\n    return a.r.go(), a.p.go()\n\n\ndef local():\n    x = A()\n    return x.r.go()\n');
    fs.writeFileSync(path.join(root, 'c.py'), 'from a import A\n\n\nclass B(A):\n    def more(self):\n        return self.r.go(), self.p.go()\n');
    const calls = (e: Engine) => ['func:b.py:use', 'func:b.py:local', 'method:c.py:B.more'].map((id) => e.outgoing(id, ['CALLS']).map((x) => x.target).sort());
    const e = await open(root);
    await e.indexWorkspace();
    expect(calls(e)).toEqual([['method:a.py:A.p', 'method:a.py:X.go', 'method:a.py:X.go'], ['method:a.py:A.__init__', 'method:a.py:X.go'], ['method:a.py:A.p', 'method:a.py:X.go', 'method:a.py:X.go']]);
    fs.writeFileSync(path.join(root, 'a.py'), a('Y', 'Y'));
    await e.indexWorkspace();
    expect(calls(e)).toEqual([['method:a.py:A.p', 'method:a.py:Y.go', 'method:a.py:Y.go'], ['method:a.py:A.__init__', 'method:a.py:Y.go'], ['method:a.py:A.p', 'method:a.py:Y.go', 'method:a.py:Y.go']]);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    fs.writeFileSync(path.join(root, 'a.py'), a('X', 'Y'));
    await e.indexWorkspace();
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('a constructor call follows its class when a base class two files away goes and comes back', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-base-gone-'));
    dirs.push(root);
    const b = 'from a import Server\n\n\nclass Base(Server):\n    pass\n';
    fs.writeFileSync(path.join(root, 'a.py'), 'class Server:\n    def __init__(self):\n        pass\n');
    fs.writeFileSync(path.join(root, 'b.py'), b);
    fs.writeFileSync(path.join(root, 'c.py'), 'from b import Base\n\n\nclass Child(Base):\n    pass\n');
    fs.writeFileSync(path.join(root, 'd.py'), 'from c import Child\n\n\ndef make():\n    return Child()\n');
    const e = await open(root);
    await e.indexWorkspace();
    const made = () => e.outgoing('func:d.py:make', ['CALLS']).map((x) => x.target);
    expect(made()).toEqual(['method:a.py:Server.__init__']);
    fs.rmSync(path.join(root, 'b.py'));
    await e.indexWorkspace();
    expect(made()).toEqual(['class:c.py:Child']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    fs.writeFileSync(path.join(root, 'b.py'), b);
    await e.indexWorkspace();
    expect(made()).toEqual(['method:a.py:Server.__init__']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('a name re-exported through another module follows a package __init__ that goes and comes back', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-reexport-'));
    dirs.push(root);
    const init = 'from .core import Service\n';
    fs.mkdirSync(path.join(root, 'service'));
    fs.writeFileSync(path.join(root, 'service/__init__.py'), init);
    fs.writeFileSync(path.join(root, 'service/core.py'), 'class Service:\n    pass\n');
    fs.writeFileSync(path.join(root, 'app.py'), 'from service import Service\n');
    fs.writeFileSync(path.join(root, 'main.py'), 'from app import Service\n\n\ndef run():\n    return Service()\n');
    const e = await open(root);
    await e.indexWorkspace();
    const runs = () => e.outgoing('func:main.py:run', ['CALLS']).map((x) => x.target);
    expect(runs()).toEqual(['class:service/core.py:Service']);
    fs.rmSync(path.join(root, 'service/__init__.py'));
    await e.indexWorkspace();
    expect(runs()).toEqual([null]); // unresolved: `service` is a namespace package now
    expect(edgeList(e)).toEqual(await coldGraph(root));
    fs.writeFileSync(path.join(root, 'service/__init__.py'), init);
    await e.indexWorkspace();
    expect(runs()).toEqual(['class:service/core.py:Service']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('calls through a chain of attributes follow a type that changes two classes away', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-chain-'));
    dirs.push(root);
    const a = (held: string) => ['class X:\n    def go(self):\n        return 1\n', 'class Y:\n    def go(self):\n        return 2\n', `class A:\n    def __init__(self):\n        self.r = ${held}()\n`].join('\n\n');
    fs.writeFileSync(path.join(root, 'a.py'), a('X'));
    // B holds an A (by attribute and by property); C holds a B: the chains run through
    // classes whose own attributes did not change.
    fs.writeFileSync(path.join(root, 'b.py'), 'from a import A\n\n\nclass B:\n    def __init__(self):\n        self.a = A()\n\n    @property\n    def pa(self) -> A:\n        return self.a\n\n    def run(self):\n        return self.a.r.go(), self.pa.r.go()\n');
    fs.writeFileSync(path.join(root, 'c.py'), 'from b import B\n\n\nclass C:\n    def __init__(self):\n        self.b = B()\n\n    def run(self):\n        return self.b.a.r.go()\n\n\ndef use(b: B):\n    return b.a.r.go()\n');
    const goes = (e: Engine) => ['method:b.py:B.run', 'method:c.py:C.run', 'func:c.py:use'].map((id) => e.outgoing(id, ['CALLS']).map((x) => x.target).filter((t) => t.endsWith('.go')).sort());
    const e = await open(root);
    await e.indexWorkspace();
    expect(goes(e)).toEqual([['method:a.py:X.go', 'method:a.py:X.go'], ['method:a.py:X.go'], ['method:a.py:X.go']]);
    fs.writeFileSync(path.join(root, 'a.py'), a('Y'));
    await e.indexWorkspace();
    expect(goes(e)).toEqual([['method:a.py:Y.go', 'method:a.py:Y.go'], ['method:a.py:Y.go'], ['method:a.py:Y.go']]);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('calls through a module global follow its type when it changes, and through its attributes', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-globals-'));
    dirs.push(root);
    const g = (held: string, attr: string) =>
      [
        'class X:\n    def go(self):\n        return 1\n',
        'class Y:\n    def go(self):\n        return 2\n',
        `class App:\n    def __init__(self):\n        self.json = ${attr}()\n`,
        `log = ${held}()\napp: App = App()\n`,
      ].join('\n\n');
    fs.writeFileSync(path.join(root, 'g.py'), g('X', 'X'));
    fs.writeFileSync(path.join(root, 'u.py'), 'from g import log, app\nimport g\n\n\ndef f():\n    return log.go(), g.log.go(), app.json.go()\n');
    const calls = (e: Engine) => e.outgoing('func:u.py:f', ['CALLS']).map((x) => x.target).sort();
    const e = await open(root);
    await e.indexWorkspace();
    expect(calls(e)).toEqual(['method:g.py:X.go', 'method:g.py:X.go', 'method:g.py:X.go']);
    fs.writeFileSync(path.join(root, 'g.py'), g('Y', 'X'));
    await e.indexWorkspace();
    expect(calls(e)).toEqual(['method:g.py:X.go', 'method:g.py:Y.go', 'method:g.py:Y.go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    fs.writeFileSync(path.join(root, 'g.py'), g('Y', 'Y'));
    await e.indexWorkspace();
    expect(calls(e)).toEqual(['method:g.py:Y.go', 'method:g.py:Y.go', 'method:g.py:Y.go']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('a call through a module global that is another name follows it when it names another one, in its importers too', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-alias-'));
    dirs.push(root);
    const a = (named: string) => `def isfuture(x):\n    return False\n\n\ndef other(x):\n    return True\n\n\ncheck = ${named}\n\n\ndef here(x):\n    return check(x)\n`;
    fs.writeFileSync(path.join(root, 'a.py'), a('isfuture'));
    fs.writeFileSync(path.join(root, 'b.py'), 'from a import check\nimport a\n\n\ndef main(x):\n    return check(x), a.check(x)\n');
    const calls = (e: Engine, id: string) => e.outgoing(id, ['CALLS']).map((x) => x.target).sort();
    const e = await open(root);
    await e.indexWorkspace();
    expect(calls(e, 'func:b.py:main')).toEqual(['func:a.py:isfuture', 'func:a.py:isfuture']);
    fs.writeFileSync(path.join(root, 'a.py'), a('other'));
    await e.indexWorkspace();
    expect(calls(e, 'func:a.py:here')).toEqual(['func:a.py:other']);
    expect(calls(e, 'func:b.py:main')).toEqual(['func:a.py:other', 'func:a.py:other']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('an edit elsewhere in a file that defines a function twice does not redo that name everywhere', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-dupes-'));
    dirs.push(root);
    // `if X: def f() … else: def f()`: two definitions of one qualified name.
    fs.writeFileSync(path.join(root, 'compat.py'), 'import sys\n\nif sys.version_info >= (3,):\n    def text(x):\n        return str(x)\nelse:\n    def text(x):\n        return unicode(x)\n');
    fs.writeFileSync(path.join(root, 'use.py'), 'from compat import text\n\n\ndef show(v):\n    return text(v)\n');
    const e = await open(root);
    await e.indexWorkspace();
    const asked: string[] = [];
    const refsWithLast = e.store.refsWithLast.bind(e.store);
    const spy = vi.spyOn(e.store, 'refsWithLast').mockImplementation((name: string) => {
      asked.push(name);
      return refsWithLast(name);
    });
    fs.appendFileSync(path.join(root, 'compat.py'), '\n\ndef added():\n    return 1\n');
    await e.indexWorkspace();
    spy.mockRestore();
    expect(asked).toContain('added');
    expect(asked).not.toContain('text');
    expect(e.outgoing('func:use.py:show', ['CALLS']).map((x) => x.target)).toEqual(['func:compat.py:text#2']); // the later definition
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('parameters typed by their callers follow the call sites as they are added, changed and removed', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-params-'));
    dirs.push(root);
    const svc = [
      'class Repo:\n    def save(self):\n        pass\n',
      'class Cache:\n    def save(self):\n        pass\n',
      'def store(r):\n    r.save()\n',
      'class Holder:\n    def __init__(self, r):\n        self.r = r\n\n    def go(self):\n        self.r.save()\n',
    ].join('\n\n');
    fs.writeFileSync(path.join(root, 'svc.py'), svc);
    // Another function named `store` elsewhere: a call to one must not stand for the other.
    fs.writeFileSync(path.join(root, 'other.py'), 'def store(x):\n    x.save()\n');
    const app = (body: string) => fs.writeFileSync(path.join(root, 'app.py'), `from svc import store, Repo, Cache, Holder\n\n\ndef main():\n${body}\n`);
    const saves = (e: Engine) => ({
      store: e.outgoing('func:svc.py:store', ['CALLS']).map((x) => x.target),
      go: e.outgoing('method:svc.py:Holder.go', ['CALLS']).map((x) => x.target),
    });
    app('    store(Repo())\n    Holder(Repo())');
    const e = await open(root);
    await e.indexWorkspace();
    expect(saves(e)).toEqual({ store: ['method:svc.py:Repo.save'], go: ['method:svc.py:Repo.save'] });
    app('    store(Cache())\n    Holder(Cache())');
    await e.indexWorkspace();
    expect(saves(e)).toEqual({ store: ['method:svc.py:Cache.save'], go: ['method:svc.py:Cache.save'] });
    expect(edgeList(e)).toEqual(await coldGraph(root));
    // The call sites go: nothing types the parameters any more (found from the old edges).
    app('    pass');
    await e.indexWorkspace();
    expect(saves(e)).toEqual({ store: [null], go: [null] }); // unresolved
    expect(edgeList(e)).toEqual(await coldGraph(root));
    app('    store(Repo())\n    Holder(Repo())');
    await e.indexWorkspace();
    expect(saves(e)).toEqual({ store: ['method:svc.py:Repo.save'], go: ['method:svc.py:Repo.save'] });
    expect(edgeList(e)).toEqual(await coldGraph(root));
    fs.rmSync(path.join(root, 'app.py'));
    await e.indexWorkspace();
    expect(saves(e)).toEqual({ store: [null], go: [null] }); // unresolved
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test("a new process's first change reads the call sites that type a parameter from the index, as a cold index has them", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-lazy-calls-'));
    dirs.push(root);
    const svc = (extra: string) => `class Repo:\n    def save(self):\n        pass\n${extra}\n\ndef store(r):\n    r.save()\n    r.flush()\n`;
    fs.writeFileSync(path.join(root, 'svc.py'), svc(''));
    fs.writeFileSync(path.join(root, 'app.py'), 'from svc import store, Repo\n\n\ndef main():\n    store(Repo())\n');
    let e = await open(root);
    await e.indexWorkspace();
    await e.close();
    // Another process: its model holds no call site until a lookup asks for `store`'s.
    fs.writeFileSync(path.join(root, 'svc.py'), svc('\n    def flush(self):\n        pass\n'));
    e = await open(root);
    expect((await e.indexWorkspace()).parsed).toBe(1);
    expect(e.outgoing('func:svc.py:store', ['CALLS']).map((x) => x.target)).toEqual(['method:svc.py:Repo.save', 'method:svc.py:Repo.flush']);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test("a new process's first change inside a body resolves that body's references alone, and one that moves the file's imports all of its references; both as a cold index has them", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-new-process-'));
    dirs.push(root);
    const svc = (body: string, imports = '') => `${imports}class Repo:\n    def save(self):\n        pass\n\n\ndef store(r):\n${body}\n\n\ndef other():\n    return Repo().save()\n`;
    fs.writeFileSync(path.join(root, 'svc.py'), svc('    r.save()'));
    fs.writeFileSync(path.join(root, 'app.py'), 'from svc import store, Repo\n\n\ndef main():\n    store(Repo())\n');
    fs.writeFileSync(path.join(root, 'extra.py'), 'def save():\n    pass\n');
    let e = await open(root);
    await e.indexWorkspace();
    await e.close();
    const resolvedIn = async (change: () => void): Promise<number> => {
      change();
      e = await open(root);
      const write = vi.spyOn(e.graph as unknown as { write: (...a: unknown[]) => void }, 'write');
      expect((await e.indexWorkspace()).parsed).toBe(1);
      const n = write.mock.calls.length;
      expect(edgeList(e)).toEqual(await coldGraph(root));
      await e.close();
      return n;
    };
    // A body changed: its new reference alone (the file's other references keep their edges).
    expect(await resolvedIn(() => fs.writeFileSync(path.join(root, 'svc.py'), svc('    r.save()\n    len(r)')))).toBe(1);
    // An import the file did not have: every reference of the file may resolve elsewhere now.
    expect(await resolvedIn(() => fs.writeFileSync(path.join(root, 'svc.py'), svc('    r.save()\n    len(r)', 'from extra import save\n\n\n')))).toBeGreaterThan(3);
  });

  test("the model read back holds each file's definitions, imports and attribute types in the order written, however SQLite reads them", async () => {
    const root = copyFixture('resolution');
    dirs.push(root);
    const e = await open(root);
    await e.indexWorkspace();
    const read = () => [...e.store.modelRows()];
    const asWritten = read();
    expect(asWritten.some(([, f]) => f.entities.length > 3 && f.imports.length > 1)).toBe(true);
    for (const [, f] of asWritten) for (const rows of [f.entities, f.imports, f.attrTypes]) {
      const order = rows.map((r) => r[r.length - 1] as number);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    // SQLite returns the rows of a query without ORDER BY backwards under this pragma.
    e.store.db.pragma('reverse_unordered_selects = ON');
    try {
      expect(read()).toEqual(asWritten);
    } finally {
      e.store.db.pragma('reverse_unordered_selects = OFF');
    }
    await e.close();
  });

  test('every call site has a reference ending in its callee, in every language (what reading call sites by name relies on)', async () => {
    let sites = 0;
    for (const fixture of ['python', 'causal', 'dispatch', 'resolution', 'typescript', 'ts-project', 'javascript', 'mixed']) {
      const root = copyFixture(fixture);
      dirs.push(root);
      const e = await open(root);
      await e.indexWorkspace();
      const lasts = new Set((e.store.db.prepare('SELECT fid, last FROM refs').raw().all() as Array<[number, string]>).map(([fid, last]) => `${fid} ${last}`));
      for (const [fid, path, calls] of e.store.db.prepare('SELECT c.fid, f.path, c.calls FROM call_args c JOIN files f ON f.fid = c.fid').raw().all() as Array<[number, string, string]>) {
        for (const [, target] of decodeCallArgs(calls, path)) {
          sites++;
          expect(lasts.has(`${fid} ${lastSegment(target)}`), `${fixture}: ${target}`).toBe(true);
        }
      }
      await e.close();
    }
    expect(sites).toBeGreaterThan(50);
  });

  test('a run that brings or takes many files at once (a branch switch) equals a cold index', async () => {
    const root = copyFixture('resolution');
    dirs.push(root);
    const files = pyFiles(root);
    const r = mulberry32(7);
    const half = (seed: number) => files.filter((_, i) => (i * 7919 + seed) % 2 === 0);
    const saved = new Map(files.map((f) => [f, fs.readFileSync(path.join(root, f), 'utf8')]));
    for (const f of half(1)) fs.rmSync(path.join(root, f));
    const e = await open(root);
    await e.indexWorkspace();
    // Back all at once; then another half gone and a few changed, in one run each.
    for (const f of half(1)) fs.writeFileSync(path.join(root, f), saved.get(f)!);
    expect((await e.indexWorkspace()).parsed).toBeGreaterThanOrEqual(half(1).length);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    for (const f of half(2)) fs.rmSync(path.join(root, f));
    for (const f of files.filter((x) => !half(2).includes(x) && r() < 0.2)) fs.appendFileSync(path.join(root, f), '\n\ndef added_later():\n    return 1\n');
    await e.indexWorkspace();
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test('a run that brings most of the code at once resolves every reference again, as a cold index has them', async () => {
    // Generated modules that import, subclass and call each other; 20 indexed first, then 100
    // more in one run: its new references outnumber the old ones, which all resolve again.
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-large-run-'));
    dirs.push(root);
    const module = (i: number) => {
      const j = (i * 7) % 120;
      const k = (i * 13 + 5) % 120;
      const calls = Array.from({ length: 20 }, (_, n) => `    t.run()\n    helper${n % 2 ? j : k}(${n})\n    t.step(${n})`).join('\n');
      return `from pkg.mod${j} import helper${j}, Base${j}\nfrom pkg import mod${k}\n\nhelper${k} = mod${k}.helper${k}\n\n\nclass Base${i}:\n    def step(self, n=0):\n        return n\n\n\nclass Thing${i}(Base${j}):\n    def run(self):\n        return self.step() + helper${j}(1)\n\n\ndef helper${i}(n):\n    t = Thing${i}()\n${calls}\n    return n\n`;
    };
    fs.mkdirSync(path.join(root, 'pkg'));
    fs.writeFileSync(path.join(root, 'pkg/__init__.py'), '');
    for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(root, `pkg/mod${i}.py`), module(i));
    const e = await open(root);
    await e.indexWorkspace();
    for (let i = 20; i < 120; i++) fs.writeFileSync(path.join(root, `pkg/mod${i}.py`), module(i));
    expect((await e.indexWorkspace()).parsed).toBe(100);
    expect(e.store.refCount()).toBeGreaterThan(5000 / 0.8);
    expect(edgeList(e)).toEqual(await coldGraph(root));
    await e.close();
  });

  test("many names at once: the store's one-pass lookups find what it finds a name at a time", async () => {
    const root = copyFixture('resolution');
    dirs.push(root);
    const e = await open(root);
    await e.indexWorkspace();
    const names = [...new Set((e.store.db.prepare('SELECT name FROM entities').pluck().all() as string[]))].sort();
    expect(names.length).toBeGreaterThan(200);
    // The truth, from every typed ref: those whose type holds one of the names as a \w+ word.
    const typed = e.store.db.prepare('SELECT rid, rtype FROM refs WHERE rtype IS NOT NULL').all() as Array<{ rid: number; rtype: string }>;
    const truth = (some: string[]) => typed.filter((r) => r.rtype.match(/\w+/g)?.some((w) => some.includes(w))).map((r) => r.rid).sort((a, b) => a - b);
    const rids = (rows: Array<{ rid: number }>) => [...new Set(rows.map((r) => r.rid))].sort((a, b) => a - b);
    expect(rids(e.store.typedRefsMentioning(names))).toEqual(truth(names));
    expect(truth(names).length).toBeGreaterThan(20);
    const mentioned = names.filter((n) => truth([n]).length);
    for (const k of [1, 2, 16, 17]) {
      const some = mentioned.slice(0, k);
      expect(rids(e.store.typedRefsMentioning(some)), `${k} names`).toEqual(truth(some));
    }
    expect(mentioned.length).toBeGreaterThan(17);
    const paths = new Set(e.store.pathsImportingNames(names));
    const each = new Set(names.flatMap((n) => e.store.pathsImportingName(n)));
    expect(each.size).toBeGreaterThan(20);
    for (const p of each) expect(paths.has(p), p).toBe(true);
    await e.close();
  });

  for (const [fixture, seed] of [
    ['causal', 1],
    ['causal', 2],
    ['python', 3],
    ['python', 4],
    ['dispatch', 5],
    ['dispatch', 6],
    ...(process.env.NSCCN_MORE_SEEDS ? Array.from({ length: Number(process.env.NSCCN_MORE_SEEDS) }, (_, i) => [(['causal', 'python', 'dispatch'] as const)[i % 3], 100 + i] as const) : []),
  ] as const) {
    const live = seed % 2 === 0; // every other seed: through buffers and watched changes, not index runs
    test(`40 random edits of ${fixture} (seed ${seed}), each ${live ? 'typed into buffers or watched' : 're-indexed incrementally'}, equal a cold index`, () =>
      randomEditsEqualCold({ fixture, seed, live, files: editedFiles, mutate: (root, original, r) => mutate(root, original, r, fixture === 'dispatch'), cleanup: dirs }));
  }
  // Each edit re-indexed by a new process, as the CLI does: its model is read back from the index.
  for (const [fixture, seed] of [['causal', 7], ['python', 9], ['dispatch', 11]] as const) {
    test(`40 random edits of ${fixture} (seed ${seed}), each re-indexed by a new process, equal a cold index`, () =>
      randomEditsEqualCold({ fixture, seed, live: false, reopen: true, files: editedFiles, mutate: (root, original, r) => mutate(root, original, r, fixture === 'dispatch'), cleanup: dirs }));
  }
});
