// The signals stream: what a bug report or traceback names exactly. Frames point at a function in
// a file (innermost first, the entity holding the line best of all), dotted names and code-like
// identifiers at entities of that name, quoted or raised messages at the bodies that spell them
// out. Silent when the query names nothing the workspace holds, so prose queries lose nothing.
import type { FtsIndex } from '../store/fts';
import type { EntityDbRow } from '../store/read-rows';
import { entitiesSpelled } from '../entity-names';
import type { Store } from '../store/store';
import { analyzeQuery, frameName, literalRuns, type Frame, type QuerySignals } from './query';
import type { SearchStream, StreamHit } from './types';

const CODE_KINDS = new Set(['function', 'method', 'class']);
/** A message is also held by a global built by code (`const ZodLiteral = $constructor("…", (inst) => { throw … })`). */
const MESSAGE_KINDS = new Set([...CODE_KINDS, 'global']);
/** A name held by more entities than this says little about which one is meant. */
const MAX_NAMESAKES = 25;

/** The workspace file a path in a report points at (a traceback's, or one named in the text): the longest path suffix the index holds. */
export function workspaceFile(store: Store, file: string): string | null {
  const parts = file.replace(/\\/g, '/').split('/').filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const candidate = parts.slice(i).join('/');
    if (store.file(candidate)) return candidate;
  }
  return null;
}

/**
 * What a traceback frame points at in the workspace: the entities of its function's name in its
 * file, and the innermost of them whose lines hold the frame's line (the frame's own code). A
 * frame that names no function (`<lambda>`, V8's `at /app/x.js:10:15`) is held by the innermost
 * function or class whose lines hold it.
 */
export function frameEntities(store: Store, f: Frame): { named: EntityDbRow[]; holder: EntityDbRow | null } | null {
  const file = workspaceFile(store, f.file);
  if (!file) return null;
  const name = frameName(f);
  const code = store.entitiesOfFile(file).filter((r) => r.path !== null && CODE_KINDS.has(r.kind));
  const named = name ? code.filter((r) => r.name === name) : [];
  const holding = (name ? named : code).filter((r) => r.sr !== null && r.er !== null && r.sr + 1 <= f.line && f.line <= r.er + 1);
  return { named, holder: holding.length ? holding[holding.length - 1] : null };
}

/** Points each kind of evidence gives (shared among its candidates: a unique match counts most). */
const POINTS = { frameLine: 10, frameName: 6, dotted: 6, message: 5, raiser: 4, identifier: 3, decay: 0.7 };
/** An exception class named in a report is what went wrong, rarely where: its raisers are. */
const ERROR_CLASS = 0.3;
const isErrorClass = (r: EntityDbRow) => r.kind === 'class' && /(Error|Exception|Warning)$/.test(r.name);

export class SignalStream implements SearchStream {
  readonly name = 'signals';

  constructor(
    private readonly store: Store,
    private readonly fts: FtsIndex,
    /** Test code: a test that quotes a message (`pytest.raises(match=…)`) does not make it less unique. */
    private readonly isTest: (path: string) => boolean = () => false,
  ) {}

  async search(query: string, k: number): Promise<StreamHit[]> {
    return this.searchSignals(analyzeQuery(query), k);
  }

