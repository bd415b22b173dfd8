// Differential fuzz of live edits (issue 13, "what must be proven" 1). Engine A holds a file
// open as an editor buffer and receives random `didChange` batches; engine B reads the same
// text from disk after each batch (a fresh parse and extraction); every `coldEvery` batches a
// brand-new engine C indexes the workspace cold. Entities, edges (whole workspace),
// references and skeleton must be equal. Edits out of order must be refused and change
// nothing. A failure is shrunk to a minimal list of batches that still fails.
//
// Used by `npm test` (a few hundred to a thousand edits) and `npm run soak` (10,000).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position, TextChange } from '../src/engine/api';
import { Engine } from '../src/engine/engine';
import { mulberry32 } from './random';

/** One didChange: its content changes (applied in order), or an attempt with a stale version. */
export type Step = { changes: TextChange[] } | { stale: true };

export interface FuzzOptions {
  seed: number;
  /** Content changes to apply in all (stale attempts not counted). */
  edits: number;
  /** Folder copied as the workspace; `file` (relative) is the one edited. */
  fixture: string;
  file: string;
  /** A cold index (engine C) is compared every this many batches (0: never). */
  coldEvery?: number;
  /** Called after each batch (progress for the soak). */
  onBatch?: (done: number) => void;
  /** Called with the first mismatch, before the (slow) shrinking starts. */
  onMismatch?: (mismatch: string, steps: number) => void;
  /** Time the shrinking may take (default 60 s). */
  shrinkMs?: number;
  /** Fragments the edits insert (default PYTHON_SNIPPETS; TS_SNIPPETS for .ts/.tsx/.js files). */
  snippets?: readonly string[];
}

export interface FuzzReport {
  seed: number;
  edits: number;
  batches: number;
  staleRefused: number;
  coldChecks: number;
  wholeReplacements: number;
  seconds: number;
}

export interface FuzzFailure {
  seed: number;
  /** The first part that differed and how. */
  mismatch: string;
  /** The text the file started from, and the minimal steps that still fail from it. */
  base: string;
  steps: Step[];
}

export class FuzzMismatch extends Error {
  constructor(readonly failure: FuzzFailure) {
    super(`edit fuzz seed ${failure.seed}: ${failure.mismatch}\nminimal reproduction (${failure.steps.length} steps): ${JSON.stringify({ base: failure.base, steps: failure.steps })}`);
  }
}

// Fragments the edits insert: code, broken syntax, line breaks of every kind, non-ASCII text.
export const PYTHON_SNIPPETS: readonly string[] = [
  'def f(x):\n    return g(x)\n',
  'class A(B):\n    def m(self):\n        self.x = helper(1)\n',
  'import os\n',
  'from ..models import Order\n',
  'raise ValueError("bad")\n',
  'os.environ["DB_URL"]',
  'global COUNTER\n',
  'try:\n    charge(u)\nexcept KeyError:\n    pass\n',
  '\r\n',
  '\n',
  '    ',
  '\t',
  'print("héllo wörld")',
  '# 日本語のコメント\n',
  's = "😀🎉"\n',
  'name_中文 = 1\n',
  '𝒳 = "𝔘𝔫𝔦"\n',
  '(',
  ')',
  ':',
  'def (',
  '"""',
  '@decorator\n',
  'return pay.charge(user, order.total())\n',
  'O(user)',
  'x',
  '',
];

