// Which transformer model to load and how, from the user's settings and the environment —
// decided before any thread or download starts, so that "no model here and downloads are off"
// is a one-line note at once instead of a hang or a stack trace.
//
// Precedence: settings.model, then NSCCN_MODEL, then DEFAULT_MODEL. `none` (or `off`) switches
// the model stream off. Downloads are off when NSCCN_OFFLINE=1 or settings.allowRemote is false.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ModelSettings } from '../api';

/**
 * The model we recommend naming (see README.md in this folder for why). Not loaded unless named:
 * without a model NSCCN searches with the shipped offline streams, and nothing is downloaded.
 */
export const DEFAULT_MODEL = 'jinaai/jina-embeddings-v2-base-code';

export const NO_MODEL_NOTE = `model stream off: no model named (the offline streams are on; name one with --model, "model" in .nsccn.json or NSCCN_MODEL, e.g. ${DEFAULT_MODEL})`;

export type Pooling = 'mean' | 'cls' | 'last_token';

export interface ModelPlan {
  /** As the user named it (shown in status). */
  name: string;
  /** What transformers.js is given: an absolute folder or a hub id. */
  ref: string;
  local: boolean;
  /** dtypes to try in order: the quantized ONNX file when there is one, then full precision. */
  dtypes: Array<'q8' | 'fp32'>;
  pooling: Pooling;
  /** Prepended to queries (some retrieval models are trained with an instruction). */
  queryPrefix: string;
  allowRemote: boolean;
  cacheDir: string;
}

export type ModelDecision = { kind: 'off'; note: string } | { kind: 'load'; plan: ModelPlan };

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'nsccn', 'models');
}

export function decideModel(settings: ModelSettings | undefined, env: NodeJS.ProcessEnv = process.env): ModelDecision {
  const named = settings?.model ?? env.NSCCN_MODEL;
  if (named === undefined) return { kind: 'off', note: NO_MODEL_NOTE };
  const name = named.trim();
  if (!name || /^(none|off)$/i.test(name)) return { kind: 'off', note: 'model stream off: switched off by settings (model: none)' };
  const offline = env.NSCCN_OFFLINE === '1' || settings?.allowRemote === false;
  const cacheDir = settings?.cacheDir ? path.resolve(settings.cacheDir) : defaultCacheDir(env);

  const folder = localFolder(name, settings?.localModelPath);
  if (folder) {
    const onnx = path.join(folder, 'onnx');
    const dtypes: Array<'q8' | 'fp32'> = [];
    if (fs.existsSync(path.join(onnx, 'model_quantized.onnx'))) dtypes.push('q8');
    if (fs.existsSync(path.join(onnx, 'model.onnx'))) dtypes.push('fp32');
    if (!fs.existsSync(path.join(folder, 'config.json')) || !dtypes.length) {
      return { kind: 'off', note: `model stream off: ${folder} is not a transformers.js model folder (needs config.json and onnx/model.onnx or onnx/model_quantized.onnx)` };
    }
    return { kind: 'load', plan: { name, ref: folder, local: true, dtypes, ...sentenceTransformerHints(folder), allowRemote: false, cacheDir } };
  }
  if (looksLikePath(name)) return { kind: 'off', note: `model stream off: no model found at ${path.resolve(name)}` };
  if (!/^[\w.-]+(\/[\w.-]+)?$/.test(name)) return { kind: 'off', note: `model stream off: ${JSON.stringify(name)} is neither a model folder nor a Hugging Face model id` };
  const cached = path.join(cacheDir, name);
  if (offline && !fs.existsSync(path.join(cached, 'config.json'))) {
    const where = [settings?.localModelPath && path.join(path.resolve(settings.localModelPath), name), cached].filter(Boolean).join(' or ');
    const why = env.NSCCN_OFFLINE === '1' ? 'NSCCN_OFFLINE=1' : 'allowRemote is false';
    return { kind: 'off', note: `model stream off: no model found at ${where}, and downloads are off (${why})` };
  }
  const hints = fs.existsSync(cached) ? sentenceTransformerHints(cached) : { pooling: 'mean' as Pooling, queryPrefix: '' };
  return { kind: 'load', plan: { name, ref: name, local: false, dtypes: ['q8', 'fp32'], ...hints, allowRemote: !offline, cacheDir } };
}

function looksLikePath(name: string): boolean {
  return path.isAbsolute(name) || name.startsWith('.') || name.startsWith('~') || name.includes('\\') || name.split('/').length > 2;
}

/** The model's folder when it is one: the name itself, or `<localModelPath>/<name>`. */
function localFolder(name: string, localModelPath: string | undefined): string | null {
  const expanded = name.startsWith('~/') ? path.join(os.homedir(), name.slice(2)) : name;
  const candidates = [looksLikePath(expanded) ? path.resolve(expanded) : null, localModelPath ? path.resolve(localModelPath, expanded) : null];
  for (const c of candidates) if (c && fs.existsSync(c) && fs.statSync(c).isDirectory()) return c;
  return null;
}

/**
 * Pooling and query instruction as a sentence-transformers export declares them
 * (`1_Pooling/config.json`, `config_sentence_transformers.json`); mean pooling and no prefix
 * when the folder says nothing.
 */
export function sentenceTransformerHints(folder: string): { pooling: Pooling; queryPrefix: string } {
  let pooling: Pooling = 'mean';
  const pool = readJson(path.join(folder, '1_Pooling', 'config.json'));
  if (pool?.pooling_mode_cls_token) pooling = 'cls';
  else if (pool?.pooling_mode_lasttoken) pooling = 'last_token';
  const st = readJson(path.join(folder, 'config_sentence_transformers.json'));
  const prompts = st?.prompts as Record<string, unknown> | undefined;
  const queryPrefix = typeof prompts?.query === 'string' ? prompts.query : '';
  return { pooling, queryPrefix };
}

function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}
