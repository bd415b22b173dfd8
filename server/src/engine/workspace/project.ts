// The workspace's project files as the languages read them for module resolution (tsconfig.json
// `paths`, package.json `exports` of workspace packages). Read from disk on demand; never written.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProjectFiles } from '../languages/types';

export function projectFiles(root: string): ProjectFiles {
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  return {
    read(rel) {
      try {
        return fs.readFileSync(abs(rel), 'utf8');
      } catch {
        return undefined;
      }
    },
    rootNames() {
      const out: string[] = [];
      for (let dir = path.resolve(root); path.dirname(dir) !== dir; dir = path.dirname(dir)) out.push(path.basename(dir));
      return out;
    },
    list(rel) {
      try {
        return fs.readdirSync(abs(rel));
      } catch {
        return [];
      }
    },
  };
}