/** The same kinds of fragments in TypeScript / JavaScript (the JS ones are valid in both). */
export const TS_SNIPPETS: readonly string[] = [
  'function f(x: number): number {\n  return g(x);\n}\n',
  'export function h(a) {\n  return a.charge(1);\n}\n',
  'class A extends B {\n  m(): void {\n    this.x = helper(1);\n  }\n}\n',
  'export class C implements I {\n  constructor(private readonly p: P) {\n    super();\n  }\n}\n',
  "import { Order } from '../models';\n",
  "import * as os from 'os';\n",
  "const fs = require('fs');\n",
  'export default function () {}\n',
  'interface I {\n  m(x: string): void;\n}\n',
  'type T<K> = { [k in K]: T<K> };\n',
  'enum E { A = 1, B }\n',
  "throw new Error('bad');\n",
  'process.env.DB_URL',
  'try {\n  charge(u);\n} catch (e) {\n  log(e);\n}\n',
  'const arrow = async (x) => await x.pay();\n',
  'obj.method?.(1)!',
  '<Cart items={items} onPay={() => pay(1)} />',
  '`tpl ${x} ${`nested ${y}`}`',
  '/* ',
  ' */',
  '// 日本語のコメント\n',
  "const s = '😀🎉';\n",
  'let 𝒳 = "𝔘𝔫𝔦";\n',
  'const naïve_名前 = 1;\n',
  '\r\n',
  '\n',
  '  ',
  '\t',
  '{',
  '}',
  '(',
  ')',
  ';',
  '=>',
  '@decorator()\n',
  'return pay.charge(user, order.total());\n',
  'new O(user)',
  'x',
  '',
];

const MAX_CHARS = 20_000;

/** Runs the fuzz; throws FuzzMismatch (already shrunk) on the first difference. */
export async function runEditFuzz(opts: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const r = mulberry32(opts.seed);
  const base = fs.readFileSync(path.join(opts.fixture, opts.file), 'utf8');
  const pair = await Pair.open(opts.fixture, opts.file, base);
  const steps: Step[] = [];
  const report: FuzzReport = { seed: opts.seed, edits: 0, batches: 0, staleRefused: 0, coldChecks: 0, wholeReplacements: 0, seconds: 0 };
  try {
    while (report.edits < opts.edits) {
      const step = randomStep(r, pair.ref, Math.min(8, opts.edits - report.edits), true, opts.snippets);
      steps.push(step);
      let mismatch = await pair.apply(step);
      if ('changes' in step) {
        report.edits += step.changes.length;
        report.wholeReplacements += step.changes.filter((c) => !('range' in c)).length;
      } else report.staleRefused++;
      report.batches++;
      if (!mismatch && opts.coldEvery && report.batches % opts.coldEvery === 0) {
        mismatch = await pair.compareCold();
        report.coldChecks++;
      }
      if (mismatch) {
        opts.onMismatch?.(mismatch, steps.length);
        await pair.close();
        throw new FuzzMismatch(await shrink(opts, base, steps, mismatch));
      }
      opts.onBatch?.(report.edits);
    }
  } finally {
    await pair.close();
  }
  report.seconds = Math.round(performance.now() - started) / 1000;
  return report;
}

/** Replays steps from `base` on fresh engines; the first mismatch, or null. */
export async function replaySteps(fixture: string, file: string, base: string, steps: Step[]): Promise<string | null> {
  const pair = await Pair.open(fixture, file, base);
  try {
    for (const s of steps) {
      const m = await pair.apply(s);
      if (m) return m;
    }
    return await pair.compareCold();
  } finally {
    await pair.close();
  }
}

/**
 * Delta debugging within a time budget: drops chunks of steps (halves, quarters, ... single
 * steps) while the replay still fails, then single changes inside the steps left.
 */
