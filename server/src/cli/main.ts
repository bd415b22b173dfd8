#!/usr/bin/env node
// The `nsccn` executable. Kept tiny and unbundled: it reads the clock before anything loads, then
// requires the program, which the build turns into one bundled file (scripts/bundle-cli.js) so
// that a command does not resolve and read ~130 modules at start. `nsccn lsp` goes straight to
// the language server (a bundle of its own): an editor waits for its start, and the program's
// commands would only be read to be left unused.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vm from 'node:vm';

const bootedMs = performance.now();
const argv = process.argv;

/** Whether the bundle was loaded with the build's compiled code (`NSCCN_TIMING` reports it). */
type CodeCacheUse = 'used' | 'rejected' | 'none';

/**
 * `require(file)`, with the code V8 compiled for that bundle when the build ran it
 * (`<file>.v8cache`, written by scripts/bundle-cli.js): compiling the program's 0.9 MB took
 * ~20 ms of every command. V8 rejects a cache made by another Node or with other flags, and the
 * bundle is then compiled as usual; without a cache file this is a plain require.
 */
function requireBundle(file: string): { exports: unknown; codeCache: CodeCacheUse } {
  let cachedData: Buffer;
  try {
    cachedData = fs.readFileSync(`${file}.v8cache`);
  } catch {
    return { exports: require(file), codeCache: 'none' };
  }
  let codeCache: CodeCacheUse = 'none';
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Module = require('node:module') as { prototype: { _compile: Compile }; wrap(s: string): string; _resolveFilename(r: string, m: unknown, isMain: boolean, o?: unknown): string };
  type Compile = (this: ModuleLike, content: string, filename: string) => unknown;
  interface ModuleLike {
    exports: unknown;
    require(id: string): unknown;
  }
  const compile = Module.prototype._compile;
  // Node reads and resolves the file as for any require; only its compile step goes through the cache.
  Module.prototype._compile = function (this: ModuleLike, content: string, filename: string) {
    if (filename !== file) return compile.call(this, content, filename);
    Module.prototype._compile = compile;
    const script = new vm.Script(Module.wrap(content), { filename, cachedData, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER });
    codeCache = script.cachedDataRejected ? 'rejected' : 'used';
    const mod = this;
    const req = Object.assign((id: string) => mod.require(id), {
      resolve: (request: string, options?: unknown) => Module._resolveFilename(request, mod, false, options),
      main: require.main,
      cache: require.cache,
    });
    return (script.runInThisContext() as (...a: unknown[]) => unknown).call(mod.exports, mod.exports, req, mod, filename, path.dirname(filename));
  };
  try {
    return { exports: require(file), codeCache };
  } finally {
    Module.prototype._compile = compile;
  }
}

if (argv[2] === 'lsp' && !argv.includes('--help') && !argv.includes('-h')) {
  (requireBundle(path.join(__dirname, '../lsp/server.js')).exports as typeof import('../lsp/server')).runLanguageServer();
} else {
  const program = requireBundle(path.join(__dirname, 'program.js'));
  const { main } = program.exports as typeof import('./program');
  void main(argv, bootedMs, program.codeCache).then((code) => {
    // The lsp command keeps running; everything else exits with its code.
    if (argv[2] !== 'lsp') process.exitCode = code;
  });
}
