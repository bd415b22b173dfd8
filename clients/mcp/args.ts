// Validation of tool arguments, field by field, so that a model that guesses a parameter gets
// told which one and how to fix it (the SDK's low-level server does not check inputSchema).
import { ToolError } from './errors';

export type Args = Record<string, unknown>;

export function object(tool: string, raw: unknown, allowed: readonly string[]): Args {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw bad(tool, 'arguments must be an object');
  const args = raw as Args;
  for (const key of Object.keys(args)) {
    if (!allowed.includes(key)) {
      const takes = allowed.length ? `it takes ${allowed.join(', ')}` : 'it takes no arguments';
      throw bad(tool, `unknown argument '${key}'; ${takes}`);
    }
  }
  return args;
}

export function requiredString(tool: string, args: Args, key: string): string {
  const v = args[key];
  if (typeof v !== 'string' || !v.trim()) throw bad(tool, `'${key}' is required and must be a non-empty string`);
  return v;
}

export function optionalInt(tool: string, args: Args, key: string, min: number, max: number): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw bad(tool, `'${key}' must be an integer from ${min} to ${max}`);
  }
  return v;
}

export function optionalOneOf<T extends string>(tool: string, args: Args, key: string, choices: readonly T[]): T | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !choices.includes(v as T)) throw bad(tool, `'${key}' must be one of ${choices.join(', ')}`);
  return v as T;
}

export function optionalBool(tool: string, args: Args, key: string): boolean | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw bad(tool, `'${key}' must be true or false`);
  return v;
}

/** A string or an array of strings, each one of `choices` when given. */
export function optionalList<T extends string>(tool: string, args: Args, key: string, choices?: readonly T[]): T[] | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string' || !x)) throw bad(tool, `'${key}' must be a string or an array of strings`);
  if (choices) {
    const wrong = list.find((x) => !choices.includes(x as T));
    if (wrong !== undefined) throw bad(tool, `'${key}' has '${wrong}'; allowed: ${choices.join(', ')}`);
  }
  return list as T[];
}

function bad(tool: string, message: string): ToolError {
  return new ToolError(`${tool}: ${message}`, 'Fix the argument as the message says and call again (the tool schema lists every parameter).');
}
