// `npm run eval [-- retrieval|calls]`: retrieval quality on the stdlib (docstring → function)
// and CALLS accuracy against pyright. Each prints a table and writes bench-results/eval-*.json.
type Eval = () => Promise<unknown>;

const EVALS: Record<string, () => Promise<Eval>> = {
  retrieval: async () => {
    const m = require('./retrieval') as typeof import('./retrieval');
    return async () => {
      const r = await m.runRetrievalEval();
      console.log(m.formatTable(r));
      return r;
    };
  },
  calls: async () => (require('./calls-vs-pyright') as typeof import('./calls-vs-pyright')).runCallsEval as Eval,
};

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  for (const name of names.length ? names : Object.keys(EVALS)) {
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
