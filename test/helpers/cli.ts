// The compiled `nsccn` command as the tests run it: no model, one result object per call.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const CLI = path.resolve(__dirname, '../../dist/server/src/cli/main.js');
export const CLI_ENV = { ...process.env, NSCCN_MODEL: 'none' };

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Throws a clear error when the build is missing (`npm test` builds first). */
export function requireBuiltCli(): void {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm test does it first)`);
}

/** `nsccn ARGS --root ROOT`. */
export function runCli(root: string, ...args: string[]): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args, '--root', root], { encoding: 'utf8', env: CLI_ENV, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
