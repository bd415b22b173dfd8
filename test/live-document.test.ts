// Differential test of LiveDocument: random LSP edits applied incrementally must leave the same
// text as an independent implementation (vscode-languageserver-textdocument) and the same tree
// (structure *and* positions) as a fresh parse of that text.
import { beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LiveDocument, computeEdit, computeLineStarts } from '../server/src/engine/parse/document';
import type { TextChange } from '../server/src/engine/api';
import { mulberry32 as rng } from '../server/eval/random';

const require_ = createRequire(__filename);
let parser: Parser;

beforeAll(async () => {
  await Parser.init();
  const python = await Language.load(require_.resolve('tree-sitter-python/tree-sitter-python.wasm'));
  parser = new Parser();
  parser.setLanguage(python);
});


const SNIPPETS = [
  'def f(x):\n    return g(x)\n',
  'class A(B):\n    def m(self):\n        self.x = 1\n',
  '\r\n',
  '\n',
  '\r',
  '    ',
  'print("héllo wörld")',
  '# 日本語のコメント\n',
  's = "😀🎉"\n',
  'name_中文 = 1\n',
  '(',
  ')',
  ':',
  '"""doc\nstring"""',
  'x',
  'if a:\r\n    pass\r\n',
  '𝒳 = "𝔘𝔫𝔦"\n',
  'return helper(a, b)\n',
  '',
];

const BASE = [
  'import os\r\n',
  'from shop.models import Order\n',
  '\n',
  'def total(order):\n',
  '    """Sum — 合計 😀."""\n',
  '    return sum(i.price for i in order.items)\r\n',
  '\n',
  'class Cart:\n',
  '    def add(self, item):\n',
  '        self.items.append(item)\n',
  '        validate(item)\n',
].join('');

interface Flat {
  type: string;
  start: number;
  end: number;
  sr: number;
  sc: number;
  er: number;
  ec: number;
  missing: boolean;
}

/** Every node of the tree, pre-order, with its offsets and points. */
function flatten(tree: Tree): Flat[] {
  const out: Flat[] = [];
  const visit = (n: Node): void => {
    out.push({
      type: n.type,
      start: n.startIndex,
      end: n.endIndex,
      sr: n.startPosition.row,
      sc: n.startPosition.column,
      er: n.endPosition.row,
      ec: n.endPosition.column,
      missing: n.isMissing,
    });
    for (const c of n.children) if (c) visit(c);
  };
  visit(tree.rootNode);
  return out;
}

function expectSameAsFreshParse(doc: LiveDocument): void {
  const fresh = parser.parse(doc.text)!;
  try {
    expect(doc.tree.rootNode.toString()).toBe(fresh.rootNode.toString());
    expect(flatten(doc.tree)).toEqual(flatten(fresh));
  } finally {
    fresh.delete();
  }
}

/** A random LSP position in `ref`, sometimes past a line end, past the end, or mid-pair. */
function randomPosition(r: () => number, ref: TextDocument): { line: number; character: number } {
  const roll = r();
  if (roll < 0.05) return { line: ref.lineCount + Math.floor(r() * 3), character: Math.floor(r() * 5) };
  if (roll < 0.12) {
    const line = Math.floor(r() * ref.lineCount);
    return { line, character: 200 + Math.floor(r() * 10) };
  }
  return ref.positionAt(Math.floor(r() * (ref.getText().length + 1)));
}

function randomChange(r: () => number, ref: TextDocument): TextChange {
  if (r() < 0.02) return { text: SNIPPETS[Math.floor(r() * SNIPPETS.length)] + BASE };
  let a = randomPosition(r, ref);
  let b = r() < 0.4 ? a : randomPosition(r, ref);
  if (ref.offsetAt(b) < ref.offsetAt(a)) [a, b] = [b, a];
  const text = r() < 0.3 ? '' : SNIPPETS[Math.floor(r() * SNIPPETS.length)];
  return { range: { start: a, end: b }, text };
}

