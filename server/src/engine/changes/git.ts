// The git side of `changes`: run the `git` on PATH, read a diff as line numbers per file, and
// read a file's content at a revision or in the git index. No git library: the CLI is the one
// interface every git install has, and two commands are all this needs.
import { execFile } from 'node:child_process';
import { ErrorCodes, type ChangesParams } from '../../../../protocol';
import { EngineError } from '../errors';

export type DiffMode = { kind: 'head' } | { kind: 'since'; rev: string } | { kind: 'staged' } | { kind: 'worktree' };

/** The diff the params ask for: at most one of since, staged, worktree; none is HEAD. */
export function diffModeOf(p: ChangesParams): DiffMode {
  const given = [p.since !== undefined, p.staged === true, p.worktree === true].filter(Boolean).length;
  if (given > 1) throw new EngineError(ErrorCodes.InvalidParams, 'give at most one of since, staged and worktree');
  if (p.since !== undefined) {
    if (typeof p.since !== 'string' || !p.since.trim()) throw new EngineError(ErrorCodes.InvalidParams, 'since must be a git revision');
    return { kind: 'since', rev: p.since.trim() };
  }
  if (p.staged) return { kind: 'staged' };
  if (p.worktree) return { kind: 'worktree' };
  return { kind: 'head' };
}

/** Where each side of a diff is read from: a revision, the git index (`:`), or the disk (null). */
export interface Sides {
  old: string;
  new: string | null;
  label: string;
  untracked: boolean;
}

export function sidesOf(mode: DiffMode): Sides {
  switch (mode.kind) {
    case 'head':
      return { old: 'HEAD', new: null, label: 'HEAD → working tree', untracked: true };
    case 'since':
      return { old: mode.rev, new: null, label: `${mode.rev} → working tree`, untracked: true };
    case 'staged':
      return { old: 'HEAD', new: ':', label: 'HEAD → staged', untracked: false };
    case 'worktree':
      return { old: ':', new: null, label: 'staged → working tree', untracked: true };
  }
}

export interface FileDiff {
  oldPath: string | null;
  newPath: string | null;
  /** 1-based lines removed/changed in the old version and added/changed in the new one. */
  oldLines: number[];
  newLines: number[];
}

const MAX_BUFFER = 256 * 1024 * 1024;

export function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, encoding: 'utf8', maxBuffer: MAX_BUFFER }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        return reject(new EngineError(ErrorCodes.IndexUnavailable, 'git is not on PATH: nsccn changes needs it'));
      }
      const why = (stderr || err.message).trim().split('\n')[0];
      if (/not a git repository/i.test(why)) return reject(new EngineError(ErrorCodes.InvalidParams, `${cwd} is not in a git repository`));
      reject(new EngineError(ErrorCodes.InvalidParams, `git ${args[0]} failed: ${why}`));
    });
  });
}

/** Checks that `root` is inside a work tree and that a revision exists, with clear errors. */
export async function checkRepo(root: string, mode: DiffMode): Promise<void> {
  await git(root, ['rev-parse', '--show-toplevel']);
  const rev = mode.kind === 'since' ? mode.rev : mode.kind === 'worktree' ? null : 'HEAD';
  if (rev === null) return;
  if (rev.startsWith('-')) throw new EngineError(ErrorCodes.InvalidParams, `not a revision: ${rev}`);
  try {
    await git(root, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
  } catch {
    throw new EngineError(ErrorCodes.InvalidParams, rev === 'HEAD' ? 'the repository has no commit yet' : `unknown revision ${rev}`);
  }
}

export async function diff(root: string, mode: DiffMode): Promise<FileDiff[]> {
  const args = ['diff', '--no-color', '--no-ext-diff', '-M', '--unified=0', '--relative'];
  if (mode.kind === 'staged') args.push('--cached');
  if (mode.kind === 'head') args.push('HEAD');
  if (mode.kind === 'since') args.push(mode.rev);
  args.push('--');
  return parseDiff(await git(root, args));
}

/** Untracked, not ignored files under the root (relative, `/`). */
export async function untracked(root: string): Promise<string[]> {
  const out = await git(root, ['ls-files', '--others', '--exclude-standard', '-z', '--', '.']);
  return out.split('\0').filter(Boolean);
}

/** A file's text at a revision or in the git index (`:`), or null when it is not there. */
export async function blob(root: string, rev: string, file: string): Promise<string | null> {
  try {
    return await git(root, ['show', `${rev === ':' ? '' : rev}:./${file}`]);
  } catch {
    return null;
  }
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** `git diff --unified=0` output → files with the line numbers each side changed. */
export function parseDiff(text: string): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      cur = { oldPath: null, newPath: null, oldLines: [], newLines: [] };
      files.push(cur);
      // Paths come from the ---/+++ or rename lines; this header is ambiguous with spaces.
      continue;
    }
    if (!cur) continue;
    if (line.startsWith('rename from ')) cur.oldPath = unquote(line.slice(12));
    else if (line.startsWith('rename to ')) cur.newPath = unquote(line.slice(10));
    else if (line.startsWith('--- ')) cur.oldPath = line === '--- /dev/null' ? null : unquote(line.slice(4)).replace(/^a\//, '');
    else if (line.startsWith('+++ ')) cur.newPath = line === '+++ /dev/null' ? null : unquote(line.slice(4)).replace(/^b\//, '');
    else {
      const m = HUNK.exec(line);
      if (!m) continue;
      const [oldStart, oldCount, newStart, newCount] = [+m[1], m[2] === undefined ? 1 : +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
      for (let i = 0; i < oldCount; i++) cur.oldLines.push(oldStart + i);
      for (let i = 0; i < newCount; i++) cur.newLines.push(newStart + i);
    }
  }
  // A file added or deleted whole has only one path; a pure rename has both from its header.
  return files.filter((f) => f.oldPath !== null || f.newPath !== null);
}

/** git quotes paths with unusual characters: `"a\\tb.py"`. */
function unquote(p: string): string {
  if (!p.startsWith('"')) return p;
  try {
    return JSON.parse(p) as string;
  } catch {
    return p.slice(1, -1);
  }
}
