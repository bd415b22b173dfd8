// The real code on every machine that benchmarks and evals run on (never committed).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export function pythonStdlib(): string {
  return execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
}

export function sitePackages(): string {
  return execFileSync('python3', ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).trim();
}

/** Python files (.py and .pyi stubs, as the index takes them) and their bytes under a root, skipping the given top-level folders. */
export function pythonFiles(root: string, skip: string[] = []): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (dir: string, top: boolean) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      if (top && skip.includes(d.name)) continue;
      if (d.name === '__pycache__') continue;
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p, false);
      else if (d.isFile() && (d.name.endsWith('.py') || d.name.endsWith('.pyi'))) {
        files++;
        bytes += fs.statSync(p).size;
      }
    }
  };
  walk(root, true);
  return { files, bytes };
}

export function writeResult(name: string, data: unknown): string {
  const dir = path.resolve('bench-results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  return file;
}
