// The eval's workspace: chosen packages of this machine's Python standard library copied side
// by side into one temp folder, so that NSCCN and pyright read exactly the same files (and
// pyright, given a typeshed without them, resolves `import email.utils` to the copy).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { stdlibPath } from '../python-paths';
import { typeshedWithout } from './typeshed';

/**
 * The five packages issue #6 names, plus six more of different styles (DOM and SAX code,
 * dynamic mocks, process plumbing, ctypes): about 150 files and 4,300 functions and methods,
 * about a minute of pyright on two cores.
 */
export const DEFAULT_PACKAGES = ['json', 'email', 'http', 'asyncio', 'logging', 'urllib', 'xml', 'concurrent', 'unittest', 'multiprocessing', 'ctypes'];

/** Folders never copied: tests are not eval material, caches are not source. */
const SKIP_DIRS = new Set(['test', 'tests', 'idle_test', '__pycache__']);

export interface StdlibWorkspace {
  /** The workspace both tools read. */
  root: string;
  /** pyright's typeshed without the copied packages (outside the workspace). */
  typeshed: string;
  stdlib: string;
  packages: string[];
  files: number;
  bytes: number;
  dispose(): void;
}

export function copyStdlibPackages(packages: string[], stdlib = stdlibPath()): StdlibWorkspace {
  if (!packages.length) throw new Error('no package to evaluate');
  for (const p of packages) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(p)) throw new Error(`not a package name: ${JSON.stringify(p)}`);
    const dir = path.join(stdlib, p);
    if (!fs.existsSync(path.join(dir, '__init__.py'))) throw new Error(`${p} is not a package of the standard library at ${stdlib}`);
  }
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-calls-eval-'));
  const root = path.join(base, 'ws');
  let files = 0;
  let bytes = 0;
  const copy = (from: string, to: string) => {
    fs.mkdirSync(to, { recursive: true });
    for (const d of fs.readdirSync(from, { withFileTypes: true })) {
      const src = path.join(from, d.name);
      if (d.isDirectory()) {
        if (!SKIP_DIRS.has(d.name)) copy(src, path.join(to, d.name));
      } else if (d.isFile() && d.name.endsWith('.py')) {
        fs.copyFileSync(src, path.join(to, d.name));
        files++;
        bytes += fs.statSync(src).size;
      }
    }
  };
  let typeshed: string;
  try {
    for (const p of packages) copy(path.join(stdlib, p), path.join(root, p));
    typeshed = typeshedWithout(packages, path.join(base, 'typeshed'));
    writePyrightConfig(root, typeshed);
  } catch (e) {
    fs.rmSync(base, { recursive: true, force: true });
    throw e;
  }
  return {
    root,
    typeshed,
    stdlib,
    packages: [...packages],
    files,
    bytes,
    dispose: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

/**
 * pyright's project settings for the copy: the trimmed typeshed, and no assumed platform. With
 * the host's platform pyright takes `if sys.platform != 'win32': raise ImportError` as
 * unconditional and skips the rest of asyncio/windows_events.py as unreachable, while NSCCN
 * (like a reader) sees every branch; "All" keeps such checks undecided, so both see the code.
 */
function writePyrightConfig(root: string, typeshed: string): void {
  const config = { typeshedPath: typeshed, pythonPlatform: 'All', typeCheckingMode: 'off' };
  fs.writeFileSync(path.join(root, 'pyrightconfig.json'), JSON.stringify(config, null, 2) + '\n');
}
