// Editor buffers. While a file is open its buffer, not the disk, is the truth: every change is
// applied to the tree incrementally (tree.edit + reparse with the old tree), the file is
// re-extracted from that tree and written through the index host, as a file from disk is.
//
// A buffer larger than `maxBytes` gets the policy of a file on disk that size: it is not
// parsed or indexed (its text is still kept, edited as plain text, so that it can be indexed
// again the moment it shrinks). Versions must grow: an edit out of order is refused, never
// applied to the wrong text.
import { ErrorCodes } from '../../../../protocol';
import type { TextChange } from '../api';
import { EngineError } from '../errors';
import { languageForPath } from '../languages/registry';
import type { ExtractionReuse, LanguageSupport } from '../languages/types';
import { applyTextChanges, LiveDocument } from '../parse/document';
import type { Parsers } from '../parse/parsers';
import type { IndexHost, LineShift } from './host';
import { hashBytes } from './read';

interface Open {
  /** The parsed buffer, or null while it is too large to index. */
  doc: LiveDocument | null;
  /** The buffer's text when `doc` is null. */
  plain: string;
  version: number;
  lang: LanguageSupport;
  /** The extractor's state from the previous version of this buffer. */
  reuse: ExtractionReuse;
}

/** What an open or a change left: whether the buffer is indexed, and if not why. */
export interface BufferState {
  indexed: boolean;
  reason?: string;
}

export class Buffers {
  private readonly docs = new Map<string, Open>();

  constructor(
    private readonly host: IndexHost,
    private readonly parsers: Parsers,
    private readonly maxBytes: number,
  ) {}

  paths(): ReadonlySet<string> {
    return new Set(this.docs.keys());
  }

  text(path: string): string | undefined {
    const o = this.docs.get(path);
    return o ? (o.doc ? o.doc.text : o.plain) : undefined;
  }

  /** The parsed buffer (undefined when closed or too large to index). */
  get(path: string): LiveDocument | undefined {
    return this.docs.get(path)?.doc ?? undefined;
  }

  /** Null for files no language handles (they are tracked by nobody). */
  open(path: string, text: string, version: number): BufferState | null {
    const lang = languageForPath(path);
    if (!lang) return null;
    this.docs.get(path)?.doc?.dispose();
    const o: Open = { doc: null, plain: text, version, lang, reuse: {} };
    this.docs.set(path, o);
    return this.settle(path, o, null);
  }

  /** Null when the file is not open. Throws (and changes nothing) for an edit out of order. */
  change(path: string, changes: readonly TextChange[], version: number): BufferState | null {
    const o = this.docs.get(path);
    if (!o) return null;
    if (!Number.isInteger(version) || version <= o.version) {
      throw new EngineError(ErrorCodes.InvalidParams, `${path}: edit version ${version} is not newer than the buffer's ${o.version}; refused (edits out of order)`);
    }
    if (o.doc) {
      o.doc.applyChanges(changes, version, { changedRanges: false });
      o.version = version;
      return this.settle(path, o, lineShifts(changes));
    }
    o.plain = applyTextChanges(o.plain, changes);
    o.version = version;
    return this.settle(path, o, null);
  }

  /** Forgets the buffer; the caller re-reads the file from disk. */
  close(path: string): boolean {
    const open = this.docs.get(path);
    if (!open) return false;
    open.doc?.dispose();
    this.docs.delete(path);
    return true;
  }

  /**
   * Extracts these indexed buffers again, or all (null): the files or project files their import
   * targets were found through changed.
   */
  reindexAgain(paths: readonly string[] | null): void {
    for (const [path, o] of this.docs) if (o.doc && (!paths || paths.includes(path))) this.reindex(path, o, [], true);
  }

  closeAll(): void {
    for (const o of this.docs.values()) o.doc?.dispose();
    this.docs.clear();
  }

  /** Parses or drops the buffer by its size, then indexes it when parsed. */
  private settle(path: string, o: Open, shifts: LineShift[] | null): BufferState {
    const text = o.doc ? o.doc.text : o.plain;
    // UTF-8 length, as for files on disk; the UTF-16 length bounds it cheaply from both sides.
    const bytes = text.length * 3 <= this.maxBytes ? text.length : Buffer.byteLength(text, 'utf8');
    if (bytes > this.maxBytes) {
      if (o.doc) {
        o.plain = o.doc.text;
        o.doc.dispose();
        o.doc = null;
        o.reuse = {};
      }
      this.host.apply({ writes: [{ kind: 'deleted', path }] });
      return { indexed: false, reason: `${path}: the buffer is larger than ${this.maxBytes} bytes (${bytes}); not indexed until it is smaller` };
    }
    if (!o.doc) {
      o.doc = new LiveDocument(this.parsers.get(o.lang).parser, o.plain, o.version);
      o.plain = '';
      shifts = [];
    }
    this.reindex(path, o, shifts ?? []);
    return { indexed: true };
  }

  private reindex(path: string, o: Open, shifts: LineShift[], again = false): void {
    const { doc, lang, reuse } = o;
    const text = doc!.text;
    const extraction = lang.extract(doc!.tree, text, path, this.parsers.get(lang).grammar, reuse);
    // The hash a read from disk stores (`hashBytes`), so that a file opened as it is on disk matches.
    const hash = hashBytes(text);
    // The index holds this very text already (a file opened as it is on disk, an edit undone):
    // nothing to write, and no symbol model to read for it (a second on the stdlib). Not when
    // asked again (`reindexAgain`): then what the text means changed, not the text.
    if (!again && this.host.store.file(path)?.hash === hash) return;
    // Rows below an edit move by the lines it added or removed (one UPDATE each, so that the
    // per-row diff finds them unchanged); mtime 0: the next disk scan re-reads the file once it
    // is closed.
    this.host.apply({ writes: [{ kind: 'extracted', lang, meta: { path, language: lang.id, module: lang.moduleName(path), hash, size: text.length, mtimeMs: 0 }, extraction, shifts }] });
  }
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
