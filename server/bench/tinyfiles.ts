// `npm run bench -- tinyfiles`: a generated root of 100,000 tiny Python files (1,000 folders of
// 100), indexed cold, once plain and once behind a 10,000-rule .gitignore (literal folders,
// anchored paths, `*.ext` and a few real globs; a tenth of the folders ignored). Each run is a
// child process so its peak RSS is its own. NSCCN_TINY_FILES sets the count (default 100000).
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../src/engine/engine';
import { discover } from '../src/engine/workspace/discover';
import { EXTENSIONS } from '../src/engine/languages/registry';

const PER_DIR = 100;

function generate(root: string, files: number, withRules: boolean): { expected: number } {
  const dirs = Math.ceil(files / PER_DIR);
  let expected = 0;
  for (let d = 0; d < dirs; d++) {
    const dir = path.join(root, `pkg${d}`);
    fs.mkdirSync(dir, { recursive: true });
    const n = Math.min(PER_DIR, files - d * PER_DIR);
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(dir, `m${i}.py`), `def f${i}():\n    return g${i}()\n`);
    if (!(withRules && d % 10 === 0)) expected += n;
  }
  if (withRules) {
    const lines: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      if (i % 10 === 0 && i / 10 < dirs && (i / 10) % 10 === 0) lines.push(`pkg${i / 10}/`); // every tenth folder
      else lines.push([`gen_${i}/`, `*.tmp${i}`, `/build_${i}.py`, `cache_${i}`, `out_${i}/**/*.o`][i % 5]);
    }
    lines.push('**/m*_generated.py', '!pkg1/keep_*.py', '[Tt]emp?/');
    fs.writeFileSync(path.join(root, '.gitignore'), lines.join('\n') + '\n');
  }
  return { expected };
}

/** Runs in the child: discovery alone, then a cold index; prints one JSON line. */
async function child(root: string): Promise<void> {
  const t0 = performance.now();
  const found = discover(root, { extensions: EXTENSIONS, exclude: [], maxFileBytes: 1 << 20 });
  const discoverSeconds = (performance.now() - t0) / 1000;
  const dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-tiny-db-'));
  try {
    const t1 = performance.now();
    const engine = await Engine.open({ root, dbPath: path.join(dbDir, 'index.db'), embeddings: { model: 'none' } });
    const summary = await engine.indexWorkspace();
    const indexSeconds = (performance.now() - t1) / 1000;
    await engine.close();
    process.send!({
      discovered: found.files.length,
      discoverSeconds: +discoverSeconds.toFixed(2),
      indexedFiles: summary.files,
      entities: summary.entities,
      indexSeconds: +indexSeconds.toFixed(1),
      filesPerSecond: Math.round(summary.files / indexSeconds),
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
    });
  } finally {
    fs.rmSync(dbDir, { recursive: true, force: true });
  }
}

function runChild(root: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const p = fork(__filename, ['--child', root], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: Record<string, unknown> | undefined;
    p.on('message', (m) => (result = m as Record<string, unknown>));
    p.on('exit', (code) => (result ? resolve(result) : reject(new Error(`tinyfiles child exited ${code} without a result`))));
  });
}

export async function benchTinyFiles(): Promise<Record<string, unknown>> {
  const files = Number(process.env.NSCCN_TINY_FILES ?? 100_000);
  const out: Record<string, unknown> = { files, perFolder: PER_DIR };
  for (const variant of ['plain', 'gitignore10k'] as const) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), `nsccn-tiny-${variant}-`));
    try {
      const tg = performance.now();
      const { expected } = generate(root, files, variant === 'gitignore10k');
      const generateSeconds = +((performance.now() - tg) / 1000).toFixed(1);
      const r = await runChild(root);
      out[variant] = { expectedFiles: expected, generateSeconds, ...r };
      console.log(`${variant}: ${JSON.stringify(out[variant])}`);
      if (r.indexedFiles !== expected) throw new Error(`${variant}: indexed ${r.indexedFiles} files, expected ${expected}`);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }
  return out;
}

if (require.main === module && process.argv[2] === '--child') {
  void child(process.argv[3]).catch((e) => {
    console.error(e);
    process.exitCode = 1;
  });
}
