// Where the workspace is when a command runs from inside it: the nearest folder upward holding
// an index (`.nsccn/`), the config file or a VCS root (an index or config file in that same
// folder or below it wins over the VCS root: the walk stops at the repository's edge); else the
// nearest project file; else the folder itself. Running from a subfolder must not build a second
// index with other entity ids.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_FILE } from './project';

const INDEX = ['.nsccn', CONFIG_FILE];
const VCS = ['.git', '.hg', '.svn', '.jj'];
const PROJECT = ['pyproject.toml', 'package.json', 'setup.py', 'setup.cfg'];

export function findWorkspaceRoot(start: string): string {
  const from = path.resolve(start);
  const has = (dir: string, names: string[]) => names.some((m) => fs.existsSync(path.join(dir, m)));
  let project: string | null = null;
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (has(dir, INDEX) || has(dir, VCS)) return dir;
    project ??= has(dir, PROJECT) ? dir : null;
    if (path.dirname(dir) === dir) break;
  }
  return project ?? from;
}
