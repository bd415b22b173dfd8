// Where the workspace is when a command runs from inside it: the nearest folder upward holding
// an index (`.nsccn/`) or the config file; else the nearest VCS root; else the nearest project
// file. Running from a subfolder must not build a second index with other entity ids.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_FILE } from './project';

/** Marker groups, strongest first: the first group found anywhere upward wins. */
const MARKERS: string[][] = [['.nsccn', CONFIG_FILE], ['.git', '.hg', '.svn', '.jj'], ['pyproject.toml', 'package.json', 'setup.py', 'setup.cfg']];

export function findWorkspaceRoot(start: string): string {
  const from = path.resolve(start);
  for (const group of MARKERS) {
    for (let dir = from; ; dir = path.dirname(dir)) {
      if (group.some((m) => fs.existsSync(path.join(dir, m)))) return dir;
      if (path.dirname(dir) === dir) break;
    }
  }
  return from;
}