async function shrink(opts: FuzzOptions, base: string, steps: Step[], mismatch: string): Promise<FuzzFailure> {
  const deadline = Date.now() + (opts.shrinkMs ?? 60_000);
  let best = steps;
  const attempt = async (candidate: Step[]): Promise<boolean> => {
    if (Date.now() > deadline) return false;
    const m = await replaySteps(opts.fixture, opts.file, base, candidate);
    if (m) [best, mismatch] = [candidate, m];
    return !!m;
  };
  for (let size = Math.max(1, best.length >> 1); size >= 1 && Date.now() < deadline; size >>= 1) {
    for (let at = 0; at < best.length && Date.now() < deadline; ) {
      if (!(await attempt([...best.slice(0, at), ...best.slice(at + size)]))) at += size;
    }
  }
  for (let i = 0; i < best.length && Date.now() < deadline; i++) {
    const s = best[i];
    if (!('changes' in s)) continue;
    for (let c = s.changes.length - 1; c >= 0 && Date.now() < deadline; c--) {
      const cur = best[i] as { changes: TextChange[] };
      if (cur.changes.length <= 1) break;
      await attempt(best.map((x, k) => (k === i ? { changes: cur.changes.filter((_, j) => j !== c) } : x)));
    }
  }
  return { seed: opts.seed, mismatch, base, steps: best };
}

/** One random didChange of `ref` with at most `max` changes (or, rarely, a stale version). */
export function randomStep(r: () => number, ref: TextDocument, max: number, stale = true, snippets: readonly string[] = PYTHON_SNIPPETS): Step {
  if (stale && r() < 0.04) return { stale: true };
  const n = 1 + Math.floor(r() * max);
  const changes: TextChange[] = [];
  let doc = ref;
  for (let i = 0; i < n; i++) {
    const c = randomChange(r, doc, snippets);
    changes.push(c);
    doc = TextDocument.update(TextDocument.create(doc.uri, 'python', 0, doc.getText()), [c], 1);
  }
  return { changes };
}

function randomChange(r: () => number, doc: TextDocument, snippets: readonly string[]): TextChange {
  const text = doc.getText();
  const pick = () => snippets[Math.floor(r() * snippets.length)];
  if (text.length > MAX_CHARS || r() < 0.02) {
    // Whole-buffer replacement: a few snippets, sometimes with CRLF line breaks throughout.
    let t = Array.from({ length: 1 + Math.floor(r() * 6) }, pick).join('');
    if (r() < 0.3) t = t.replace(/\r?\n/g, '\r\n');
    return { text: t };
  }
  const roll = r();
  const start = snap(text, Math.floor(r() * (text.length + 1)));
  let end = start;
  if (roll < 0.35) end = start; // insert
  else if (roll < 0.6) end = snap(text, Math.min(text.length, start + Math.floor(r() * 12))); // short delete/replace
  else end = snap(text, Math.min(text.length, start + Math.floor(r() * 300))); // across lines
  const inserted = roll >= 0.35 && roll < 0.5 ? '' : Array.from({ length: 1 + Math.floor(r() * 2) }, pick).join('');
  return { range: { start: doc.positionAt(start), end: doc.positionAt(end) }, text: inserted };
}

/** Moves an offset off the middle of a surrogate pair or a `\r\n` (no editor can put it there). */
function snap(text: string, o: number): number {
  const prev = text.charCodeAt(o - 1);
  const next = text.charCodeAt(o);
  if (prev >= 0xd800 && prev <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) return o - 1;
  if (prev === 13 && next === 10) return o - 1;
  return o;
}

/** Engine A (the buffer), engine B (the disk), the reference text, and the cold comparison. */
class Pair {
  private version = 1;

  private constructor(
    private readonly rootA: string,
    private readonly rootB: string,
    private readonly file: string,
    private readonly a: Engine,
    private readonly b: Engine,
    public ref: TextDocument,
  ) {}

  static async open(fixture: string, file: string, base: string): Promise<Pair> {
    const rootA = copy(fixture);
    const rootB = copy(fixture);
    fs.writeFileSync(path.join(rootB, file), base);
    const open = async (root: string) => {
      const e = await Engine.open({ root, dbPath: ':memory:', workers: 0, embeddings: { model: 'none' } });
      await e.indexWorkspace();
      return e;
    };
    const a = await open(rootA);
    const b = await open(rootB);
    a.openDocument(file, base, 1);
    return new Pair(rootA, rootB, file, a, b, TextDocument.create('file:///fuzz.py', 'python', 1, base));
  }

