// `initializationOptions` → engine options. Clients write these by hand in editor configs, so a
// wrong value is reported (and ignored) rather than failing the whole initialize.
import type { EngineOptions, ModelSettings } from '../engine';

export interface LspSettings {
  exclude?: string[];
  maxFileBytes?: number;
  /** Index database; only honoured with a single workspace folder (each root needs its own). */
  dbPath?: string;
  workers?: number;
  embeddings?: ModelSettings;
  /** Fallback file watcher: poll instead of native events (network drives, some containers). */
  usePolling?: boolean;
}

export interface ParsedSettings {
  settings: LspSettings;
  warnings: string[];
}

const QUANTIZATIONS = ['auto', 'float', 'binary'] as const;

export function parseSettings(raw: unknown): ParsedSettings {
  const settings: LspSettings = {};
  const warnings: string[] = [];
  if (raw === undefined || raw === null) return { settings, warnings };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { settings, warnings: ['initializationOptions must be an object; ignored'] };
  }
  const o = raw as Record<string, unknown>;
  const warn = (key: string, expected: string) =>
    warnings.push(`initializationOptions.${key} must be ${expected} (got ${JSON.stringify(o[key])}); ignored`);

  if (o.exclude !== undefined) {
    if (Array.isArray(o.exclude) && o.exclude.every((x) => typeof x === 'string')) settings.exclude = o.exclude;
    else warn('exclude', 'an array of glob strings');
  }
  if (o.maxFileBytes !== undefined) {
    if (isInt(o.maxFileBytes) && o.maxFileBytes > 0) settings.maxFileBytes = o.maxFileBytes;
    else warn('maxFileBytes', 'a positive integer');
  }
  if (o.workers !== undefined) {
    if (isInt(o.workers) && o.workers >= 0) settings.workers = o.workers;
    else warn('workers', 'a non-negative integer');
  }
  if (o.dbPath !== undefined) {
    if (typeof o.dbPath === 'string' && o.dbPath) settings.dbPath = o.dbPath;
    else warn('dbPath', 'a path');
  }
  if (o.usePolling !== undefined) {
    if (typeof o.usePolling === 'boolean') settings.usePolling = o.usePolling;
    else warn('usePolling', 'a boolean');
  }
  if (o.embeddings !== undefined) {
    const m = parseModel(o.embeddings, warnings);
    if (m) settings.embeddings = m;
  }
  const known = new Set(['exclude', 'maxFileBytes', 'workers', 'dbPath', 'usePolling', 'embeddings']);
  for (const key of Object.keys(o)) if (!known.has(key)) warnings.push(`unknown initializationOptions.${key}; ignored`);
  return { settings, warnings };
}

function parseModel(raw: unknown, warnings: string[]): ModelSettings | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    warnings.push('initializationOptions.embeddings must be an object; ignored');
    return null;
  }
  const o = raw as Record<string, unknown>;
  const m: ModelSettings = {};
  for (const key of ['model', 'localModelPath', 'cacheDir'] as const) {
    if (o[key] === undefined) continue;
    if (typeof o[key] === 'string' && o[key]) m[key] = o[key] as string;
    else warnings.push(`initializationOptions.embeddings.${key} must be a string; ignored`);
  }
  if (o.allowRemote !== undefined) {
    if (typeof o.allowRemote === 'boolean') m.allowRemote = o.allowRemote;
    else warnings.push('initializationOptions.embeddings.allowRemote must be a boolean; ignored');
  }
  if (o.quantization !== undefined) {
    if (QUANTIZATIONS.includes(o.quantization as (typeof QUANTIZATIONS)[number])) {
      m.quantization = o.quantization as ModelSettings['quantization'];
    } else warnings.push(`initializationOptions.embeddings.quantization must be one of ${QUANTIZATIONS.join(', ')}; ignored`);
  }
  return m;
}

/** Engine options for one workspace root. */
export function engineOptions(
  root: string,
  settings: LspSettings,
  singleRoot: boolean,
  log: (message: string) => void,
): EngineOptions {
  // A server checks the index's integrity after it answers, not before (ARCHITECTURE: start-up).
  // Grammars too: the first answers come from the index; a buffer opened meanwhile waits for them.
  const opts: EngineOptions = { root, log, integrity: 'background', grammars: 'background' };
  if (settings.exclude) opts.exclude = settings.exclude;
  if (settings.maxFileBytes !== undefined) opts.maxFileBytes = settings.maxFileBytes;
  if (settings.workers !== undefined) opts.workers = settings.workers;
  if (settings.embeddings) opts.embeddings = settings.embeddings;
  if (settings.dbPath && singleRoot) opts.dbPath = settings.dbPath;
  return opts;
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}
