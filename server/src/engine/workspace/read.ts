// Reading one source file: bytes → text, or a reason it is not indexed. Binary and non-UTF-8
// files are refused here, never handed to a parser.
import * as fs from 'node:fs';
import { createHash } from 'node:crypto';

export type ReadResult =
  | { ok: true; text: string; hash: string; size: number; mtimeMs: number }
  | { ok: false; reason: string };

const decoder = new TextDecoder('utf-8', { fatal: true });

export function hashBytes(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function readSource(absPath: string, maxBytes: number): ReadResult {
  let bytes: Buffer;
  let st: fs.Stats;
  try {
    st = fs.statSync(absPath);
    if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
    if (st.size > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes (${st.size})` };
    bytes = fs.readFileSync(absPath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'deleted' : `unreadable (${code ?? 'error'})` };
  }
  return decodeSource(bytes, st.mtimeMs);
}

export function decodeSource(bytes: Buffer, mtimeMs: number): ReadResult {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return { ok: false, reason: 'binary file (contains NUL bytes)' };
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, reason: 'not valid UTF-8' };
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { ok: true, text, hash: hashBytes(bytes), size: bytes.length, mtimeMs };
}
