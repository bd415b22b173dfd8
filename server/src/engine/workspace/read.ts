// Reading one source file: bytes → text, or a reason it is not indexed. Binary files and text
// that does not decode are refused here, never handed to a parser. Every read is confined to
// the workspace at the moment it happens (confine.ts).
import * as fs from 'node:fs';
import { nodeCrypto } from '../digest';
import { confine } from './confine';

export type ReadResult =
  | { ok: true; text: string; hash: string; size: number; mtimeMs: number }
  /** `byContent`: refused for what the bytes are (binary, not decodable): the same bytes are refused again. */
  | { ok: false; reason: string; deleted?: boolean; byContent?: true };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Python's names for Latin-1 (WHATWG maps `latin1` to windows-1252, which differs in 0x80–0x9F). */
const LATIN1 = new Set(['latin-1', 'latin1', 'iso-8859-1', 'iso8859-1', 'iso_8859_1', 'l1', 'cp819', 'latin']);

/** Python's names for cp1252, decoded by hand: Node's TextDecoder drops 0x80–0x9F for it. */
const CP1252 = new Set(['cp1252', 'windows-1252', 'windows1252']);
// Bytes 0x80–0x9F in cp1252 (undefined ones, which Python refuses, are 0).
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
  0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

export function hashBytes(bytes: Uint8Array | string): string {
  return nodeCrypto().createHash('sha256').update(bytes).digest('hex');
}

/** Reads workspace file `rel` if it is still inside the root, a regular file and small enough. */
export function readSource(root: string, realRoot: string, rel: string, maxBytes: number, cookie?: RegExp): ReadResult {
  const where = confine(root, realRoot, rel);
  if (!where.ok) return { ok: false, reason: where.reason, deleted: where.deleted };
  let bytes: Buffer;
  let st: fs.Stats;
  try {
    st = fs.statSync(where.real);
    if (!st.isFile()) return { ok: false, reason: 'not a regular file' };
    if (st.size > maxBytes) return { ok: false, reason: `larger than ${maxBytes} bytes (${st.size})` };
    bytes = fs.readFileSync(where.real);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' ? 'deleted' : `unreadable (${code ?? 'error'})`, deleted: code === 'ENOENT' };
  }
  return decodeSource(bytes, st.mtimeMs, cookie);
}

export function decodeSource(bytes: Buffer, mtimeMs: number, cookie?: RegExp): ReadResult {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) return { ok: false, reason: 'binary file (contains NUL bytes)', byContent: true };
  const declared = cookie ? declaredEncoding(bytes, cookie) : null;
  const name = declared?.toLowerCase().replace(/_/g, '-');
  let text: string;
  if (name && LATIN1.has(name)) text = bytes.toString('latin1');
  else if (name && CP1252.has(name)) {
    const t = decodeCp1252(bytes);
    if (t === null) return { ok: false, reason: `not valid ${declared}`, byContent: true };
    text = t;
  } else {
    let decoder = utf8;
    if (declared && !/^utf-?8(-sig)?$/i.test(declared)) {
      try {
        decoder = new TextDecoder(declared.toLowerCase(), { fatal: true });
      } catch {
        return { ok: false, reason: `declares an encoding NSCCN cannot decode (${declared})`, byContent: true };
      }
    }
    try {
      text = decoder.decode(bytes);
    } catch {
      return { ok: false, reason: declared ? `not valid ${declared}` : 'not valid UTF-8', byContent: true };
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { ok: true, text, hash: hashBytes(bytes), size: bytes.length, mtimeMs };
}

function decodeCp1252(bytes: Buffer): string | null {
  const latin = bytes.toString('latin1');
  if (!/[\x80-\x9f]/.test(latin)) return latin;
  let out = '';
  for (let i = 0; i < latin.length; i++) {
    const c = latin.charCodeAt(i);
    if (c < 0x80 || c > 0x9f) out += latin[i];
    else if (CP1252_HIGH[c - 0x80]) out += String.fromCharCode(CP1252_HIGH[c - 0x80]);
    else return null;
  }
  return out;
}

/** The encoding a cookie on line 1 or 2 declares (read as ASCII, as the declaration must be). */
function declaredEncoding(bytes: Buffer, cookie: RegExp): string | null {
  const lines = bytes.subarray(0, 1024).toString('latin1').split(/\r\n|\r|\n/, 2);
  for (const line of lines) {
    const m = cookie.exec(line);
    if (m) return m[1];
    // PEP 263: the cookie may sit on line 2 only when line 1 is a comment or blank.
    if (!/^[ \t\f]*(#.*)?$/.test(line)) break;
  }
  return null;
}
