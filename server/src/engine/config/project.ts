// The project config file, `.nsccn.json` at the workspace root: options that shape the index
// and the answers, kept with the project so the CLI, the language server (and the MCP adapter
// through it) build and read the same index. Unknown keys and wrong types are errors that name
// the key: a typo must not silently change what is indexed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCodes } from '../../../../protocol';
import type { EngineOptions } from '../api';
import { EngineError } from '../errors';

export const CONFIG_FILE = '.nsccn.json';

export interface ProjectConfig {
  /** Extra paths to skip (gitignore syntax), on top of .gitignore. */
  exclude?: string[];
  /** Only these folders (workspace-relative) are indexed. */
  sourceRoots?: string[];
  /** Files larger than this many bytes are skipped. */
  maxFileBytes?: number;
  /** Embedding model: a Hugging Face id or a local folder; absent or "none": the offline streams only. */
  model?: string;
  quantization?: 'auto' | 'float' | 'binary';
  /** Where tests live (globs), for `changes`. */
  testGlobs?: string[];
}

type Check = (v: unknown) => string | null;
const strings: Check = (v) => (Array.isArray(v) && v.every((x) => typeof x === 'string' && x.trim() !== '') ? null : 'a list of non-empty strings');
const KEYS: Record<keyof ProjectConfig, Check> = {
  exclude: strings,
  sourceRoots: (v) => strings(v) ?? ((v as string[]).some((r) => r.startsWith('/') || r.split('/').includes('..')) ? 'folders inside the workspace (relative, no ..)' : null),
  maxFileBytes: (v) => (Number.isInteger(v) && (v as number) > 0 ? null : 'a positive integer'),
  model: (v) => (typeof v === 'string' && v.trim() !== '' ? null : 'a model id, a folder, or "none"'),
  quantization: (v) => (v === 'auto' || v === 'float' || v === 'binary' ? null : '"auto", "float" or "binary"'),
  testGlobs: strings,
};

/** The config of `root`, or {} when it has no config file. */
export function loadProjectConfig(root: string): ProjectConfig {
  const file = path.join(root, CONFIG_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new EngineError(ErrorCodes.InvalidParams, `${file}: cannot read it (${(e as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EngineError(ErrorCodes.InvalidParams, `${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseProjectConfig(raw, file);
}

export function parseProjectConfig(raw: unknown, where = CONFIG_FILE): ProjectConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new EngineError(ErrorCodes.InvalidParams, `${where}: expected a JSON object`);
  for (const [key, value] of Object.entries(raw)) {
    const check = KEYS[key as keyof ProjectConfig];
    if (!check) throw new EngineError(ErrorCodes.InvalidParams, `${where}: unknown key "${key}" (known: ${Object.keys(KEYS).join(', ')})`);
    const want = check(value);
    if (want) throw new EngineError(ErrorCodes.InvalidParams, `${where}: "${key}" must be ${want}, got ${JSON.stringify(value)}`);
  }
  return raw as ProjectConfig;
}

/**
 * `sourceRoots` as exclude patterns: at each level, everything is excluded but the way down to a
 * root (`src/pkg` → `/*`, `!/src/`, `/src/*`, `!/src/pkg/`). A root inside another is redundant.
 */
export function sourceRootExcludes(roots: string[] | undefined): string[] {
  if (!roots?.length) return [];
  const split = roots.map((r) => r.split('/').filter((p) => p && p !== '.')).filter((p) => p.length);
  const kept = split.filter((a) => !split.some((b) => b !== a && b.length < a.length && b.every((p, i) => a[i] === p)));
  const levels: Array<{ ex: Set<string>; neg: Set<string> }> = [];
  for (const parts of kept) {
    parts.forEach((_, i) => {
      const level = (levels[i] ??= { ex: new Set(), neg: new Set() });
      const parent = parts.slice(0, i).join('/');
      level.ex.add(parent ? `/${parent}/*` : '/*');
      level.neg.add(`!/${parts.slice(0, i + 1).join('/')}/`);
    });
  }
  return levels.flatMap((l) => [...l.ex, ...l.neg]);
}

/** Engine options with the project config folded in: excludes add up, other explicit options win. */
export function withProjectConfig(options: EngineOptions, config: ProjectConfig): EngineOptions {
  const exclude = [...sourceRootExcludes(config.sourceRoots), ...(config.exclude ?? []), ...(options.exclude ?? [])];
  const embeddings = { ...options.embeddings };
  if (embeddings.model === undefined && config.model !== undefined) embeddings.model = config.model;
  if (embeddings.quantization === undefined && config.quantization !== undefined) embeddings.quantization = config.quantization;
  return { ...options, exclude, maxFileBytes: options.maxFileBytes ?? config.maxFileBytes, embeddings };
}