describe('LiveDocument', () => {
  it('maps LSP lines with \\n, \\r\\n and lone \\r', () => {
    expect(computeLineStarts('a\nb\r\nc\rd')).toEqual([0, 2, 5, 7]);
    const doc = new LiveDocument(parser, 'a = 1\r\nb = 2\rc = 3\n');
    expect(doc.lineCount).toBe(4);
    expect(doc.offsetAt({ line: 1, character: 99 })).toBe(12); // before \r
    expect(doc.offsetAt({ line: 0, character: 99 })).toBe(5); // before \r\n
    expect(doc.offsetAt({ line: 9, character: 0 })).toBe(doc.text.length);
    expect(doc.positionAt(13)).toEqual({ line: 2, character: 0 });
    doc.dispose();
  });

  it('edits a line inside a CRLF file at a UTF-16 column after an emoji', () => {
    const doc = new LiveDocument(parser, 's = "😀"\r\ndef f():\r\n    return 1\r\n', 1);
    // Replace `1` (line 2, character 11) with `g(😀)`.
    const res = doc.applyChanges(
      [{ range: { start: { line: 2, character: 11 }, end: { line: 2, character: 12 } }, text: 'g("😀")' }],
      2,
    );
    expect(doc.text).toBe('s = "😀"\r\ndef f():\r\n    return g("😀")\r\n');
    expect(doc.version).toBe(2);
    expectSameAsFreshParse(doc);
    const call = doc.tree.rootNode.descendantsOfType('call')[0]!;
    expect(call.startPosition).toEqual({ row: 2, column: 11 });
    expect(res.editedRegions).toHaveLength(1);
    expect(res.editedRegions[0]).toMatchObject({ startIndex: 31, endIndex: 38 });
    expect(res.changedRanges.length).toBeGreaterThan(0);
    doc.dispose();
  });

  it('replaces everything on a full-text change and bumps the version', () => {
    const doc = new LiveDocument(parser, 'def a(): pass\n', 3);
    const res = doc.applyChanges([{ text: 'class B:\n    x = 1\n' }]);
    expect(doc.text).toBe('class B:\n    x = 1\n');
    expect(doc.version).toBe(4);
    expect(res.changedRanges[0].startIndex).toBe(0);
    expectSameAsFreshParse(doc);
    doc.dispose();
  });

  it('tolerates a reversed range and an edit splitting a surrogate pair', () => {
    const doc = new LiveDocument(parser, 'x = "😀"\n');
    doc.applyChanges([{ range: { start: { line: 0, character: 3 }, end: { line: 0, character: 1 } }, text: '' }]);
    expect(doc.text).toBe('x "😀"\n');
    // Insert between the two halves of 😀 (character 3 is its high surrogate's end).
    doc.applyChanges([{ range: { start: { line: 0, character: 4 }, end: { line: 0, character: 4 } }, text: 'ab' }]);
    expect(doc.text).toBe('x "\ud83dab\ude00"\n');
    expectSameAsFreshParse(doc);
    doc.dispose();
  });

  it('reports changed ranges where the structure changed', () => {
    const doc = new LiveDocument(parser, 'def a():\n    pass\n\ndef b():\n    pass\n');
    const res = doc.applyChanges([
      { range: { start: { line: 4, character: 4 }, end: { line: 4, character: 8 } }, text: 'return c(1)' },
    ]);
    expect(res.changedRanges.some((r) => r.startPosition.row <= 4 && r.endPosition.row >= 4)).toBe(true);
    expect(res.changedRanges.every((r) => r.startPosition.row >= 3)).toBe(true);
    doc.dispose();
  });

  it('matches a fresh parse after random edit sequences (one change per call)', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const r = rng(seed);
      let ref = TextDocument.create('file:///t.py', 'python', 0, BASE);
      const doc = new LiveDocument(parser, BASE, 0);
      for (let step = 1; step <= 40; step++) {
        const change = randomChange(r, ref);
        ref = TextDocument.update(ref, [change], step);
        doc.applyChanges([change], step);
        expect(doc.text, `seed ${seed} step ${step}`).toBe(ref.getText());
      }
      expect(doc.lineCount).toBe(ref.lineCount);
      expectSameAsFreshParse(doc);
      doc.dispose();
    }
  });

  it('matches a fresh parse after random batches of changes in one didChange', () => {
    for (let seed = 100; seed < 160; seed++) {
      const r = rng(seed);
      let ref = TextDocument.create('file:///t.py', 'python', 0, BASE);
      const doc = new LiveDocument(parser, BASE, 0);
      for (let step = 1; step <= 8; step++) {
        // Each change's range refers to the text after the previous one, as in LSP.
        const batch: TextChange[] = [];
        // TextDocument.update mutates its argument: generate positions on a separate copy.
        let scratch = TextDocument.create('file:///t.py', 'python', 0, ref.getText());
        const n = 1 + Math.floor(r() * 6);
        for (let i = 0; i < n; i++) {
          const change = randomChange(r, scratch);
          batch.push(change);
          scratch = TextDocument.update(scratch, [change], scratch.version + 1);
        }
        ref = TextDocument.update(ref, batch, step);
        doc.applyChanges(batch, step);
        expect(doc.text, `seed ${seed} step ${step}`).toBe(ref.getText());
        expectSameAsFreshParse(doc);
      }
      doc.dispose();
    }
  });

  it('computes tree-sitter edits that agree with brute-force points', () => {
    // tree-sitter tolerates some wrong points (it re-lexes edited tokens), so check them directly.
    const point = (t: string, offset: number) => {
      const before = t.slice(0, offset).split('\n');
      return { row: before.length - 1, column: before[before.length - 1].length };
    };
    for (let seed = 500; seed < 540; seed++) {
      const r = rng(seed);
      let ref = TextDocument.create('file:///t.py', 'python', 0, BASE);
      for (let step = 0; step < 30; step++) {
        const change = randomChange(r, ref);
        if (!('range' in change)) continue;
        const text = ref.getText();
        const edit = computeEdit(text, computeLineStarts(text), change);
        expect(edit.startIndex).toBe(ref.offsetAt(change.range.start));
        expect(edit.oldEndIndex).toBe(ref.offsetAt(change.range.end));
        ref = TextDocument.update(ref, [change], step + 1);
        const after = ref.getText();
        expect(edit.newEndIndex).toBe(edit.startIndex + change.text.length);
        expect(edit.startPosition).toEqual(point(text, edit.startIndex));
        expect(edit.oldEndPosition).toEqual(point(text, edit.oldEndIndex));
        expect(edit.newEndPosition).toEqual(point(after, edit.newEndIndex));
      }
    }
  });

  it('edited regions cover the written text of a batch', () => {
    const doc = new LiveDocument(parser, 'a = 1\nb = 2\nc = 3\n');
    const res = doc.applyChanges([
      { range: { start: { line: 2, character: 4 }, end: { line: 2, character: 5 } }, text: '30' },
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# top\n' },
    ]);
    expect(doc.text).toBe('# top\na = 1\nb = 2\nc = 30\n');
    expect(res.editedRegions.map((e) => doc.text.slice(e.startIndex, e.endIndex))).toEqual(['# top\n', '30']);
    expect(res.editedRegions[1].startPosition).toEqual({ row: 3, column: 4 });
    doc.dispose();
  });
});
