// `npm run eval [-- retrieval|heldout|localisation|calls|calls-repos|calls-ts]`: retrieval quality on the stdlib (docstring →
// function) and on libraries never trained or tuned on (their docstrings, and bug reports on them), CALLS accuracy against pyright (stdlib packages, then whole repositories), and on TypeScript/JavaScript against tsserver.
// Each prints a table and writes bench-results/eval-*.json.
type Eval = () => Promise<unknown>;

const BOOLEAN_FLAGS = new Set(['--keep', '--no-out', '--write', '--verbose', '--with-tests']);

const EVALS: Record<string, () => Promise<Eval>> = {
  retrieval: async () => {
    const m = require('./retrieval') as typeof import('./retrieval');
    return async () => {
      const r = await m.runRetrievalEval(m.parseRetrievalArgs(process.argv.slice(2)));
      console.log(m.formatTable(r));
      return r;
    };
  },
  // Libraries nothing was trained or tuned on, every docstring removed (eval/heldout.ts).
  heldout: async () => {
    const m = require('./heldout') as typeof import('./heldout');
    return async () => {
      const r = await m.runHeldOutEval(m.parseHeldOutArgs(process.argv.slice(2)));
      console.log(m.formatHeldOut(r));
      return r;
    };
  },
  // Bug-report-style texts on the held-out libraries, docstrings kept (eval/localisation.ts, issue 18).
  localisation: async () => {
    const m = require('./localisation') as typeof import('./localisation');
    return async () => {
      const r = await m.runLocalisationEval(m.parseLocalisationArgs(process.argv.slice(2)));
      console.log(m.formatLocalisation(r));
      return r;
    };
  },
  // The stdlib's package folders, then whole repositories (src/, flat, monorepo, namespace layouts).
  calls: async () => async () => {
    await (require('./calls-vs-pyright') as typeof import('./calls-vs-pyright')).runCallsEval();
    return (require('./calls-repos') as typeof import('./calls-repos')).runReposEval();
  },
  'calls-repos': async () => {
    const m = require('./calls-repos') as typeof import('./calls-repos');
    const args = process.argv.slice(2);
    return () => m.runReposEval(m.parseReposArgs(args.filter((a, i) => a.startsWith('-') || (args[i - 1]?.startsWith('--') && !BOOLEAN_FLAGS.has(args[i - 1])))));
  },
  // Not run by default: it fits the search reranker's weights (`--write` to keep them).
  'fit-rerank': async () => {
    const m = require('./fit-rerank') as typeof import('./fit-rerank');
    return async () => {
      const r = await m.fitRerank(m.parseFitArgs(process.argv.slice(2)));
      console.log(r.table);
      console.log(JSON.stringify(r.weights));
      return r;
    };
  },
  'calls-ts': async () => {
    const m = require('./calls-ts') as typeof import('./calls-ts');
    const args = process.argv.slice(2);
    return () => m.runCallsTsEval(m.parseCallsTsArgs(args.filter((a, i) => a.startsWith('-') || (args[i - 1]?.startsWith('--') && !BOOLEAN_FLAGS.has(args[i - 1])))));
  },
};

async function main(): Promise<void> {
  // Names are the words that are neither flags nor a flag's value (`--sets ts`).
  const args = process.argv.slice(2);
  const names = args.filter((a, i) => !a.startsWith('-') && !(args[i - 1]?.startsWith('--') && !BOOLEAN_FLAGS.has(args[i - 1])));
  for (const name of names.length ? names : Object.keys(EVALS).filter((n) => n !== 'fit-rerank')) {
    const load = EVALS[name];
    if (!load) {
      console.error(`unknown eval ${name}; known: ${Object.keys(EVALS).join(', ')}`);
      process.exitCode = 2;
      return;
    }
    console.log(`\n== eval ${name}`);
    await (await load())();
  }
}

void main().catch((e) => {
  console.error(`eval failed: ${(e as Error).stack ?? e}`);
  process.exitCode = 1;
});
