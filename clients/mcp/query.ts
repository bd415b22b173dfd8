// search_and_rank's query handling: a plain query goes to nsccn/search as is; a traceback
// (Python or JavaScript frames) puts its frames' functions first, innermost frame first,
// because the function where it failed is the likeliest place to look. The server already
// leads with the functions holding the frames' lines; a frame it did not place (its file known
// by another path, a name it holds elsewhere) is looked up by name in a file of its base name.
import * as path from 'node:path';
import { Methods, SEARCH_MAX_QUERY_CHARS, type EntityKind, type SearchParams, type SearchResponse, type SearchResult } from '../../protocol';
import { frameName, readablePart, tracebackFrames as framesOf } from '../../server/src/engine';

export interface Frame {
  file: string;
  line: number;
  name: string;
}

export type RankedResult = SearchResult & { via?: string };

/** What a frame names: never the module (`<module>` frames are dropped). */
const FRAME_KINDS: EntityKind[] = ['function', 'method', 'class'];
/** Frames looked up at most (the innermost ones). */
const MAX_FRAMES = 5;

/** The frames of a traceback in `text` that name a function, innermost first (the engine reads them as search does); [] when there is none. */
export function tracebackFrames(text: string): Frame[] {
  return framesOf(text)
    .filter((f) => frameName(f) !== null)
    .map((f) => ({ file: f.file, line: f.line, name: f.func }));
}

interface Caller {
  call<R>(method: string, params: unknown): Promise<R>;
  /**
   * MCP progress, one step per frame (only when the caller owns the progress token). No final
   * step: the answer itself says it is done, and the SDK's client drops a notification that
   * arrives together with the answer.
   */
  progress?(done: number, total: number, message: string): Promise<void>;
}

export async function searchQuery(ctx: Caller, params: SearchParams & { limit: number }): Promise<{ results: RankedResult[]; streams: string[]; queryCut?: SearchResponse['queryCut'] }> {
  // The part of a long query the server reads: the frames are looked for there too.
  const frames = dedupeFrames(tracebackFrames(readablePart(params.query, SEARCH_MAX_QUERY_CHARS))).slice(0, MAX_FRAMES);
  const text = await ctx.call<SearchResponse>(Methods.search, params);
  if (!frames.length) return text;
  const fromFrames: RankedResult[] = [];
  for (const [i, f] of frames.entries()) {
    const short = f.name.split('.').pop()!;
    const base = path.basename(f.file.replace(/\\/g, '/'));
    const holds = (r: SearchResult) => r.name === short && path.basename(r.file) === base && r.line <= f.line && f.line <= r.endLine;
    // The server puts the functions holding a traceback's lines first: a frame it answered needs no search of its own.
    const answered = text.results.find(holds);
    if (answered) {
      fromFrames.push({ ...answered, via: `traceback ${base}:${f.line}` });
      continue;
    }
    await ctx.progress?.(i + 1, frames.length + 1, `looking up frame ${f.name}`);
    const res = await ctx.call<SearchResponse>(Methods.search, {
      query: short,
      limit: 5,
      paths: params.paths ?? [`**/${base}`],
      kinds: params.kinds ?? FRAME_KINDS,
    });
    const named = res.results.filter((r) => r.name === short);
    const hit = named.find((r) => r.line <= f.line && f.line <= r.endLine) ?? named[0];
    if (hit) fromFrames.push({ ...hit, via: `traceback ${base}:${f.line}` });
  }
  const seen = new Set<string>();
  const merged = [...fromFrames, ...text.results].filter((r) => !seen.has(r.id) && (seen.add(r.id), true));
  return { results: merged.slice(0, params.limit), streams: text.streams, ...(text.queryCut ? { queryCut: text.queryCut } : {}) };
}

function dedupeFrames(frames: Frame[]): Frame[] {
  const seen = new Set<string>();
  return frames.filter((f) => {
    const key = `${f.file}:${f.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
