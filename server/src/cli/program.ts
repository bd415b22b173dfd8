// The `nsccn` command's program (main.ts starts it). Every command takes --root (default: the workspace found upward from the
// current folder, see engine/config/root.ts) and --json.
// Exit codes: 0 success, 1 an error (one line on stderr), 2 bad usage.
// NSCCN_TIMING=1 prints where the time went (timing.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Timing } from './timing';
import { writeWhole } from './write';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CHANGES_DEFAULT_DEPTH, SEARCH_MAX_LIMIT, WINDOW_MAX_CONTEXT, DEFAULT_DOCS_LEVEL, DOCS_LEVELS, MAX_TOKENS_MAX, MAX_TOKENS_MIN, TRACE_DEFAULT_DEPTH, TRACE_DEFAULT_PATHS, TRACE_DIRECTIONS, TRACE_MAX_DEPTH, TRACE_MAX_PATHS, type DocsLevel, type TraceDirection } from '../../../protocol';
import { findWorkspaceRoot } from '../engine';
import { Engine } from '../engine';
import { fromStoreError, isEngineError } from '../engine';
import { formatChanges, formatSearch, formatSearchFiles, formatSkeleton, formatStats, formatSummary, formatTrace, formatWindow } from './output';
import { finishVectors, openGuarded, runIndex, type GlobalOptions } from './run';

const intArg = (min: number, max: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
  return n;
};

const maxTokensOption = () => new Option('--max-tokens <n>', 'cut the answer to about this many tokens (says what it dropped)').argParser(intArg(MAX_TOKENS_MIN, MAX_TOKENS_MAX));

/**
 * The query piped in (`nsccn search -`): a pasted report is often longer than the 128 KB an
 * argument may hold. Undecodable bytes read as U+FFFD, as a file's would; an empty one is the
 * engine's to refuse, as an empty argument is.
 */
function queryFromStdin(): string {
  try {
    return fs.readFileSync(0, 'utf8');
  } catch (e) {
    // EAGAIN: a non-blocking terminal with nothing typed; EOF on a closed stdin reads as ''.
    throw new Error(`could not read the query from standard input: ${(e as Error).message}`);
  }
}

function print(json: boolean, value: unknown, text: () => string): void {
  writeWhole(1, json ? JSON.stringify(value, null, 2) + '\n' : text() + '\n');
}

/**
 * Opens a lazy engine (the index only: grammars, workers and the embedder load if the command
 * needs them), brings it up to date — by stat when nothing changed, so a stale answer is never
 * served — and runs `fn`.
 */
async function withEngine<T>(timing: Timing, opts: GlobalOptions, fn: (e: Engine) => Promise<T> | T): Promise<T> {
  timing.mark('args');
  const { engine, release } = await openGuarded(opts);
  timing.mark('open');
  try {
    // A query never waits for another process's index run: it answers from what is there, and says so.
    const s = await engine.indexWorkspace(undefined, { ifBusy: 'skip' });
    for (const n of s.notes ?? []) process.stderr.write(`nsccn: ${n}\n`);
    timing.mark('fresh');
    const r = await fn(engine);
    timing.mark('query');
    return r;
  } catch (e) {
    engine.noteError(e); // a damaged index: rebuilt when next opened, as the message says
    throw e;
  } finally {
    timing.engine = engine.startupSteps();
    await engine.close();
    release();
    timing.mark('close');
  }
}

