// An open editor buffer: its text and its tree-sitter tree, kept in step with incremental edits.
//
// Two coordinate systems meet here:
// - LSP positions: lines end at `\r\n`, `\n` or a lone `\r`; characters are UTF-16 code units.
// - tree-sitter points (web-tree-sitter): rows end at `\n` only; columns and indices are UTF-16
//   code units, i.e. JS string offsets.
// Every change is first turned into string offsets with LSP line semantics, then the tree edit
// is described with tree-sitter points computed from those offsets. The two agree for `\n` and
// `\r\n` files and stay correct (if differently numbered) for lone-`\r` files.
//
// No LSP imports: the engine layer speaks `TextChange` from engine/api.
import type { Parser, Tree, Point, Range as TsRange } from 'web-tree-sitter';
import type { Position, TextChange } from '../api';

/** A region of the new text touched by the edits of one `applyChanges` call (offsets, UTF-16). */
export interface EditedRegion {
  startIndex: number;
  endIndex: number;
  startPosition: Point;
  endPosition: Point;
}

export interface ApplyResult {
  /** Ranges whose syntactic structure changed (tree-sitter `getChangedRanges`), new coordinates. */
  changedRanges: TsRange[];
  /** The text regions the edits wrote, mapped into the final text (merged, in order). */
  editedRegions: EditedRegion[];
}

export class LiveDocument {
  private _text: string;
  private _tree: Tree;
  private _version: number;
  /** Start offsets of LSP lines in `_text`; recomputed lazily after an edit. */
  private lineStartsCache: number[] | null = null;

  constructor(
    private readonly parser: Parser,
    text: string,
    version = 0,
  ) {
    this._text = text;
    this._version = version;
    this._tree = parseOrThrow(parser, text, null);
  }

  get text(): string {
    return this._text;
  }

  get tree(): Tree {
    return this._tree;
  }

  get version(): number {
    return this._version;
  }

  /** Number of LSP lines (a trailing line break opens an empty last line, as in LSP). */
  get lineCount(): number {
    return this.lineStarts().length;
  }

  /**
   * Applies LSP-shaped content changes in order (each one's range refers to the text left by
   * the previous one), edits the tree for each and reparses once with the old tree.
   * A change without a range replaces the whole text (and the tree is parsed from scratch).
   */
  applyChanges(changes: readonly TextChange[], version?: number, options: { changedRanges?: boolean } = {}): ApplyResult {
    let text = this._text;
    let tree: Tree | null = this._tree.copy();
    // Regions of the *current* text that edits wrote; shifted by later edits.
    let regions: Array<{ start: number; end: number }> = [];
    for (const change of changes) {
      if (!('range' in change) || change.range === undefined) {
        text = change.text;
        tree?.delete();
        tree = null; // a full replacement gains nothing from the old tree
        regions = [{ start: 0, end: text.length }];
        this.lineStartsCache = null;
        continue;
      }
      const edit = computeEdit(text, this.lineStartsCache ?? computeLineStarts(text), change);
      const start = edit.startIndex;
      const end = edit.oldEndIndex;
      const inserted = change.text;
      // Required here, not at the top: opening an engine that edits no buffer loads no tree-sitter.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      if (tree) tree.edit(new (require('web-tree-sitter') as typeof import('web-tree-sitter')).Edit(edit));
      text = text.slice(0, start) + inserted + text.slice(end);
      this.lineStartsCache = null;
      regions = shiftRegions(regions, start, end, inserted.length);
      regions.push({ start, end: start + inserted.length });
    }

    const oldTree = tree;
    const newTree = parseOrThrow(this.parser, text, oldTree);
    // Comparing the trees costs as much as the reparse: only when the caller wants the ranges.
    const changedRanges = options.changedRanges === false ? [] : oldTree ? oldTree.getChangedRanges(newTree) : [wholeRange(newTree)];
    oldTree?.delete();
    this._tree.delete();
    this._tree = newTree;
    this._text = text;
    if (version !== undefined) this._version = version;
    else this._version += 1;
    return { changedRanges, editedRegions: mergeRegions(regions, text) };
  }

  /** String offset of an LSP position, clamped as LSP prescribes (past a line end → line end). */
  offsetAt(position: Position): number {
    return offsetAt(this._text, this.lineStarts(), position);
  }

  /** LSP position of a string offset (clamped to the text). */
  positionAt(offset: number): Position {
    const starts = this.lineStarts();
    const o = Math.max(0, Math.min(offset, this._text.length));
    const line = upperBound(starts, o) - 1;
    return { line, character: o - starts[line] };
  }

  /** Frees the tree (WASM memory). The document must not be used afterwards. */
  dispose(): void {
    this._tree.delete();
  }

  private lineStarts(): number[] {
    if (!this.lineStartsCache) this.lineStartsCache = computeLineStarts(this._text);
    return this.lineStartsCache;
  }
}

