// `npm run bench -- cli`: a CLI command as an agent or a user feels it, process start included,
// on a 40-file project (asyncio, json and two files of concurrent.futures from the machine's
// Python standard library, copied to a temp dir and indexed once). Per command: wall-clock
// p50 / p95 over RUNS spawns, and the median of each step the command reports with
// NSCCN_TIMING=1 (node start-up, loading modules, opening the index, the up-to-date check,
// the query, closing). Also: `node -e 0` (the floor no command goes under; the commands run in
// rounds with it, and each is also reported as its time over its round's floor) and a `trace`
// right after a file changed on disk (the index run it needs, and proof that the answer is current).
// CPU time (user + system, from /usr/bin/time when the machine has it) is reported beside the
// wall clock: on a loaded machine it is the figure that compares two builds. NSCCN_BENCH_CLI
// points at another build's main.js (the same bench on the code before a change).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pythonStdlib } from './corpora';
import { median, percentile } from './stats';

const RUNS = Number(process.env.NSCCN_BENCH_RUNS ?? 20);
const CLI = process.env.NSCCN_BENCH_CLI ?? path.join(__dirname, '..', 'src', 'cli', 'main.js');
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const ENV = { ...process.env, NSCCN_MODEL: 'none', NSCCN_TIMING: '1' };

/** The project: 40 real Python files whose names are known. */
function makeProject(): string {
  const lib = pythonStdlib();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-bench-cli-'));
  const copy = (from: string, to: string) => {
    fs.mkdirSync(path.dirname(path.join(root, to)), { recursive: true });
    fs.copyFileSync(path.join(lib, from), path.join(root, to));
  };
  for (const d of ['asyncio', 'json']) for (const f of fs.readdirSync(path.join(lib, d)).filter((f) => f.endsWith('.py'))) copy(`${d}/${f}`, `${d}/${f}`);
  for (const f of ['_base.py', 'thread.py']) copy(`concurrent/futures/${f}`, `futures/${f}`);
  return root;
}

interface Run {
  ms: number;
  /** User + system CPU of the process, and its peak RSS in MB (null without /usr/bin/time). */
  cpuMs: number | null;
  rssMB: number | null;
  stdout: string;
  timing: { steps: Record<string, number>; engine: Record<string, number> } | null;
}

