// A copy of a syntax tree (parse/syntax-copy.ts) answers as the web-tree-sitter nodes it copies:
// type, range, positions, named children and fields, through the package's own cursor exports
// (which another version of the package could change) and through the public TreeCursor.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Node } from 'web-tree-sitter';
import { Parsers } from '../server/src/engine/parse/parsers';
import { flatCursors } from '../server/src/engine/parse/flat-cursor';
import { copySyntax, LanguageTables, type SyntaxNode } from '../server/src/engine/parse/syntax-copy';
import { LANGUAGES, languageForPath } from '../server/src/engine/languages/registry';

const FIELDS = ['name', 'body', 'value', 'left', 'right', 'function', 'arguments', 'object', 'attribute', 'operator', 'type', 'alias', 'definition', 'parameters', 'condition', 'consequence', 'subscript'];

/** Python sources: the fixtures, and broken ones (ERROR and MISSING nodes, a lone decorator). */
function sources(): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else if (d.name.endsWith('.py')) out.push({ file: p, text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(path.join(__dirname, '..', 'fixtures'));
  out.push({ file: 'broken1.py', text: 'def f(a, b:\n    return a +\nclass C(:\n  x = [1, 2\n' });
  out.push({ file: 'broken2.py', text: '@deco\n\nif x and not y or z:\n    print(f"{a!r:>{w}} é \\u00e9")\nelse\n    pass\n' });
  out.push({ file: 'crlf.py', text: 'x = 1\r\n# é 😀\r\ndef g(😀=1):\r\n    return "ü😀" + y\r\n' });
  return out;
}

function expectSame(copy: SyntaxNode, real: Node, where: string): void {
  const at = `${where} ${real.type}@${real.startIndex}`;
  expect(copy.type, at).toBe(real.type);
  expect([copy.startIndex, copy.endIndex], at).toEqual([real.startIndex, real.endIndex]);
  expect(copy.startPosition, at).toEqual(real.startPosition);
  expect(copy.endPosition, at).toEqual(real.endPosition);
  for (const f of FIELDS) {
    const a = copy.childForFieldName(f);
    const b = real.childForFieldName(f);
    expect(a && [a.type, a.startIndex, a.endIndex], `${at} field ${f}`).toEqual(b && [b.type, b.startIndex, b.endIndex]);
  }
  const kids = real.namedChildren.filter((c): c is Node => !!c);
  expect(copy.namedChildCount, at).toBe(kids.length);
  copy.namedChildren.forEach((c, i) => expectSame(c, kids[i], where));
}

describe('syntax copy', () => {
  const parsers = new Parsers();
  beforeAll(() => parsers.load(LANGUAGES));

  it('answers as the real nodes, through the cursor exports and through the public cursor', () => {
    const python = languageForPath('x.py')!;
    const { grammar, language } = parsers.get(python);
    const publicCursor = flatCursors({});
    const tables = new LanguageTables(language);
    for (const { file, text } of sources()) {
      const tree = parsers.parse(python, text);
      expectSame(grammar.copy(tree.rootNode, text), tree.rootNode, file);
      expectSame(copySyntax(tree.rootNode, publicCursor(tree.rootNode), text, tables), tree.rootNode, `${file} (public)`);
      tree.delete();
    }
  });

  it('uses the package\'s exports with the installed web-tree-sitter (they walk as the public cursor does)', () => {
    const python = languageForPath('x.py')!;
    const tree = parsers.parse(python, fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'python', 'shop', 'models.py'), 'utf8'));
    const { module } = (parsers as unknown as { current: { module: Record<string, unknown> } }).current;
    const c = flatCursors(module)(tree.rootNode);
    expect(c.constructor.name).toBe('RawCursor');
    c.delete();
    tree.delete();
  });

  it('falls back to the public cursor when the package\'s exports do not walk as it does', () => {
    const python = languageForPath('x.py')!;
    const tree = parsers.parse(python, 'def f(x):\n    return g(x)\n');
    // Exports by the expected names whose answers are not the tree's (another layout).
    const heap = new Int32Array(64);
    const wrong: Record<string, unknown> = { HEAP32: heap, _ts_init: () => 16 };
    for (const k of ['current_node_type_id', 'current_field_id', 'start_index', 'end_index', 'goto_first_child', 'goto_next_sibling', 'goto_parent']) wrong[`_ts_tree_cursor_${k}_wasm`] = () => 0;
    const cursors = flatCursors(wrong);
    const c = cursors(tree.rootNode);
    expect(c.constructor.name).toBe('PublicCursor');
    expect(tree.rootNode.type).toBe('module'); // the tree is unharmed
    c.delete();
    tree.delete();
  });

  it('copies the nodes a filter leaves out alone, and finds their real nodes', () => {
    const python = languageForPath('x.py')!;
    const text = 'import os\n\nclass A:\n    def m(self):\n        return 1\n\n@d\ndef f():\n    pass\n"doc"\nx = f"{y}"\n';
    const tree = parsers.parse(python, text);
    const root = parsers.get(python).grammar.copy(tree.rootNode, text, { types: ['class_definition', 'string'], enter: (type, _s, _e, depth) => type === 'string' && depth > 2 });
    const [imp, cls, deco, doc, assign] = root.namedChildren;
    expect([imp.shallow, cls.shallow, deco.shallow]).toEqual([false, true, false]);
    // A string at depth 2 is not entered; one at depth 3 is.
    expect([doc.namedChild(0)!.shallow, doc.namedChild(0)!.namedChildCount]).toEqual([true, 0]);
    const fstring = assign.namedChild(0)!.childForFieldName('right')!;
    expect([fstring.shallow, fstring.namedChildren.map((c) => c.type)]).toEqual([false, ['string_start', 'interpolation', 'string_end']]);
    expect(cls.namedChildCount).toBe(0);
    expect(cls.real().type).toBe('class_definition');
    expect(cls.real().startIndex).toBe(cls.startIndex);
    expect(deco.childForFieldName('definition')!.real().text).toBe('def f():\n    pass');
    tree.delete();
  });
});
