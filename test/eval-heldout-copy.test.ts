// The held-out retrieval eval's copy of a library (server/eval/heldout.ts): every docstring gone
// — module, class, def — the code otherwise line for line, and only questions with one answer.
// (A docstring sharing its line with the def stays: it cannot be cut out and keep the lines.)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyWithoutDocstrings } from '../server/eval/heldout';
import { listDocstrings } from '../server/eval/stdlib-sample';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-heldout-test-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const SHAPES = `"""Shapes and their areas."""


class Circle:
    """A round shape."""

    def area(self):
        """Compute the area of the circle from its radius."""
        return 3.14 * self.r ** 2

    def grow(self, k):
        """Scale the shape by a factor."""
        def clamp(x):
            """Keep a factor between zero and ten."""
            return min(max(x, 0), 10)
        self.r *= clamp(k)


def square_area(side):
    """Scale the shape by a factor."""
    return side * side


def one_liner(): """Docstring on the def's own line is not on lines of its own."""
`;

describe('held-out library copy', () => {
  const src = path.join(tmp, 'src');
  fs.mkdirSync(path.join(src, 'tests'), { recursive: true });
  fs.writeFileSync(path.join(src, 'shapes.py'), SHAPES);
  fs.writeFileSync(path.join(src, 'tests', 'test_shapes.py'), 'def test_area():\n    """Check the area of a circle."""\n');
  const dest = path.join(tmp, 'copy', 'geo');
  const { files, picked, documented } = copyWithoutDocstrings(src, dest, 'geo', 40, 7);

  it('finds the docstrings of the module, its classes and its defs, nested ones too', () => {
    const kinds = listDocstrings(src, ['tests']).map((d) => `${d.kind} ${d.qname}`);
    expect(kinds.sort()).toEqual(['class Circle', 'function Circle.grow.clamp', 'function square_area', 'method Circle.area', 'method Circle.grow', 'module '].sort());
  });

  it('removes every docstring and keeps each line where it was; tests are left out', () => {
    expect(files).toBe(1);
    expect(fs.existsSync(path.join(dest, 'tests'))).toBe(false);
    const copied = fs.readFileSync(path.join(dest, 'shapes.py'), 'utf8');
    expect(listDocstrings(path.dirname(dest), ['tests'])).toEqual([]);
    expect(copied.split('\n').length).toBe(SHAPES.split('\n').length);
    expect(copied.split('\n')[8]).toBe('        return 3.14 * self.r ** 2');
    expect(copied).not.toContain('round shape');
  });

  it('asks only first sentences with one answer, named by the package path', () => {
    expect(picked.map((p) => `${p.path}:${p.qname}`).sort()).toEqual(['geo/shapes.py:Circle.area', 'geo/shapes.py:Circle.grow.clamp']);
    expect(documented).toBe(2);
    expect(picked.find((p) => p.qname === 'Circle.area')?.query).toBe('Compute the area of the circle from its radius.');
  });
});

describe('held-out report', () => {
  it('names each library where the fused ranking is below its best single stream', async () => {
    const { formatHeldOut } = await import('../server/eval/heldout');
    const m = (mrr10: number) => ({ queries: 40, mrr10, recall1: 0, recall5: 0, recall10: 0, file1: 0, file5: 0, hub5: 0 });
    const lib = (name: string, lexical: number, stat: number, nsccn: number) => ({ name, split: 'test' as const, files: 1, entities: 1, documented: 40, metrics: { 'bm25-functions': m(0.2), lexical: m(lexical), static: m(stat), nsccn: m(nsccn) } });
    const mean = { all: {}, dev: {}, test: {} };
    const below = formatHeldOut({ sitePackages: '', seed: 7, missing: [], mean, libraries: [lib('a', 0.3, 0.5, 0.55), lib('b', 0.37, 0.24, 0.31)] });
    expect(below.split('\n').at(-1)).toBe('nsccn below its best single stream on: b (0.310 against lexical 0.370)');
    const none = formatHeldOut({ sitePackages: '', seed: 7, missing: [], mean, libraries: [lib('a', 0.3, 0.5, 0.5)] });
    expect(none.split('\n').at(-1)).toBe('nsccn at or above its best single stream on every library');
  });
});
