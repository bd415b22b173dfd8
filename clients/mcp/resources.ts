// Resources: the skeleton of every indexed file, `nsccn://skeleton/{path}` (a template, and
// listed for the files the index holds). The path is workspace-relative; slashes may be kept
// or percent-encoded.
import { Methods, type FilesResponse, type SkeletonResponse } from '../../protocol';
import type { Root } from './confine';
import { renderSkeleton } from './render';

export const SKELETON_SCHEME = 'nsccn://skeleton/';
export const SKELETON_TEMPLATE = `${SKELETON_SCHEME}{path}`;
/** Resources per resources/list page. */
export const RESOURCE_PAGE = 1000;

interface Caller {
  call<R>(method: string, params: unknown): Promise<R>;
}

export const skeletonTemplate = {
  uriTemplate: SKELETON_TEMPLATE,
  name: 'skeleton',
  title: 'File skeleton',
  description: 'Signatures, docstrings and class attributes of a file, bodies elided; {path} is relative to the workspace root.',
  mimeType: 'text/plain',
};

export function skeletonUri(rel: string): string {
  return SKELETON_SCHEME + rel.split('/').map(encodeURIComponent).join('/');
}

export async function listSkeletons(ctx: Caller, cursor?: string) {
  const { files } = await ctx.call<FilesResponse>(Methods.files, {});
  const start = cursor ? Number(cursor) : 0;
  if (!Number.isInteger(start) || start < 0) throw new Error(`bad cursor '${cursor}'; list again without a cursor`);
  const page = files.slice(start, start + RESOURCE_PAGE);
  const resources = page.map((f) => ({ uri: skeletonUri(f.file), name: f.file, title: `skeleton of ${f.file}`, mimeType: 'text/plain' }));
  const next = start + RESOURCE_PAGE < files.length ? { nextCursor: String(start + RESOURCE_PAGE) } : {};
  return { resources, ...next };
}

/** The relative path a skeleton URI names, or null when it is not one. */
export function skeletonPath(uri: string): string | null {
  if (!uri.startsWith(SKELETON_SCHEME)) return null;
  const rest = uri.slice(SKELETON_SCHEME.length);
  try {
    const p = decodeURIComponent(rest);
    return p ? p : null;
  } catch {
    return null;
  }
}

export async function readSkeleton(ctx: Caller, root: Root, uri: string) {
  const rel = skeletonPath(uri);
  if (rel === null) throw new Error(`unknown resource '${uri}'; skeletons are ${SKELETON_TEMPLATE}`);
  const file = root.file(rel);
  const s = await ctx.call<SkeletonResponse>(Methods.skeleton, { uri: file.uri });
  return { contents: [{ uri, mimeType: 'text/plain', text: renderSkeleton(s) }] };
}
