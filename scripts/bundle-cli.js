// Bundles, in place after tsc, each file a process starts from, with everything it imports:
// - dist/server/src/cli/program.js, the CLI's commands: a query then starts from one file instead
//   of resolving and reading ~130 modules (`npm run bench -- cli` measures what it saves);
// - dist/server/src/lsp/server.js, the language server, which main.js starts directly for
//   `nsccn lsp` (`npm run bench -- lsp`: initialize → first answer).
//
// Kept out of the bundles, loaded from dist/ or node_modules when a command needs them: native
// and WASM packages, the model runtime, and, from the CLI's, the lsp / mcp faces (their protocol
// libraries are most of the size, and a query never loads them).
//
// Modules find files beside them through __dirname / __filename (the index workers, the query
// files, the static embedding asset): each bundled module's own location is written back in,
// relative to the bundle, so the layout of dist/ is all they rely on, as before.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..');
const BUNDLES = ['dist/server/src/cli/program.js', 'dist/server/src/lsp/server.js'];
// package.json's `bin`: tsc writes it without the execute bit, and what links to it before a
// rebuild (`npm link`, the package npx installed from this checkout) runs the file as it is:
// after `npm test` rebuilt it, `npx nsccn` said "Permission denied".
const EXECUTABLE = 'dist/server/src/cli/main.js';
// better-sqlite3's JavaScript is bundled (store/db.ts gives it its addon's path); its addon is not.
// So is sqlite-vec's (it finds its platform package's library with require.resolve, from the
// bundle's place as from its own: ~3 ms of a search's start-up less).
const outside = ['web-tree-sitter', 'tree-sitter-*', '@huggingface/transformers', 'onnxruntime-node', 'cli-progress'];
const lazyFaces = new Set(['../lsp/server', '../../../clients/mcp/server']);

const ownLocation = (bundle) => ({
  name: 'own-location',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (a) => (lazyFaces.has(a.path) ? { path: a.path, external: true } : undefined));
    build.onLoad({ filter: /\.js$/ }, (a) => {
      const source = fs.readFileSync(a.path, 'utf8');
      if (a.path.includes(`${path.sep}node_modules${path.sep}`) || !/\b__(dirname|filename)\b/.test(source)) return undefined;
      const dir = JSON.stringify(path.relative(path.dirname(bundle), path.dirname(a.path)));
      const file = JSON.stringify(path.relative(path.dirname(bundle), a.path));
      const prologue = `var __ownDir = require("node:path").join(__dirname, ${dir}), __ownFile = require("node:path").join(__dirname, ${file});\n`;
      return { contents: prologue + source.replace(/\b__dirname\b/g, '__ownDir').replace(/\b__filename\b/g, '__ownFile'), loader: 'js' };
    });
  },
});

// commander requires node:child_process at load, for subcommands run as separate executables
// (which NSCCN has none of); child_process pulls in net and stream: ~8 ms of every command's
// start. Inside commander it is read on first use instead.
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (a) =>
      a.importer.includes(`${path.sep}node_modules${path.sep}commander${path.sep}`) ? { path: 'lazy-child-process', namespace: 'lazy' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, key) => require('node:child_process')[key] });",
      loader: 'js',
    }));
  },
};

// The code V8 compiles for a bundle, saved beside it (`<bundle>.v8cache`) for main.js to load the
// bundle with (see requireBundle there). Made in a child process that runs the bundle's top level
// the way main.js will, so the functions compiled at load are in the cache too; for the CLI's
// program, also the commands a user runs most, on a two-function workspace in a temporary folder
// (their argument parsing, index opening and up-to-date check then start compiled: ~6 ms less
// per command than a cache of the load alone).
const MAKE_CACHE = `
const fs = require('node:fs'), os = require('node:os'), path = require('node:path'), vm = require('node:vm'), Module = require('node:module');
const file = process.argv[1];
const script = new vm.Script(Module.wrap(fs.readFileSync(file, 'utf8')), { filename: file, importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER });
const mod = new Module(file, module);
mod.filename = file;
mod.paths = Module._nodeModulePaths(path.dirname(file));
const req = Object.assign((id) => mod.require(id), { resolve: (r) => Module._resolveFilename(r, mod), cache: require.cache });
script.runInThisContext().call(mod.exports, mod.exports, req, mod, file, path.dirname(file));
const SAMPLE = ['def f():', '    """Calls g."""', '    return g()', '', '', 'def g():', '    return 1', ''].join('\\n');
(async () => {
  if (typeof mod.exports.main === 'function') {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-code-cache-'));
    const write = process.stdout.write;
    try {
      fs.writeFileSync(path.join(tmp, 'a.py'), SAMPLE);
      process.stdout.write = () => true;
      for (const args of [['index'], ['trace', 'f'], ['search', 'g'], ['window', 'f'], ['skeleton', 'a.py']]) await mod.exports.main(['node', 'nsccn', ...args, '--root', tmp]);
    } finally {
      process.stdout.write = write;
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  fs.writeFileSync(file + '.v8cache', script.createCachedData());
})().catch((e) => {
  console.error(e && e.message);
  process.exit(1);
});
`;

function writeCodeCache(bundle) {
  fs.rmSync(`${bundle}.v8cache`, { force: true });
  const r = require('node:child_process').spawnSync(process.execPath, ['-e', MAKE_CACHE, bundle], { encoding: 'utf8' });
  // Only start-up time depends on it: a failure is said, and the bundle is compiled at each start.
  if (r.status !== 0) console.warn(`bundle-cli: no code cache for ${path.relative(root, bundle)}: ${(r.stderr || '').trim().split('\n')[0]}`);
}

Promise.all(
  BUNDLES.map((rel) => {
    const bundle = path.join(root, rel);
    return esbuild.build({
      entryPoints: [bundle],
      outfile: bundle,
      allowOverwrite: true,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: outside,
      plugins: [ownLocation(bundle), lazyChildProcess],
      sourcemap: true,
      // Without comments (a few dozen of them hold a non-ASCII character, `→`, `×`), the bundle is
      // ASCII and V8 keeps it as a one-byte string: read and decoded 3× faster than the two-byte
      // copy of its 1.1 MB, and 0.7 MB instead of 2.3 in every command's heap (`npm run bench --
      // cli`: modules 27–31 → 20–25 ms, RSS 55 → 51 MB). Names stay as written, for stack traces.
      minifyWhitespace: true,
      logLevel: 'warning',
    });
  }),
)
  .then(() => BUNDLES.forEach((rel) => writeCodeCache(path.join(root, rel))))
  .then(() => fs.chmodSync(path.join(root, EXECUTABLE), 0o755))
  .catch(() => process.exit(1));