  searchSignals(s: QuerySignals, k: number): StreamHit[] {
    if (s.identifier) return [];
    const score = new Map<number, number>();
    const add = (rows: EntityDbRow[], points: number, kinds = CODE_KINDS) => {
      const code = rows.filter((r) => r.path !== null && kinds.has(r.kind));
      if (!code.length || code.length > MAX_NAMESAKES) return;
      const each = points / Math.sqrt(code.length);
      for (const r of code) score.set(r.eid, (score.get(r.eid) ?? 0) + each * (isErrorClass(r) ? ERROR_CLASS : 1));
    };

    s.frames.forEach((f, i) => {
      const found = frameEntities(this.store, f);
      if (!found) return;
      const decay = Math.pow(POINTS.decay, i);
      if (found.holder) add([found.holder], POINTS.frameLine * decay);
      else add(found.named, POINTS.frameName * decay);
    });
    for (const d of s.dotted) add(this.dottedMatches(d), POINTS.dotted);
    for (const m of s.messages) {
      for (const run of literalRuns(m)) {
        const hits = this.fts.search(`"${run.replace(/"/g, '""')}"`, MAX_NAMESAKES + 1).map((h) => this.store.entityByEid(h.eid)).filter((r): r is EntityDbRow => !!r);
        add(hits, POINTS.message, MESSAGE_KINDS);
      }
    }
    for (const id of s.identifiers) add(this.store.entitiesNamed(id), POINTS.identifier);
    for (const name of s.exceptions) add(this.raisers(name), POINTS.raiser);
    return [...score].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k).map(([eid, points]) => ({ eid, score: points }));
  }

  /**
   * What a report points at surely enough to go first: the functions holding its traceback's
   * lines (innermost first), then the one entity whose string literals spell out a message it
   * quotes (a message two entities spell out names neither; tests that quote it do not count).
   */
  leaders(s: QuerySignals): number[] {
    const out = new Set<number>();
    for (const f of s.frames) {
      const holder = frameEntities(this.store, f)?.holder;
      if (holder) out.add(holder.eid);
    }
    for (const m of s.messages) {
      for (const run of literalRuns(m)) {
        const hits = this.fts.search(`literals : "${run.replace(/"/g, '""')}"`, MAX_NAMESAKES + 1);
        if (hits.length > MAX_NAMESAKES) continue;
        const rows = [...this.store.entitiesByEid(hits.map((h) => h.eid)).values()].filter((r) => r.path !== null && !this.isTest(r.path));
        if (rows.length === 1 && MESSAGE_KINDS.has(rows[0].kind)) out.add(rows[0].eid);
      }
    }
    return [...out];
  }

  /**
   * The code that raises the workspace's exception classes of this name, uncaught where it
   * raises: an error a report quotes was raised there. A builtin (`ValueError`) has no class in
   * the workspace and so no raisers here; one raised from everywhere says nothing (MAX_NAMESAKES).
   */
  private raisers(name: string): EntityDbRow[] {
    const eids = new Set<number>();
    for (const cls of this.store.entitiesNamed(name)) {
      if (cls.kind !== 'class' || cls.path === null) continue;
      // One past the cap is enough to know the name says nothing (`add` skips it).
      for (const eid of this.store.raisersOf(cls.eid, MAX_NAMESAKES + 1)) eids.add(eid);
      if (eids.size > MAX_NAMESAKES) break;
    }
    return [...this.store.entitiesByEid([...eids]).values()];
  }

  /**
   * Entities a dotted name can mean: those it spells with their module path
   * (`requests.sessions.Session.send`, found among hundreds of `send`); `A.b` is method b of any
   * A, or b in a module path ending in A.
   */
  private dottedMatches(dotted: string): EntityDbRow[] {
    const dot = dotted.lastIndexOf('.');
    const [owner, name] = [dotted.slice(0, dot), dotted.slice(dot + 1)];
    const ownerPath = owner.replace(/\./g, '/');
    const loose = this.store.entitiesNamed(name).filter((r) => {
      if (r.qname.endsWith(dotted) || r.qname.endsWith(`${owner.slice(owner.lastIndexOf('.') + 1)}.${name}`)) return true;
      const mod = (r.path ?? '').replace(/\.[^./]+$/, '').replace(/\/__init__$/, '');
      return r.qname === name && (mod === ownerPath || mod.endsWith(`/${ownerPath}`));
    });
    const out = entitiesSpelled(this.store, dotted).spelled.map((s) => s.row);
    const seen = new Set(out.map((r) => r.eid));
    for (const r of loose) if (!seen.has(r.eid)) out.push(r);
    return out;
  }
}
