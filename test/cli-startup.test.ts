// A CLI query opens only the index and checks it against the disk by stat: fast when nothing
// changed, and never a stale answer when something did — a file changed, added or deleted since
// the last index is re-indexed before the query answers. NSCCN_TIMING shows what was loaded.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CLI, CLI_ENV, requireBuiltCli } from './helpers/cli';
import { copyFixture } from './helpers/workspace';

let root: string;

interface Timed {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The engine's start-up steps the command reported (`grammars` only when it parsed a file). */
  engine: Record<string, number>;
  /** Whether main.js loaded the program with the build's V8 code cache. */
  codeCache?: string;
}

function nsccn(...args: string[]): Timed {
  return nsccnAt(CLI, ...args);
}

function nsccnAt(cli: string, ...args: string[]): Timed {
  const r = spawnSync(process.execPath, [cli, ...args, '--root', root], { encoding: 'utf8', env: { ...CLI_ENV, NSCCN_TIMING: '1' }, timeout: 120_000 });
  const line = r.stderr.split('\n').find((l) => l.startsWith('nsccn-timing: '));
  const report = line ? (JSON.parse(line.slice('nsccn-timing: '.length)) as { engine: Record<string, number>; codeCache: string }) : null;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, engine: report?.engine ?? {}, codeCache: report?.codeCache };
}

const write = (rel: string, text: string) => {
  fs.writeFileSync(path.join(root, rel), text);
  // A later mtime than the indexed one even on a coarse clock.
  const t = new Date(Date.now() + 5000);
  fs.utimesSync(path.join(root, rel), t, t);
};

