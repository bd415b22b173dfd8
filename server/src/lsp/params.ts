// Validation of what clients send. JSON-RPC gives us `unknown`; every handler reads its params
// through these helpers so a malformed request gets InvalidParams naming the bad field, never a
// TypeError from deep inside a handler.
import type { Position } from '../../../protocol';
import { invalidParams } from './errors';

export type Obj = Record<string, unknown>;

export function object(method: string, value: unknown, what = 'params'): Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidParams(method, `${what} must be an object`);
  }
  return value as Obj;
}

export function string(method: string, obj: Obj, key: string): string {
  const v = obj[key];
  if (typeof v !== 'string' || v.length === 0) throw invalidParams(method, `'${key}' must be a non-empty string`);
  return v;
}

export function optionalString(method: string, obj: Obj, key: string): string | undefined {
  return obj[key] === undefined || obj[key] === null ? undefined : string(method, obj, key);
}

export function optionalInt(method: string, obj: Obj, key: string, min: number, max: number): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalidParams(method, `'${key}' must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
  }
  return v;
}

export function optionalBool(method: string, obj: Obj, key: string): boolean | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw invalidParams(method, `'${key}' must be true or false (got ${JSON.stringify(v)})`);
  return v;
}

/** An optional array of strings, each one of `allowed` when given. */
export function optionalStrings<T extends string>(
  method: string,
  obj: Obj,
  key: string,
  allowed?: readonly T[],
): T[] | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw invalidParams(method, `'${key}' must be an array of strings`);
  }
  if (allowed) {
    const bad = v.filter((x) => !allowed.includes(x as T));
    if (bad.length) throw invalidParams(method, `'${key}' has unknown values ${JSON.stringify(bad)}; allowed: ${allowed.join(', ')}`);
  }
  return v as T[];
}

export function oneOf<T extends string>(method: string, obj: Obj, key: string, allowed: readonly T[]): T {
  const v = obj[key];
  if (typeof v !== 'string' || !allowed.includes(v as T)) {
    throw invalidParams(method, `'${key}' must be one of ${allowed.join(', ')} (got ${JSON.stringify(v)})`);
  }
  return v as T;
}

export function position(method: string, value: unknown, key = 'position'): Position {
  const p = object(method, value, `'${key}'`);
  const ok = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0;
  if (!ok(p.line) || !ok(p.character)) {
    throw invalidParams(method, `'${key}' must be {line, character} with non-negative integers (got ${JSON.stringify(value)})`);
  }
  return { line: p.line as number, character: p.character as number };
}

/** `params.textDocument.uri` of the standard text-document requests. */
export function textDocumentUri(method: string, params: unknown): string {
  const doc = object(method, object(method, params).textDocument, "'textDocument'");
  return string(method, doc, 'uri');
}

/** `params.textDocument.uri` and `params.position` of the standard position requests. */
export function textDocumentPosition(method: string, params: unknown): { uri: string; position: Position } {
  return { uri: textDocumentUri(method, params), position: position(method, object(method, params).position) };
}
