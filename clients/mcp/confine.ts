// Paths and ids from an agent are confined to the workspace root by canonical path: `..`,
// absolute paths elsewhere and symlinks that lead out of the root are refused, saying so.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DOTTED_MODULE_NAME, ErrorCodes, parseEntityId } from '../../protocol';
import { ToolError } from './errors';

export interface ConfinedFile {
  /** Canonical absolute path. */
  abs: string;
  /** Workspace-relative, `/`-separated. */
  rel: string;
  uri: string;
}

const REFUSED_HINT = 'Only files under the workspace root can be read; give a path relative to the root (index_status shows the root).';

export class Root {
  /** The root as the user named it, and its canonical path (what the language server is given). */
  readonly given: string;
  readonly real: string;

  constructor(root: string) {
    this.given = path.resolve(root);
    const real = realpathOrNull(this.given);
    if (real === null || !fs.statSync(real).isDirectory()) throw new Error(`the root ${this.given} is not a folder`);
    this.real = real;
  }

  /**
   * A file named by the agent (relative to the root, absolute, or a file:// URI). `modules`: a
   * dotted module name (`app.models`) that is no file passes, for the server to find its file.
   */
  file(raw: string, opts: { modules?: boolean } = {}): ConfinedFile {
    const named = raw.startsWith('file://') ? safeFileUrl(raw) : raw;
    const abs = path.isAbsolute(named) ? path.resolve(named) : path.resolve(this.real, named);
    const real = realpathOrNull(abs);
    if (real === null && opts.modules && DOTTED_MODULE_NAME.test(raw)) return { abs, rel: raw, uri: pathToFileURL(abs).href };
    if (real === null) {
      if (!this.contains(abs)) throw refused(raw, 'is outside the workspace root');
      throw new ToolError(
        `no file '${raw}' under the workspace root`,
        'Check the path (relative to the root), or list the nsccn://skeleton resources / call search_and_rank to find files.',
        ErrorCodes.NotIndexed,
      );
    }
    if (!this.insideReal(real)) {
      throw refused(raw, this.contains(abs) ? 'is a symlink that leads outside the workspace root' : 'is outside the workspace root');
    }
    const rel = toSlash(path.relative(this.real, real));
    return { abs: real, rel, uri: pathToFileURL(real).href };
  }

  /**
   * Refuses an entity id, or a name with a path in it (`src/app.py:main`, a pytest node id
   * `tests/test_app.py::test_main`), whose file part leaves the root; returns it unchanged. A
   * name without a path (`User.save`, `app.models.User.save`) is looked up by the server, inside
   * its workspace.
   */
  entityId(id: string): string {
    if (!id.trim()) throw new ToolError('entity_id is empty', 'Find the id with search_and_rank or read_skeleton.');
    const parsed = parseEntityId(id);
    const file = parsed ? parsed.file : pathOfName(id);
    if (file === null) return id; // config keys have no file
    const abs = path.resolve(this.real, file);
    if (path.isAbsolute(file) || !this.insideReal(abs)) throw refused(id, 'names a file outside the workspace root');
    const real = realpathOrNull(abs);
    if (real !== null && !this.insideReal(real)) throw refused(id, 'names a symlink that leads outside the workspace root');
    return id;
  }

  /** A search path filter (prefix or glob), made relative to the root. */
  pathFilter(raw: string): string {
    const abs = path.isAbsolute(raw) ? path.resolve(raw) : path.resolve(this.real, raw);
    if (!this.contains(abs)) throw refused(raw, 'is outside the workspace root');
    const real = realpathOrNull(abs);
    if (real !== null && !this.insideReal(real)) throw refused(raw, 'is a symlink that leads outside the workspace root');
    const rel = toSlash(path.relative(this.real, real ?? abs.replace(this.given, this.real)));
    // Keep a trailing slash: "src/" means the folder, "src" may also be a file prefix.
    return rel === '' ? '**' : raw.endsWith('/') ? `${rel}/` : rel;
  }

  /** Lexically under the root (either spelling of it). */
  private contains(abs: string): boolean {
    return this.insideReal(abs) || isInside(this.given, abs);
  }

  private insideReal(abs: string): boolean {
    return isInside(this.real, abs);
  }
}

function isInside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

function realpathOrNull(p: string): string | null {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

function safeFileUrl(raw: string): string {
  try {
    return fileURLToPath(raw);
  } catch {
    throw new ToolError(`'${raw}' is not a valid file URI`, 'Give a path relative to the workspace root.');
  }
}

function refused(raw: string, why: string): ToolError {
  return new ToolError(`refused: '${raw}' ${why}`, REFUSED_HINT, ErrorCodes.OutsideWorkspace);
}

function toSlash(p: string): string {
  return p.split(path.sep).join('/');
}

/** The path part of a name written `path:qname` or `path::Class::test`; null for a name without one. */
function pathOfName(name: string): string | null {
  const pytest = name.indexOf('::');
  const colon = pytest > 0 ? pytest : name.lastIndexOf(':');
  return colon > 0 ? name.slice(0, colon) : null;
}