  /** Applies one step to A (and the text to B); the first difference, or null. */
  async apply(step: Step): Promise<string | null> {
    if (!('changes' in step)) {
      const before = this.a.fileText(this.file);
      try {
        this.a.changeDocument(this.file, [{ text: 'stale' }], this.version - 1);
        return `a stale version (${this.version - 1} after ${this.version}) was applied`;
      } catch (e) {
        if (!/not newer/.test((e as Error).message)) return `a stale version failed unclearly: ${(e as Error).message}`;
      }
      return this.a.fileText(this.file) === before ? null : 'a refused stale edit changed the text';
    }
    this.version++;
    this.ref = TextDocument.update(this.ref, step.changes as Array<{ range: { start: Position; end: Position }; text: string } | { text: string }>, this.version);
    try {
      this.a.changeDocument(this.file, step.changes, this.version);
    } catch (e) {
      return `the edit was not applied: ${(e as Error).message}`;
    }
    const text = this.ref.getText();
    if (this.a.fileText(this.file) !== text) return 'buffer text differs from the reference text (vscode-languageserver-textdocument)';
    fs.writeFileSync(path.join(this.rootB, this.file), text);
    await this.b.syncFiles([{ path: this.file, type: 'changed' }]);
    return compare(snapshot(this.a, this.file), snapshot(this.b, this.file), 'incremental vs disk');
  }

  async compareCold(): Promise<string | null> {
    const c = await Engine.open({ root: this.rootB, dbPath: ':memory:', workers: 0, embeddings: { model: 'none' } });
    try {
      await c.indexWorkspace();
      return compare(snapshot(this.a, this.file), snapshot(c, this.file), 'incremental vs cold index');
    } finally {
      await c.close();
    }
  }

  async close(): Promise<void> {
    await this.a.close();
    await this.b.close();
    fs.rmSync(this.rootA, { recursive: true, force: true });
    fs.rmSync(this.rootB, { recursive: true, force: true });
  }
}

function copy(fixture: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-fuzz-'));
  fs.cpSync(fixture, root, { recursive: true, filter: (src) => path.basename(src) !== '.nsccn' });
  return root;
}

interface Snapshot {
  entities: string[];
  refs: string[];
  edges: string[];
  skeleton: string;
}

function snapshot(e: Engine, file: string): Snapshot {
  const entities = e.fileEntities(file).map((x) => JSON.stringify(x)).sort();
  const refs = e.store
    .refsOfFile(file)
    .map(({ rid: _rid, fid: _fid, ...rest }) => JSON.stringify(rest))
    .sort();
  const edges: string[] = [];
  for (const f of e.store.files()) {
    for (const ent of e.fileEntities(f.path)) for (const x of e.outgoing(ent.id)) edges.push(JSON.stringify(x));
  }
  edges.sort();
  let skeleton: string;
  try {
    skeleton = JSON.stringify(e.skeleton(file));
  } catch (err) {
    skeleton = `error: ${(err as Error).message}`;
  }
  return { entities, refs, edges, skeleton };
}

function compare(a: Snapshot, b: Snapshot, what: string): string | null {
  for (const part of ['entities', 'refs', 'edges'] as const) {
    const only = (x: string[], y: string[]) => {
      const ys = new Set(y);
      return x.filter((v) => !ys.has(v));
    };
    const extra = only(a[part], b[part]);
    const missing = only(b[part], a[part]);
    if (extra.length || missing.length || a[part].length !== b[part].length) {
      return `${what}: ${part} differ; only incremental: ${extra.slice(0, 3).join(' | ') || '-'}; only fresh: ${missing.slice(0, 3).join(' | ') || '-'}`;
    }
  }
  if (a.skeleton !== b.skeleton) return `${what}: skeleton differs: ${a.skeleton.slice(0, 300)} vs ${b.skeleton.slice(0, 300)}`;
  return null;
}
