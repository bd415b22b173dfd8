#!/usr/bin/env node
// The `nsccn` executable. Kept tiny and unbundled: it reads the clock before anything loads, then
// requires the program, which the build turns into one bundled file (scripts/bundle-cli.js) so
// that a command does not resolve and read ~130 modules at start. `nsccn lsp` goes straight to
// the language server (a bundle of its own): an editor waits for its start, and the program's
// commands would only be read to be left unused.
const bootedMs = performance.now();
const argv = process.argv;

export {};

if (argv[2] === 'lsp' && !argv.includes('--help') && !argv.includes('-h')) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('../lsp/server') as typeof import('../lsp/server')).runLanguageServer();
} else {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { main } = require('./program') as typeof import('./program');
  void main(argv, bootedMs).then((code) => {
    // The lsp command keeps running; everything else exits with its code.
    if (argv[2] !== 'lsp') process.exitCode = code;
  });
}
