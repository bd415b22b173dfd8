// The index folder (`.nsccn/`) is derived data: a `.gitignore` of `*` inside it keeps it out of
// `git status` without touching the project's own .gitignore.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function keepIndexOutOfGit(dir: string): void {
  const file = path.join(dir, '.gitignore');
  try {
    // O_EXCL: never through a link a repository may have planted there, never over a file.
    fs.writeFileSync(file, '# derived data of nsccn: safe to delete\n*\n', { flag: 'wx' });
  } catch {
    /* already there, or a read-only folder: git shows the index, nothing worse */
  }
}
