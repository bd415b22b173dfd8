#!/usr/bin/env node
// The `nsccn` command. Every command takes --root (default: the current directory) and --json.
// Exit codes: 0 success, 1 an error (one line on stderr), 2 bad usage.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { TRACE_DEFAULT_DEPTH, TRACE_DIRECTIONS, TRACE_MAX_DEPTH, type TraceDirection } from '../../../protocol';
import { Engine } from '../engine/engine';
import { fromStoreError, isEngineError } from '../engine/errors';
import { formatSearch, formatSearchFiles, formatStats, formatSummary, formatTrace } from './output';
import { openEngine, runIndex, type GlobalOptions } from './run';

const intArg = (min: number, max: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
  return n;
};

function print(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : text() + '\n');
}

async function withEngine<T>(opts: GlobalOptions, fn: (e: Engine) => Promise<T> | T, refresh = true): Promise<T> {
  const engine = await openEngine(opts);
  try {
    if (refresh) await engine.indexWorkspace();
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

export function buildProgram(): Command {
  const program = new Command('nsccn')
    .description('Local-first code navigator: a causal code graph and hybrid search over your code')
    .version(require('../../../../package.json').version)
    .showHelpAfterError('(run nsccn --help for usage)')
    .exitOverride();
  const common = (c: Command) =>
    c
      .option('--root <dir>', 'workspace root', process.cwd())
      .option('--json', 'print JSON (the protocol/ types)', false)
      .option('--exclude <glob...>', 'extra paths to skip (gitignore syntax)')
      .option('--max-file-bytes <n>', 'skip files larger than this', intArg(1, 1 << 30))
      .option('--model <id>', 'embedding model (Hugging Face id or folder; "none" for no model)')
      .option('-v, --verbose', 'say which files were skipped and why', false);

  common(program.command('index').description('index the workspace (incremental)')).action(async (o: GlobalOptions) => {
    const summary = await runIndex(o);
    print(o.json, summary, () => formatSummary(summary));
  });

  common(program.command('search <query>').description('hybrid search for functions, classes, methods'))
    .option('--limit <n>', 'number of results', intArg(1, 500), 10)
    .option('--kind <kind...>', 'only these kinds (function, method, class, module, ...)')
    .option('--path <path...>', 'only under these paths or globs')
    .option('--files', 'rank files instead of entities ("which file do I open?")', false)
    .option('--tests', 'rank test code like any other (default: after the code it tests)', false)
    .action(async (query: string, o: GlobalOptions & { limit: number; kind?: string[]; path?: string[]; files: boolean; tests: boolean }) => {
      const r = await withEngine(o, (e) => e.search({ query, limit: o.limit, kinds: o.kind as never, paths: o.path, includeTests: o.tests, files: o.files }));
      print(o.json, r, () => (o.files ? formatSearchFiles(r) : formatSearch(r)));
    });

  common(program.command('skeleton <file>').description('signatures and docstrings of a file, bodies elided')).action(async (file: string, o: GlobalOptions) => {
    const r = await withEngine(o, (e) => e.skeleton(file));
    print(o.json, r, () => r.text.trimEnd());
  });

  common(program.command('trace <id>').description('follow the causal graph from an entity'))
    .addOption(new Option('--direction <dir>', 'up, down, state, errors or config').choices(TRACE_DIRECTIONS as string[]).default('down'))
    .option('--depth <n>', `levels to follow (max ${TRACE_MAX_DEPTH})`, intArg(1, TRACE_MAX_DEPTH), TRACE_DEFAULT_DEPTH)
    .option('--relations <rel...>', 'only these relations (CALLS, MUTATES, ...)')
    .action(async (id: string, o: GlobalOptions & { direction: TraceDirection; depth: number; relations?: string[] }) => {
      const r = await withEngine(o, (e) => e.trace({ id, direction: o.direction, depth: o.depth, relations: o.relations as never }));
      print(o.json, r, () => formatTrace(r));
    });

  common(program.command('window <id>').description("an entity's source with line numbers"))
    .option('--context <n>', 'lines of context around it', intArg(0, 200), 3)
    .action(async (id: string, o: GlobalOptions & { context: number }) => {
      const r = await withEngine(o, (e) => e.window(id, o.context));
      print(o.json, r, () => `${r.file}:${r.start}-${r.end}\n${r.code}`);
    });

  common(program.command('stats').description('what the index holds')).action(async (o: GlobalOptions) => {
    const r = await withEngine(o, (e) => e.stats());
    print(o.json, r, () => formatStats(r));
  });

  program
    .command('lsp')
    .description('run the language server over stdio')
    .option('--stdio', 'talk over stdin/stdout (the default)')
    .allowUnknownOption()
    .action(() => {
      // Loaded here so that the other commands do not pay for the LSP library.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { runLanguageServer } = require('../lsp/server') as { runLanguageServer: () => void };
      runLanguageServer();
    });
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return 0; // --help, --version
      return 2;
    }
    const err = fromStoreError(e);
    const msg = isEngineError(err) ? err.message : (err as Error)?.message ?? String(err);
    process.stderr.write(`nsccn: ${msg.split('\n')[0]}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv).then((code) => {
    // The lsp command keeps running; everything else exits with its code.
    if (process.argv[2] !== 'lsp') process.exitCode = code;
  });
}
