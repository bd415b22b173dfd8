#!/usr/bin/env node
// The `nsccn` executable. Kept tiny and unbundled: it reads the clock before anything loads, then
// requires the program, which the build turns into one bundled file (scripts/bundle-cli.js) so
// that a command does not resolve and read ~130 modules at start.
const bootedMs = performance.now();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { main } = require('./program') as typeof import('./program');

export {};

void main(process.argv, bootedMs).then((code) => {
  // The lsp command keeps running; everything else exits with its code.
  if (process.argv[2] !== 'lsp') process.exitCode = code;
});
