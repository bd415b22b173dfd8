// `changes`: the entities whose lines a diff touches, and their blast radius. Both versions of
// each file are extracted (the old one from git, the new one from the disk or the git index), so
// line numbers always meet the version they came from; an entity is matched across the two by
// kind and qualified name, which survives a file rename. The blast radius is read from the
// current graph: callers up to a depth, what the entity mutates and reads, and the tests (code
// in test files) that reach it.
import { testMatcher } from '../testcode';
import type { ChangedEntity, ChangedFile, ChangeKind, ChangesParams, ChangesResponse, EntityKind } from '../../../../protocol';
import { CHANGES_DEFAULT_DEPTH, CHANGES_TEST_DEPTH, ErrorCodes, TRACE_MAX_DEPTH } from '../../../../protocol';
import { EngineError } from '../errors';
import type { ExtractedEntity } from '../languages/types';
import { lastRow } from '../spans';
import type { Store } from '../store/store';
import { blob, checkRepo, diff, diffModeOf, sidesOf, untracked, type FileDiff } from './git';

/** Where tests live, by the conventions of the languages NSCCN reads (overridable by config). */
const SHOWN_KINDS = new Set(['function', 'method', 'class', 'module']);

export interface ChangesContext {
  root: string;
  store: Store;
  /** Entities of a file's text, or null when NSCCN does not read that language. */
  extract(file: string, text: string): ExtractedEntity[] | null;
  /** A workspace file as the engine sees it now (open buffer or disk). */
  currentText(file: string): string | null;
  testGlobs?: string[];
}

interface Touched {
  entity: ExtractedEntity;
  change: ChangeKind;
  file: string;
  lines: Set<number>;
}

export async function changes(ctx: ChangesContext, params: ChangesParams): Promise<ChangesResponse> {
  const mode = diffModeOf(params);
  const depth = params.depth ?? CHANGES_DEFAULT_DEPTH;
  if (!Number.isInteger(depth) || depth < 1 || depth > TRACE_MAX_DEPTH) {
    throw new EngineError(ErrorCodes.InvalidParams, `depth must be an integer from 1 to ${TRACE_MAX_DEPTH}, got ${JSON.stringify(params.depth)}`);
  }
  await checkRepo(ctx.root, mode);
  const sides = sidesOf(mode);
  const diffs = await diff(ctx.root, mode);
  if (sides.untracked) {
    const known = new Set(diffs.map((d) => d.newPath));
    for (const f of await untracked(ctx.root)) if (!known.has(f)) diffs.push({ oldPath: null, newPath: f, oldLines: [], newLines: [] });
  }
  const files: ChangedFile[] = [];
  const touched = new Map<string, Touched>();
  for (const d of diffs) {
    files.push(fileStatus(d));
    const oldText = d.oldPath ? await blob(ctx.root, sides.old, d.oldPath) : null;
    const newText = d.newPath ? (sides.new === null ? ctx.currentText(d.newPath) : await blob(ctx.root, sides.new, d.newPath)) : null;
    const before = d.oldPath && oldText !== null ? ctx.extract(d.oldPath, oldText) : [];
    const after = d.newPath && newText !== null ? ctx.extract(d.newPath, newText) : [];
    if (before === null || after === null) continue; // not a language NSCCN reads
    const key = (e: ExtractedEntity) => `${e.kind}\0${e.qname}`;
    const beforeKeys = new Set(before.map(key));
    const afterByKey = new Map(after.map((e) => [key(e), e]));
    const note = (e: ExtractedEntity, change: ChangeKind, file: string, line: number | null) => {
      const t = touched.get(e.id) ?? { entity: e, change, file, lines: new Set<number>() };
      if (line !== null) t.lines.add(line);
      touched.set(e.id, t);
    };
    // A new file: every entity in it is added, whether or not a hunk names its lines.
    const whole = d.oldPath === null ? after.filter((e) => e.kind !== 'module').map((e) => e.span.start.row + 1) : [];
    // Blank lines between definitions belong to no one worth reporting.
    const blank = (text: string | null) => {
      const rows = text?.split(/\r\n|\r|\n/) ?? [];
      return (line: number) => !rows[line - 1]?.trim();
    };
    const blankNew = blank(newText);
    const blankOld = blank(oldText);
    for (const line of [...d.newLines.filter((l) => !blankNew(l)), ...whole]) {
      const e = innermost(after, line);
      if (e) note(e, beforeKeys.has(key(e)) ? 'modified' : 'added', d.newPath!, line);
    }
    for (const line of d.oldLines.filter((l) => !blankOld(l))) {
      const e = innermost(before, line);
      if (!e) continue;
      const now = afterByKey.get(key(e));
      if (now) note(now, 'modified', d.newPath!, null); // only lines removed from it: none to show now
      else note(e, 'deleted', d.oldPath!, line);
    }
  }
  const isTest = testMatcher(ctx.testGlobs);
  const entities = [...touched.values()].map((t) => describe(ctx.store, t, depth, isTest));
  entities.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || (a.id < b.id ? -1 : 1)));
  files.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return { base: sides.label, files, entities };
}

