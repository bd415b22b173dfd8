// `npm run bench [-- index|skeleton|scale|lsp|mcp|kills|search|cli|tinyfiles ...]`: speed and memory on the machine's real code. Each
// bench prints a table and writes bench-results/<name>.json. Not part of `npm test`.
import { writeResult } from './corpora';

type Bench = () => Promise<Record<string, unknown>>;

const BENCHES: Record<string, () => Promise<Bench>> = {
  index: async () => (require('./index') as typeof import('./index')).benchIndex,
  skeleton: async () => (require('./skeleton') as typeof import('./skeleton')).benchSkeleton,
  scale: async () => (require('./scale') as typeof import('./scale')).benchScale,
  lsp: async () => (require('./lsp') as typeof import('./lsp')).benchLsp as Bench,
  kills: async () => (require('./kills') as typeof import('./kills')).benchKills,
  sharing: async () => (require('./sharing') as typeof import('./sharing')).benchSharing,
  mcp: async () => (require('./mcp') as typeof import('./mcp')).benchMcp,
  cli: async () => {
    const m = require('./cli') as typeof import('./cli');
    return async () => {
      const r = await m.benchCli();
      console.log(m.formatCli(r));
      return r;
    };
  },
  tinyfiles: async () => (require('./tinyfiles') as typeof import('./tinyfiles')).benchTinyFiles,
  search: async () => {
    const m = require('./search') as typeof import('./search');
    return async () => {
      const r = await m.runSearchBench();
      console.log(m.formatBench(r));
      return r as unknown as Record<string, unknown>;
    };
  },
};

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const chosen = names.length ? names : Object.keys(BENCHES);
  for (const name of chosen) {
    const load = BENCHES[name];
    if (!load) {
      console.error(`unknown bench ${name}; known: ${Object.keys(BENCHES).join(', ')}`);
      process.exitCode = 2;
      return;
    }
    console.log(`\n== bench ${name}`);
    const result = await (await load())();
    console.log(JSON.stringify(result, null, 2));
    console.log(`wrote ${writeResult(`bench-${name}`, result)}`);
  }
}

void main().catch((e) => {
  console.error(`bench failed: ${(e as Error).stack ?? e}`);
  process.exitCode = 1;
});