function run(args: string[]): Run {
  const t = performance.now();
  const r = TIME
    ? spawnSync(TIME, ['-f', 'nsccn-rusage %U %S %M', process.execPath, ...args], { encoding: 'utf8', env: ENV, maxBuffer: 64 << 20 })
    : spawnSync(process.execPath, args, { encoding: 'utf8', env: ENV, maxBuffer: 64 << 20 });
  const ms = performance.now() - t;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const lines = r.stderr.split('\n');
  const line = lines.find((l) => l.startsWith('nsccn-timing: '));
  const usage = lines.find((l) => l.startsWith('nsccn-rusage '))?.split(' ').slice(1).map(Number);
  return {
    ms,
    cpuMs: usage ? (usage[0] + usage[1]) * 1000 : null,
    rssMB: usage ? Math.round(usage[2] / 1024) : null,
    stdout: r.stdout,
    timing: line ? JSON.parse(line.slice('nsccn-timing: '.length)) : null,
  };
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** p50 / p95 of the wall clock, and the median of every step reported. */
function summarize(runs: Run[], goalMs?: number): Record<string, unknown> {
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const steps: Record<string, number> = {};
  const engine: Record<string, number> = {};
  for (const key of new Set(runs.flatMap((r) => Object.keys(r.timing?.steps ?? {})))) steps[key] = r1(median(runs.map((r) => r.timing?.steps[key] ?? 0)));
  for (const key of new Set(runs.flatMap((r) => Object.keys(r.timing?.engine ?? {})))) engine[key] = r1(median(runs.map((r) => r.timing?.engine[key] ?? 0)));
  const cpu = runs.every((r) => r.cpuMs !== null) ? { cpuP50ms: r1(median(runs.map((r) => r.cpuMs!))), rssP50MB: median(runs.map((r) => r.rssMB!)) } : {};
  return { runs: runs.length, p50ms: r1(percentile(ms, 50)), p95ms: r1(percentile(ms, 95)), ...cpu, ...(goalMs ? { goalP50ms: goalMs } : {}), steps, engine };
}

export async function benchCli(): Promise<Record<string, unknown>> {
  const root = makeProject();
  try {
    const index = run([CLI, 'index', '--root', root, '--json']);
    const summary = JSON.parse(index.stdout) as { files: number; entities: number; edges: number };
    const id = 'method:asyncio/base_events.py:BaseEventLoop.run_until_complete';
    const commands: Array<{ name: string; args: string[]; goalMs: number }> = [
      { name: 'search', args: ['search', 'run the event loop until a future is done', '--limit', '10'], goalMs: 150 },
      { name: 'trace', args: ['trace', id], goalMs: 100 },
      { name: 'window', args: ['window', id], goalMs: 100 },
      { name: 'skeleton', args: ['skeleton', 'asyncio/base_events.py'], goalMs: 100 },
    ];
    // Rounds of `node -e 0` and every command once, in an order that turns each round: a load
    // that comes and goes on the machine falls on all of them alike, and each command's time
    // over the floor is taken against the floor of its own round (`overFloorP50ms`).
    for (const c of commands) run([CLI, ...c.args, '--root', root]); // warm the OS cache once
    const floor: Run[] = [];
    const runs = new Map<string, Run[]>(commands.map((c) => [c.name, []]));
    for (let i = 0; i < RUNS; i++) {
      floor.push(run(['-e', '0']));
      for (let k = 0; k < commands.length; k++) {
        const c = commands[(i + k) % commands.length];
        runs.get(c.name)!.push(run([CLI, ...c.args, '--root', root]));
      }
    }
    const results: Record<string, unknown> = { nodeFloor: summarize(floor) };
    for (const c of commands) {
      const own = runs.get(c.name)!;
      results[c.name] = { ...summarize(own, c.goalMs), overFloorP50ms: r1(median(own.map((r, i) => r.ms - floor[i].ms))) };
    }
    // One file changed on disk: the query re-indexes it before answering (never a stale answer).
    const changed: Run[] = [];
    const file = path.join(root, 'asyncio', 'runners.py');
    const original = fs.readFileSync(file, 'utf8');
    for (let i = 0; i < Math.min(RUNS, 10); i++) {
      fs.writeFileSync(file, `${original}\n\ndef bench_probe_${i}():\n    return run(None)\n`);
      const r = run([CLI, 'trace', `func:asyncio/runners.py:bench_probe_${i}`, '--root', root, '--json']);
      if (!r.stdout.includes('func:asyncio/runners.py:run')) throw new Error(`trace after a change did not see bench_probe_${i} → run`);
      changed.push(r);
    }
    fs.writeFileSync(file, original);
    results.traceAfterOneFileChanged = summarize(changed);
    return { root: '(40-file copy of the stdlib asyncio, json, concurrent.futures)', files: summary.files, entities: summary.entities, edges: summary.edges, runsPerCommand: RUNS, cores: os.cpus().length, loadAverage: os.loadavg().map(r1), ...results };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** One line per command: the wall clock, then the split. */
export function formatCli(r: Record<string, unknown>): string {
  const lines = [`CLI on a ${r.files}-file project, ${r.runsPerCommand} runs each (load average ${(r.loadAverage as number[]).join(' ')} on ${r.cores} cores)`];
  for (const [name, v] of Object.entries(r)) {
    const s = v as { p50ms?: number; p95ms?: number; overFloorP50ms?: number; cpuP50ms?: number; rssP50MB?: number; goalP50ms?: number; steps?: Record<string, number>; engine?: Record<string, number> };
    if (!s || typeof s !== 'object' || s.p50ms === undefined) continue;
    const split = Object.entries(s.steps ?? {}).map(([k, ms]) => `${k} ${ms}`).join(', ');
    const engine = Object.entries(s.engine ?? {}).map(([k, ms]) => `${k} ${ms}`).join(', ');
    const cpu = s.cpuP50ms !== undefined ? `  cpu p50 ${String(s.cpuP50ms).padStart(5)} ms  rss ${s.rssP50MB} MB` : '';
    const over = s.overFloorP50ms !== undefined ? `  over node ${String(s.overFloorP50ms).padStart(5)} ms` : '';
    lines.push(`  ${name.padEnd(26)} p50 ${String(s.p50ms).padStart(6)} ms  p95 ${String(s.p95ms).padStart(6)} ms${over}${cpu}${s.goalP50ms ? `  (goal ≤ ${s.goalP50ms})` : ''}${split ? `\n      split: ${split}` : ''}${engine ? `\n      engine: ${engine}` : ''}`);
  }
  return lines.join('\n');
}
