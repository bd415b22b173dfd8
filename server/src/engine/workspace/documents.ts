// Editor buffers. While a file is open its buffer, not the disk, is the truth: every change is
// applied to the tree incrementally (tree.edit + reparse with the old tree), the file is
// re-extracted from that tree and written through the same path as a file from disk.
import { createHash } from 'node:crypto';
import type { TextChange } from '../api';
import type { Graph } from '../graph/graph';
import { languageForPath } from '../languages/registry';
import type { ExtractionReuse, LanguageSupport } from '../languages/types';
import { LiveDocument } from '../parse/document';
import type { Parsers } from '../parse/parsers';
import type { Store } from '../store/store';
import { applyExtraction } from './apply';

interface Open {
  doc: LiveDocument;
  lang: LanguageSupport;
  /** The extractor's state from the previous version of this buffer. */
  reuse: ExtractionReuse;
}

export class OpenDocuments {
  private readonly docs = new Map<string, Open>();

  constructor(
    private readonly store: Store,
    private readonly graph: Graph,
    private readonly parsers: Parsers,
  ) {}

  paths(): ReadonlySet<string> {
    return new Set(this.docs.keys());
  }

  text(path: string): string | undefined {
    return this.docs.get(path)?.doc.text;
  }

  get(path: string): LiveDocument | undefined {
    return this.docs.get(path)?.doc;
  }

  /** Returns false for files no language handles (they are tracked by nobody). */
  open(path: string, text: string, version: number): boolean {
    const lang = languageForPath(path);
    if (!lang) return false;
    this.docs.get(path)?.doc.dispose();
    const doc = new LiveDocument(this.parsers.get(lang).parser, text, version);
    this.docs.set(path, { doc, lang, reuse: {} });
    this.reindex(path, []);
    return true;
  }

  change(path: string, changes: readonly TextChange[], version: number): boolean {
    const open = this.docs.get(path);
    if (!open) return false;
    open.doc.applyChanges(changes, version, { changedRanges: false });
    this.reindex(path, lineShifts(changes));
    return true;
  }

  /** Forgets the buffer; the caller re-reads the file from disk. */
  close(path: string): boolean {
    const open = this.docs.get(path);
    if (!open) return false;
    open.doc.dispose();
    this.docs.delete(path);
    return true;
  }

  closeAll(): void {
    for (const o of this.docs.values()) o.doc.dispose();
    this.docs.clear();
  }

  private reindex(path: string, shifts: LineShift[]): void {
    const { doc, lang, reuse } = this.docs.get(path)!;
    const text = doc.text;
    const ex = lang.extract(doc.tree, text, path, this.parsers.get(lang).language, reuse);
    const hash = createHash('sha256').update(text).digest('hex');
    this.store.transaction(() => {
      // Rows below an edit move by the lines it added or removed: one UPDATE each, so that the
      // per-row diff of replaceFile finds them unchanged.
      for (const s of shifts) this.store.shiftRows(path, s.afterRow, s.delta);
      // mtime 0: the next disk scan sees the file as changed and re-reads it once it is closed.
      applyExtraction(this.store, this.graph, lang, { path, language: lang.id, module: lang.moduleName(path), hash, size: text.length, mtimeMs: 0 }, ex);
    });
    this.graph.flush(true);
  }
}

interface LineShift {
  /** Rows after this one (in the text before the change) move by `delta`. */
  afterRow: number;
  delta: number;
}

/** How each ranged change moves the lines below it (a full replacement moves nothing we can use). */
function lineShifts(changes: readonly TextChange[]): LineShift[] {
  const out: LineShift[] = [];
  for (const c of changes) {
    if (!('range' in c) || !c.range) return [];
    let added = 0;
    for (let i = c.text.indexOf('\n'); i !== -1; i = c.text.indexOf('\n', i + 1)) added++;
    const delta = added - (c.range.end.line - c.range.start.line);
    if (delta) out.push({ afterRow: c.range.end.line, delta });
  }
  return out;
}