/** The text after LSP content changes, without a tree (buffers too large to parse). */
export function applyTextChanges(text: string, changes: readonly TextChange[]): string {
  for (const change of changes) {
    if (!('range' in change) || change.range === undefined) {
      text = change.text;
      continue;
    }
    const starts = computeLineStarts(text);
    let start = offsetAt(text, starts, change.range.start);
    let end = offsetAt(text, starts, change.range.end);
    if (end < start) [start, end] = [end, start];
    text = text.slice(0, start) + change.text + text.slice(end);
  }
  return text;
}

/** A tree-sitter edit (offsets and points, UTF-16) for one ranged change of `text`. */
export interface TreeEdit {
  startIndex: number;
  oldEndIndex: number;
  newEndIndex: number;
  startPosition: Point;
  oldEndPosition: Point;
  newEndPosition: Point;
}

/**
 * The tree-sitter edit for a ranged change of `text`, whose LSP line starts are `lineStarts`.
 * A reversed range is taken as written the other way round (lenient, as editors are).
 */
export function computeEdit(
  text: string,
  lineStarts: number[],
  change: { range: { start: Position; end: Position }; text: string },
): TreeEdit {
  let start = offsetAt(text, lineStarts, change.range.start);
  let end = offsetAt(text, lineStarts, change.range.end);
  if (end < start) [start, end] = [end, start];
  const startPosition = pointAt(text, start);
  return {
    startIndex: start,
    oldEndIndex: end,
    newEndIndex: start + change.text.length,
    startPosition,
    oldEndPosition: pointAt(text, end),
    newEndPosition: advancePoint(startPosition, change.text),
  };
}

function parseOrThrow(parser: Parser, text: string, oldTree: Tree | null): Tree {
  const tree = parser.parse(text, oldTree);
  // parse() only returns null when cancelled or without a language: a programming error.
  if (!tree) throw new Error('tree-sitter returned no tree (is a language set on the parser?)');
  return tree;
}

/** Offsets where LSP lines start: after `\r\n`, `\n` or a lone `\r`. */
export function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (c === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/**
 * Offset of an LSP position. A line past the last one means the end of the text; a character
 * past the end of its line means the end of that line (before its line break), per the LSP spec.
 */
function offsetAt(text: string, starts: number[], pos: Position): number {
  const line = Math.max(0, Math.floor(pos.line));
  if (line >= starts.length) return text.length;
  const lineStart = starts[line];
  let lineEnd = line + 1 < starts.length ? starts[line + 1] : text.length;
  // Exclude the line break itself: `\r\n`, `\n` or `\r`.
  if (lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 10) lineEnd--;
  if (lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
  const character = Math.max(0, Math.floor(pos.character));
  return Math.min(lineStart + character, lineEnd);
}

/** tree-sitter point of an offset: rows counted by `\n` only, column in UTF-16 units. */
function pointAt(text: string, offset: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: offset - lineStart };
}

/** The point reached after writing `inserted` at `start`. */
function advancePoint(start: Point, inserted: string): Point {
  let rows = 0;
  let last = -1;
  for (let i = inserted.indexOf('\n'); i !== -1; i = inserted.indexOf('\n', i + 1)) {
    rows++;
    last = i;
  }
  if (rows === 0) return { row: start.row, column: start.column + inserted.length };
  return { row: start.row + rows, column: inserted.length - last - 1 };
}

/** Moves regions recorded before an edit of [start, end) → `insertedLength` chars. */
function shiftRegions(
  regions: Array<{ start: number; end: number }>,
  start: number,
  end: number,
  insertedLength: number,
): Array<{ start: number; end: number }> {
  const delta = insertedLength - (end - start);
  const map = (o: number, isEnd: boolean): number => {
    if (o < start) return o;
    if (o > end) return o + delta;
    // Inside the replaced span: collapse onto the new text's edge.
    return isEnd ? start + insertedLength : start;
  };
  return regions.map((r) => ({ start: map(r.start, false), end: map(r.end, true) }));
}

function mergeRegions(regions: Array<{ start: number; end: number }>, text: string): EditedRegion[] {
  const sorted = [...regions].sort((a, b) => a.start - b.start);
  const merged: Array<{ start: number; end: number }> = [];
  for (const r of sorted) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  return merged.map((r) => ({
    startIndex: r.start,
    endIndex: r.end,
    startPosition: pointAt(text, r.start),
    endPosition: pointAt(text, r.end),
  }));
}

function wholeRange(tree: Tree): TsRange {
  const root = tree.rootNode;
  return {
    startIndex: 0,
    endIndex: root.endIndex,
    startPosition: { row: 0, column: 0 },
    endPosition: root.endPosition,
  };
}

/** Index of the first element greater than `value` in a sorted array. */
function upperBound(sorted: number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
