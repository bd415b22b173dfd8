// Where this machine's Python keeps its code: the standard library (the retrieval eval set) and
// site-packages (training data for the static table, and the scale benchmark). Asked of
// python3 itself so that pyenv, venvs and distro layouts all answer correctly.
import { execFileSync } from 'node:child_process';

function ask(expr: string): string {
  try {
    return execFileSync('python3', ['-c', `print(${expr})`], { encoding: 'utf8', timeout: 20_000 }).trim();
  } catch (e) {
    throw new Error(`python3 is needed to locate Python's code (${(e as Error).message.split('\n')[0]})`);
  }
}

export function stdlibPath(): string {
  return ask(`__import__('sysconfig').get_paths()["stdlib"]`);
}

export function sitePackagesPath(): string {
  return ask(`__import__('site').getsitepackages()[0]`);
}

/** Parts of the standard library that are tests or third-party code, never eval material. */
export const STDLIB_EXCLUDES = ['test/', 'tests/', 'idlelib/idle_test/', 'lib2to3/tests/', 'site-packages/', 'dist-packages/'];
