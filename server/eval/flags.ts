// The evals' command-line flags, read by Node's own parser (`node:util` parseArgs): each eval
// declares its flags once, as data. Words that are not flags (the eval names run.ts reads) pass.
import { parseArgs } from 'node:util';

export type FlagSpec = Record<string, { type: 'boolean' | 'string' }>;
export type FlagValues = Record<string, string | boolean | undefined>;

/** `argv`'s flags by `spec`; an unknown flag or a missing value is an error that lists the known ones. */
export function readFlags(argv: string[], spec: FlagSpec): FlagValues {
  try {
    return parseArgs({ args: argv, options: spec, strict: true, allowPositionals: true }).values as FlagValues;
  } catch (e) {
    const known = Object.entries(spec).map(([name, o]) => `--${name}${o.type === 'string' ? ' V' : ''}`);
    throw new Error(`${(e as Error).message.split('. ')[0]} (known: ${known.join(' ')})`);
  }
}

/** A comma-separated list (`--only flask,rich`). */
export function listFlag(value: string | boolean | undefined): string[] | undefined {
  return typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
}

/** A positive integer flag, or undefined when absent. */
export function positiveFlag(name: string, value: string | boolean | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} needs a positive integer, got ${value}`);
  return n;
}

/** A number flag, or undefined when absent. */
export function numberFlag(name: string, value: string | boolean | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`--${name} needs a number, got ${value}`);
  return n;
}

/** A boolean flag: true when given, else undefined (absent from the options). */
export const onFlag = (value: string | boolean | undefined): true | undefined => (value === true ? true : undefined);

/** A string flag, or undefined when absent. */
export const stringFlag = (value: string | boolean | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** `o` without its undefined fields: options objects compare and print as the flags given. */
export function strip<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
