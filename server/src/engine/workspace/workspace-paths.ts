// The workspace seen through its paths: what a path or URI names inside the root (never outside
// it, through a symlink either), which files the index reads and which the engine wants to hear
// of, and a file's current text. One per engine: it holds the workspace's one set of ignore rules.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCodes } from '../../../../protocol';
import { EngineError } from '../errors';
import { EXTENSIONS, languageForPath } from '../languages/registry';
import type { ProjectFiles } from '../languages/types';
import { escapes } from './confine';
import { IgnoreRules } from './discover';
import { isProjectRead } from './project';
import { readSource } from './read';

/** Files larger than this are not read to answer a request (they are not indexed either). */
const MAX_SHOWN_BYTES = 256 * 1024 * 1024;

export class WorkspacePaths {
  /** The root with its links resolved: a path is inside when its real path is under this. */
  private readonly realRoot: string;
  /** Read fresh after a .gitignore changes (`rules.reset()`); index runs judge files by them too. */
  readonly rules: IgnoreRules;

  constructor(
    readonly root: string,
    exclude: string[],
    /** The open buffers: an open file's text is its buffer's. */
    private readonly buffers: { text(rel: string): string | undefined },
    /** The project files the graph has read (read at each call: the graph may start again from new ones). */
    private readonly graph: { readonly project?: ProjectFiles },
  ) {
    this.realRoot = fs.realpathSync(root);
    this.rules = new IgnoreRules(root, exclude);
  }

  /**
   * Workspace-relative `/` path of an absolute path, a `file://` URI or a relative path. Unless
   * `followLinks` is false, a path that links out of the root (itself or through a parent) is
   * outside too; watch events pass false, since a file that now links out is a deletion.
   */
  relativePath(p: string, opts: { followLinks?: boolean } = {}): string {
    if (typeof p !== 'string' || !p) throw new EngineError(ErrorCodes.InvalidParams, 'expected a file path or URI');
    let abs: string;
    if (p.startsWith('file:')) {
      try {
        abs = fileURLToPath(p);
      } catch {
        throw new EngineError(ErrorCodes.InvalidParams, `not a valid file URI: ${p}`);
      }
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(p) && !/^[a-z]:[\\/]/i.test(p)) {
      throw new EngineError(ErrorCodes.OutsideWorkspace, `only file URIs are served, got ${p}`);
    } else abs = path.resolve(this.root, p);
    if (abs.includes('\0')) throw new EngineError(ErrorCodes.InvalidParams, 'a path cannot contain a NUL byte');
    const rel = path.relative(this.root, abs);
    // Segments, not a string prefix: `..foo.py` is a file in the root.
    if (!rel || escapes(rel)) {
      throw new EngineError(ErrorCodes.OutsideWorkspace, `${p} is outside the workspace ${this.root}`);
    }
    const out = rel.split(path.sep).join('/');
    if (opts.followLinks === false) return out;
    // A symlink inside the root that points out of it is outside too.
    // (The file itself may not exist yet: judge its nearest existing ancestor.)
    let probe = abs;
    while (!fs.existsSync(probe) && probe !== this.root) probe = path.dirname(probe);
    let real = probe;
    try {
      real = fs.realpathSync(probe);
    } catch {
      /* unreadable: judged by its path alone */
    }
    const r = path.relative(this.realRoot, real);
    if (escapes(r)) throw new EngineError(ErrorCodes.OutsideWorkspace, `${p} links outside the workspace ${this.root}`);
    return out;
  }

  absolutePath(rel: string): string {
    return path.join(this.root, rel);
  }

  /**
   * The current text of a workspace file: its open buffer, else the disk — read only if the
   * file is inside the root at this moment (an index path or a symlink may point elsewhere).
   */
  fileText(rel: string): string {
    const open = this.buffers.text(rel);
    if (open !== undefined) return open;
    const read = readSource(this.root, this.realRoot, rel, MAX_SHOWN_BYTES, languageForPath(rel)?.encodingCookie);
    if (!read.ok) throw new EngineError(ErrorCodes.NotIndexed, `cannot show ${rel}: ${read.reason}`);
    return read.text;
  }

  /** The current text of a workspace file, or null when it cannot be read. */
  textOrNull(file: string): string | null {
    try {
      return this.fileText(file);
    } catch {
      return null;
    }
  }

  /** A file the index would read: a language reads it, and no ignore rule skips it. */
  isIndexable(file: string): boolean {
    return languageForPath(file) !== undefined && !this.rules.ignored(file, false);
  }

  /** The workspace's ignore rules (.gitignore files, excludes, built-in skips). */
  isIgnored(file: string, isDir: boolean): boolean {
    return this.rules.ignored(file, isDir);
  }

  /** Files whose changes the engine wants to hear of: indexable ones, the ignore files and the project files read. */
  isWatched(file: string): boolean {
    return isIgnoreFile(file) || this.isIndexable(file) || isProjectRead(this.graph.project, file);
  }
}

/**
 * Whether a file could ever be `isWatched`, by its name alone (what a watcher decides once, when
 * it starts): a language reads it, it is an ignore file, or it is of a kind project files are
 * (every one a language reads is TOML, CFG or JSON: pyproject.toml, setup.cfg, package.json,
 * tsconfig.json and what it extends).
 */
export function mayBeWatched(file: string): boolean {
  return isIgnoreFile(file) || languageForPath(file) !== undefined || /\.(json|toml|cfg)$/.test(file);
}

/** A .gitignore: a change to one changes which files are indexed. */
export function isIgnoreFile(rel: string): boolean {
  return rel === '.gitignore' || rel.endsWith('/.gitignore');
}

/** Glob patterns of the files an engine wants watched (for an editor's file watcher). */
export function watchGlobs(): string[] {
  const exts = [...EXTENSIONS].map((e) => e.replace(/^\./, '')).sort();
  // The project files a language reads (project.ts records which; an extended tsconfig may have
  // any name, and is heard of through the workspace's own watcher).
  return [exts.length === 1 ? `**/*.${exts[0]}` : `**/*.{${exts.join(',')}}`, '**/.gitignore', '**/{pyproject.toml,setup.cfg,package.json,tsconfig.json,jsconfig.json}'];
}
