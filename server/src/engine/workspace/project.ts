// The workspace's project files as the languages read them for module resolution (tsconfig.json
// `paths`, package.json `exports` of workspace packages, pyproject.toml source roots). Read from
// disk on demand; never written.
//
// Every read is recorded (the digest of what the languages read of the file, `projectFileView`,
// or of its whole text; null when it was missing) and kept in the index
// (`project_reads` in meta): module names, and so import targets and edges, were made from what
// these files said. When one of them now says something else (a tsconfig `paths` edited, a
// pyproject.toml that appears), the index is out of date though no indexed file changed:
// `projectMoves` tells, and the next index run (indexer.ts) names the files under its folder anew
// and resolves them and their importers again (a file that only names modules, such as a
// pyproject.toml), or parses every file and resolves every reference again, as a cold index would.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ProjectFiles } from '../languages/types';
import type { Store } from '../store/store';
import { digest } from '../digest';
import { LANGUAGES } from '../languages/registry';

const META_KEY = 'project_reads';

/** What a read found: the file's digest, or null when there was no file to read. */
type Reads = Map<string, string | null>;

export function projectFiles(root: string): ProjectFiles & { readonly reads: ReadonlyMap<string, string | null> } {
  const abs = (rel: string) => path.join(root, ...rel.split('/'));
  const reads: Reads = new Map();
  return {
    reads,
    read(rel) {
      const text = readText(abs(rel));
      reads.set(rel, text === undefined ? null : viewDigest(rel, text));
      return text;
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

/**
 * The first project file the index was built from that now reads differently (changed, appeared
 * or went), or null. By stat alone for the files that were missing (most of them: every folder
 * is asked for its pyproject.toml), so an up-to-date check stays a few milliseconds.
 */
export function projectMoved(root: string, store: Store): string | null {
  return moves(root, store, true)[0] ?? null;
}

/** Every project file the index was built from that now reads differently. */
export function projectMoves(root: string, store: Store): string[] {
  return moves(root, store, false);
}

function moves(root: string, store: Store, first: boolean): string[] {
  const out: string[] = [];
  for (const [rel, was] of storedReads(store)) {
    const abs = path.join(root, ...rel.split('/'));
    const moved = was === null ? !!fs.statSync(abs, { throwIfNoEntry: false })?.isFile() : digestOf(rel, abs, was.startsWith(VIEW)) !== was;
    if (!moved) continue;
    out.push(rel);
    if (first) break;
  }
  return out;
}

/** Digests of a languages' view of a file (`projectFileView`) start with this; others are of the whole text (as indexes made before views kept them all). */
const VIEW = 'v:';

/** Each language's view of project files, once: the TypeScript family registers one for three languages. */
const VIEWS = [...new Set(LANGUAGES.map((l) => l.projectFileView).filter((v) => v !== undefined))];

/** The digest the index keeps of a project file's text: of what the languages read of it. */
function viewDigest(rel: string, text: string): string {
  const views = new Set<string>();
  for (const view of VIEWS) {
    const v = view(rel, text);
    if (v !== undefined) views.add(v);
  }
  return views.size === 1 ? VIEW + digest([...views][0]) : digest(text);
}

/** The digest of the file now, the way `was` was made (a view's, or the whole text's), or undefined when it is gone. */
function digestOf(rel: string, abs: string, asView = true): string | undefined {
  const text = readText(abs);
  if (text === undefined) return undefined;
  return asView ? viewDigest(rel, text) : digest(text);
}

/**
 * Keeps what `project` has read in the index, beside what earlier runs read. `refresh`: the
 * recorded files are read again (after a run that found them moved, the old digests are stale).
 */
export function recordProjectReads(root: string, store: Store, project: ProjectFiles | undefined, refresh = false): void {
  const now = project?.reads;
  if (!now || (!now.size && !refresh)) return;
  const stored = storedReads(store);
  let changed = false;
  if (refresh) {
    // After a change, what this process read before it may be stale: every file is read again.
    for (const rel of new Set([...stored.keys(), ...now.keys()])) {
      const d = digestOf(rel, path.join(root, ...rel.split('/'))) ?? null;
      if (stored.get(rel) !== d) stored.set(rel, d), (changed = true);
    }
  } else for (const [rel, d] of now) if (stored.get(rel) !== d) stored.set(rel, d), (changed = true);
  if (changed) store.setMeta(META_KEY, JSON.stringify([...stored].sort((a, b) => (a[0] < b[0] ? -1 : 1))));
}

/** Is `rel` a project file the index was built from (its change must reach the index)? */
export function isProjectRead(project: ProjectFiles | undefined, rel: string): boolean {
  return project?.reads?.has(rel) ?? false;
}

function storedReads(store: Store): Reads {
  const raw = store.meta(META_KEY);
  if (!raw) return new Map();
  try {
    return new Map(JSON.parse(raw) as Array<[string, string | null]>);
  } catch {
    return new Map(); // unreadable: nothing to compare with; the next run writes it anew
  }
}

function readText(abs: string): string | undefined {
  try {
    return fs.readFileSync(abs, 'utf8');
  } catch {
    return undefined;
  }
}