function fileStatus(d: FileDiff): ChangedFile {
  if (d.oldPath === null) return { file: d.newPath!, status: 'added' };
  if (d.newPath === null) return { file: d.oldPath, status: 'deleted' };
  if (d.oldPath !== d.newPath) return { file: d.newPath, oldFile: d.oldPath, status: 'renamed' };
  return { file: d.newPath, status: 'modified' };
}

/** The innermost function, method or class whose lines hold `line`, else the module. */
function innermost(entities: ExtractedEntity[], line: number): ExtractedEntity | null {
  let best: ExtractedEntity | null = null;
  const row = line - 1;
  for (const e of entities) {
    if (!SHOWN_KINDS.has(e.kind)) continue;
    const inside = e.kind === 'module' || (e.span.start.row <= row && row <= lastRow(e.span));
    if (!inside) continue;
    if (!best || best.kind === 'module' || (e.kind !== 'module' && e.span.start.row >= best.span.start.row)) best = e;
  }
  return best;
}

function describe(store: Store, t: Touched, depth: number, isTest: (p: string) => boolean): ChangedEntity {
  const e = t.entity;
  const base = {
    id: e.id,
    kind: e.kind as EntityKind,
    change: t.change,
    file: t.file,
    line: t.change === 'deleted' ? [...t.lines][0] : e.span.start.row + 1,
    signature: e.signature,
    lines: [...t.lines].sort((a, b) => a - b),
  };
  if (t.change === 'deleted' || !store.entity(e.id)) {
    // Gone from the graph: the code that still calls or imports it by name is what breaks.
    const namers = new Set(store.incomingByName(e.name).filter((r) => r.relation === 'CALLS' || r.relation === 'IMPORTS').map((r) => r.source));
    const callers = [...namers].sort();
    return { ...base, callers, mutates: [], readsConfig: [], tests: callers.filter((c) => isTest(store.entity(c)?.path ?? '')) };
  }
  const out = store.outgoing(e.id);
  const targets = (rel: string) => [...new Set(out.flatMap((r) => (r.relation === rel && r.edge_target ? [r.edge_target] : [])))].sort();
  const up = callersUpTo(store, e.id, Math.max(depth, CHANGES_TEST_DEPTH));
  return {
    ...base,
    callers: up.filter((c) => c.hop <= depth).map((c) => c.id),
    mutates: targets('MUTATES'),
    readsConfig: targets('READS_CONFIG'),
    tests: up.filter((c) => isTest(store.entity(c.id)?.path ?? '')).map((c) => c.id).sort(),
  };
}

/** Callers breadth first, nearest first (ids sorted within a hop). */
function callersUpTo(store: Store, id: string, depth: number): Array<{ id: string; hop: number }> {
  const seen = new Set([id]);
  const out: Array<{ id: string; hop: number }> = [];
  let frontier = [id];
  for (let hop = 1; hop <= depth && frontier.length; hop++) {
    const next = new Set<string>();
    for (const n of frontier) for (const r of store.incoming(n)) if (r.relation === 'CALLS' && !seen.has(r.source)) next.add(r.source);
    const level = [...next].sort();
    level.forEach((c) => seen.add(c));
    out.push(...level.map((c) => ({ id: c, hop })));
    frontier = level;
  }
  return out;
}