beforeEach(() => {
  requireBuiltCli();
  root = copyFixture('causal');
  expect(nsccn('index').code).toBe(0);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('an up-to-date index', () => {
  test('trace, window and (once cached) skeleton answer without loading a grammar', () => {
    expect(nsccn('skeleton', 'service/core.py').engine).toHaveProperty('grammars'); // made once, then cached by content hash
    for (const args of [['trace', 'method:service/core.py:Service.open'], ['window', 'method:service/core.py:Service.open'], ['skeleton', 'service/core.py']]) {
      const r = nsccn(...args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.engine, args[0]).toHaveProperty('freshness');
      expect(r.engine, args[0]).not.toHaveProperty('grammars');
    }
    expect(nsccn('trace', 'method:service/core.py:Service.open').stdout).toContain('→ CALLS to method:service/store.py:Store.put (line 27)');
    expect(nsccn('skeleton', 'service/core.py').stdout).toContain('def open(self, email, premium=False)');
  });
});

describe('a file changed on disk since the index', () => {
  test('the next trace answers from the new text (the file is re-indexed first)', () => {
    const core = path.join(root, 'service/core.py');
    write('service/core.py', fs.readFileSync(core, 'utf8').replace('        self.store.put(key, account)\n', '        self.store.get(key)\n'));
    const r = nsccn('trace', 'method:service/core.py:Service.open');
    expect(r.code, r.stderr).toBe(0);
    expect(r.engine).toHaveProperty('grammars');
    expect(r.stdout).toContain('→ CALLS to method:service/store.py:Store.get (line 27)');
    expect(r.stdout).not.toContain('Store.put');
    // Indexed now: the query after it needs no grammar again.
    expect(nsccn('trace', 'method:service/core.py:Service.open').engine).not.toHaveProperty('grammars');
  });

  test('a file touched but holding the same bytes is re-read, not parsed: no grammar loads', () => {
    write('service/core.py', fs.readFileSync(path.join(root, 'service/core.py'), 'utf8'));
    const r = nsccn('trace', 'method:service/core.py:Service.open');
    expect(r.code, r.stderr).toBe(0);
    expect(r.engine).not.toHaveProperty('grammars');
    expect(r.stdout).toContain('→ CALLS to method:service/store.py:Store.put (line 27)');
    expect(nsccn('index').stdout).toMatch(/\(0 parsed, \d+ unchanged/); // the new stat was recorded
  });

  test('the next skeleton shows a function added to the file', () => {
    write('service/util_a.py', fs.readFileSync(path.join(root, 'service/util_a.py'), 'utf8') + '\n\ndef brand_new(x):\n    """Added after the index."""\n    return x\n');
    const r = nsccn('skeleton', 'service/util_a.py');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('def brand_new(x)');
  });

  test('a file added is found, a file deleted is gone', () => {
    write('service/extra.py', 'from .util_a import normalize\n\n\ndef extra(v):\n    return normalize(v)\n');
    const added = nsccn('trace', 'func:service/extra.py:extra');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('→ CALLS to func:service/util_a.py:normalize');
    fs.rmSync(path.join(root, 'service/extra.py'));
    const gone = nsccn('window', 'func:service/extra.py:extra');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^nsccn: unknown entity func:service\/extra.py:extra/);
  });

  test('a file that a new .gitignore now skips leaves the answers', () => {
    write('.gitignore', 'service/util_b.py\n');
    const r = nsccn('trace', 'method:service/core.py:Service.open');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('util_b.py');
  });
});

describe('a file refused for its content (binary, not decodable)', () => {
  test('is not tried again by every query, still says why, and is indexed once it changes', () => {
    fs.writeFileSync(path.join(root, 'blob.py'), Buffer.from([0x64, 0x65, 0x66, 0x00, 0x01]));
    fs.writeFileSync(path.join(root, 'latin.py'), Buffer.from('def caf\xe9():\n    pass\n', 'latin1')); // no coding cookie: not UTF-8
    const first = nsccn('index', '-v');
    expect(first.stderr).toContain('skipped latin.py: not valid UTF-8');
    for (const args of [['trace', 'method:service/core.py:Service.open'], ['index', '-v']]) {
      const r = nsccn(...args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.engine, args.join(' ')).not.toHaveProperty('grammars'); // no index run: nothing changed
    }
    expect(nsccn('index', '-v').stderr).toContain('skipped blob.py: binary file (contains NUL bytes)');
    write('latin.py', '# -*- coding: latin-1 -*-\ndef cafe():\n    pass\n');
    const fixed = nsccn('trace', 'func:latin.py:cafe');
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.engine).toHaveProperty('grammars');
  });
});

describe('the installed command', () => {
  test('a query loads the program as one bundled file: none of our other modules, no LSP or MCP library', () => {
    // A preload hook lists every module file the process loads (beside the workspace, not in it).
    const hook = `${root}-loaded.js`;
    fs.writeFileSync(hook, `const M=require('module'),o=M._load,seen=new Set();M._load=function(r,p,i){try{seen.add(M._resolveFilename(r,p,i))}catch{};return o.apply(this,arguments)};process.on('exit',()=>process.stderr.write('loaded: '+JSON.stringify([...seen])+'\\n'));`);
    const r = spawnSync(process.execPath, ['-r', hook, CLI, 'trace', 'method:service/core.py:Service.open', '--root', root], { encoding: 'utf8', env: CLI_ENV, timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const loaded = JSON.parse(r.stderr.split('\n').find((l) => l.startsWith('loaded: '))!.slice('loaded: '.length)) as string[];
    const ours = loaded.filter((f) => f.includes(`${path.sep}dist${path.sep}`)).map((f) => path.basename(f));
    expect(ours.sort()).toEqual(['main.js', 'program.js']);
    expect(loaded.filter((f) => /vscode-languageserver|@modelcontextprotocol|web-tree-sitter/.test(f))).toEqual([]);
    // What a query on an up-to-date index has no use for is not loaded either (each was a few ms
    // of every command): the vector extension, hashing, V8's flags; SQLite's JavaScript is in the
    // bundle, and only its addon is loaded beside it.
    expect(loaded.filter((f) => /sqlite-vec|^(node:)?(crypto|v8)$/.test(f))).toEqual([]);
    expect(loaded.filter((f) => f.includes('better-sqlite3')).map((f) => path.basename(f))).toEqual(['better_sqlite3.node']);
    fs.rmSync(hook);
  });

  test('the bundles are ASCII, so V8 holds each as a one-byte string (a single `→` in a comment doubled it)', () => {
    for (const bundle of [path.join(path.dirname(CLI), 'program.js'), path.join(path.dirname(CLI), '../lsp/server.js')]) {
      const text = fs.readFileSync(bundle, 'latin1');
      expect(/[^\x00-\x7f]/.exec(text)?.index ?? -1, bundle).toBe(-1);
    }
  });

  test('loads the program with the code V8 compiled at build time; a cache V8 rejects only costs the compile', () => {
    const query = ['trace', 'method:service/core.py:Service.open'];
    const cached = nsccn(...query);
    expect(cached.code, cached.stderr).toBe(0);
    expect(cached.codeCache).toBe('used');
    // A copy of the two files beside the real ones (the bundle finds the rest of dist/ by relative
    // paths), with a cache another Node or other flags could have made.
    const copy = path.join(path.dirname(CLI), `../cli-cache-test-${process.pid}`);
    fs.mkdirSync(copy, { recursive: true });
    try {
      for (const f of ['main.js', 'program.js']) fs.copyFileSync(path.join(path.dirname(CLI), f), path.join(copy, f));
      fs.writeFileSync(path.join(copy, 'program.js.v8cache'), Buffer.alloc(4096, 7));
      const rejected = nsccnAt(path.join(copy, 'main.js'), ...query);
      expect(rejected.code, rejected.stderr).toBe(0);
      expect(rejected.codeCache).toBe('rejected');
      expect(rejected.stdout).toBe(cached.stdout);
      fs.rmSync(path.join(copy, 'program.js.v8cache'));
      const none = nsccnAt(path.join(copy, 'main.js'), ...query);
      expect(none.codeCache).toBe('none');
      expect(none.stdout).toBe(cached.stdout);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});