export function buildProgram(timing = new Timing()): Command {
  const program = new Command('nsccn')
    .description('Local-first code navigator: a causal code graph and hybrid search over your code')
    .version(require('../../../../package.json').version)
    .showHelpAfterError('(run nsccn --help for usage)')
    .exitOverride()
    .hook('preAction', (_program, action) => {
      timing.command = action.name();
    });
  // Found once, not once per command defined (a walk up the folders: ~1.5 ms of every start).
  const defaultRoot = findWorkspaceRoot(process.cwd());
  const common = (c: Command) =>
    c
      .option('--root <dir>', 'workspace root (default: found upward from the current folder: .nsccn, .nsccn.json, a VCS root, pyproject.toml/package.json)', defaultRoot)
      .option('--json', 'print JSON (the protocol/ types)', false)
      .option('--exclude <glob...>', 'extra paths to skip (gitignore syntax); given to index, kept for later commands')
      .option('--max-file-bytes <n>', 'skip files larger than this; given to index, kept for later commands', intArg(1, 1 << 30))
      .option('--model <id>', 'embedding model (Hugging Face id or folder); default none: the offline streams, no download')
      .option('-v, --verbose', 'say which files were skipped and why', false);

  common(program.command('index').description('index the workspace (incremental)')).action(async (o: GlobalOptions) => {
    const summary = await runIndex(o);
    print(o.json, summary, () => formatSummary(summary));
    timing.mark('print');
    // Files were there but none could be read or parsed: a failure, not an empty success.
    if (summary.files === 0 && summary.skipped.length) {
      const first = summary.skipped[0];
      throw new Error(`nothing could be indexed: ${summary.skipped.length} file(s) skipped (${first.file}: ${first.reason})`);
    }
  });

  common(program.command('search <query>').description('hybrid search for functions, classes, methods; - reads the query from standard input (a bug report or a traceback, past what a command line holds)'))
    .option('--limit <n>', 'number of results', intArg(1, SEARCH_MAX_LIMIT), 10)
    .option('--kind <kind...>', 'only these kinds (function, method, class, module, ...)')
    .option('--path <path...>', 'only under these paths or globs')
    .addOption(maxTokensOption())
    .option('--files', 'rank files instead of entities ("which file do I open?")', false)
    .option('--tests', 'rank test code like any other (default: after the code it tests)', false)
    .action(async (arg: string, o: GlobalOptions & { limit: number; kind?: string[]; path?: string[]; maxTokens?: number; files: boolean; tests: boolean }) => {
      const query = arg === '-' ? queryFromStdin() : arg;
      const r = await withEngine(timing, o, async (e) => {
        await finishVectors(e, o); // the streams it reports are complete: the same query, the same answer
        return e.search({ query, limit: o.limit, kinds: o.kind as never, paths: o.path, maxTokens: o.maxTokens, includeTests: o.tests, files: o.files });
      });
      print(o.json, r, () => (o.files ? formatSearchFiles(r) : formatSearch(r)));
      timing.mark('print');
    });

  common(program.command('skeleton <file>').description('signatures and docstrings of a file, bodies elided'))
    .addOption(new Option('--docs <level>', 'docstrings: full, first-line (and "...") or none').choices(DOCS_LEVELS as string[]).default(DEFAULT_DOCS_LEVEL))
    .addOption(maxTokensOption())
    .action(async (file: string, o: GlobalOptions & { docs: DocsLevel; maxTokens?: number }) => {
      // A grammar loads only when the file is not as indexed (the cached skeleton is then stale).
      const r = await withEngine(timing, o, (e) => e.skeletonLoading(file, { docs: o.docs, maxTokens: o.maxTokens }));
      print(o.json, r, () => formatSkeleton(r));
      timing.mark('print');
    });

  common(program.command('trace <id>').description('follow the causal graph from an entity'))
    .addOption(new Option('--direction <dir>', 'up, down, state, errors or config').choices(TRACE_DIRECTIONS as string[]).default('down'))
    .option('--depth <n>', `levels to follow (default ${TRACE_DEFAULT_DEPTH}; with --to, the longest path, default ${TRACE_MAX_DEPTH})`, intArg(1, TRACE_MAX_DEPTH))
    .option('--to <id>', 'the shortest paths from <id> to this entity, each hop with its line')
    .option('--k <n>', `with --to: how many paths, shortest first (default ${TRACE_DEFAULT_PATHS})`, intArg(1, TRACE_MAX_PATHS))
    .option('--relations <rel...>', 'only these relations (CALLS, MUTATES, ...); up/down follow them instead of CALLS (INHERITS: subclasses/bases)')
    .option('--unresolved', 'list unresolved names (builtins, libraries) instead of one summary line', false)
    .option('--no-dispatch', 'leave out dispatch edges (overrides a call may reach in subclasses, marked "may call")')
    .addOption(maxTokensOption())
    .action(async (id: string, o: GlobalOptions & { direction: TraceDirection; depth?: number; relations?: string[]; unresolved: boolean; dispatch: boolean; maxTokens?: number; to?: string; k?: number }) => {
      const r = await withEngine(timing, o, (e) => e.trace({ id, direction: o.direction, depth: o.depth, relations: o.relations as never, maxTokens: o.maxTokens, to: o.to, k: o.k, dispatch: o.dispatch }));
      print(o.json, r, () => formatTrace(r, { unresolved: o.unresolved }));
      timing.mark('print');
    });

  common(program.command('changes').description('entities a git diff touches, and what reaches them (callers, state, config, tests)'))
    .option('--since <rev>', 'changes from this revision to the working tree')
    .option('--staged', 'staged changes (HEAD → the git index)', false)
    .option('--worktree', 'unstaged changes (the git index → the working tree)', false)
    .option('--depth <n>', `how far up the callers go (default ${CHANGES_DEFAULT_DEPTH})`, intArg(1, TRACE_MAX_DEPTH))
    .addOption(maxTokensOption())
    .action(async (o: GlobalOptions & { since?: string; staged: boolean; worktree: boolean; depth?: number; maxTokens?: number }) => {
      const r = await withEngine(timing, o, (e) => e.changes({ since: o.since, staged: o.staged, worktree: o.worktree, depth: o.depth, maxTokens: o.maxTokens }));
      print(o.json, r, () => formatChanges(r));
      timing.mark('print');
    });

  common(program.command('window <id>').description("an entity's source with line numbers"))
    .option('--context <n>', 'lines of context around it', intArg(0, WINDOW_MAX_CONTEXT), 3)
    .addOption(maxTokensOption())
    .action(async (id: string, o: GlobalOptions & { context: number; maxTokens?: number }) => {
      const r = await withEngine(timing, o, (e) => e.window(id, o.context, o.maxTokens));
      print(o.json, r, () => formatWindow(r));
      timing.mark('print');
    });

  common(program.command('stats').description('what the index holds')).action(async (o: GlobalOptions) => {
    const r = await withEngine(timing, o, (e) => e.stats());
    print(o.json, r, () => formatStats(r));
    timing.mark('print');
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

  program
    .command('mcp')
    .description('run the MCP server for agents over stdio (it starts `nsccn lsp` as its child)')
    .option('--root <dir>', 'workspace root', process.cwd())
    .option('--exclude <glob...>', 'extra paths to skip (gitignore syntax)')
    .option('--model <id>', 'embedding model (Hugging Face id or folder; "none" for no model)')
    .action(async (o: { root: string; exclude?: string[]; model?: string }) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { runMcpServer } = require('../../../clients/mcp/server') as typeof import('../../../clients/mcp/server');
      const model = o.model ?? process.env.NSCCN_MODEL;
      await runMcpServer({
        root: o.root,
        lspCommand: { command: process.execPath, args: [path.join(__dirname, 'main.js'), 'lsp', '--stdio'] },
        initializationOptions: { ...(o.exclude ? { exclude: o.exclude } : {}), ...(model ? { embeddings: { model } } : {}) },
        version: require('../../../../package.json').version,
      });
    });
  return program;
}

/**
 * Runs one command; `bootedMs` is when the process reached main.ts (the `node` step), `codeCache`
 * whether main.ts loaded this bundle with the build's compiled code.
 */
export async function main(argv: string[], bootedMs = performance.now(), codeCache = 'none'): Promise<number> {
  const timing = new Timing(bootedMs, codeCache);
  timing.mark('modules');
  const program = buildProgram(timing);
  try {
    await program.parseAsync(argv);
    if (timing.command !== 'lsp' && timing.command !== 'mcp') timing.printIfAsked();
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
