// Differential test of live buffers: a random sequence of incremental edits (insertions,
// deletions, multi-byte text, CRLF line ends, broken intermediate states, several changes per
// notification, one full replacement) must leave the server answering exactly like a fresh
// server that indexed the final text from disk — and like that fresh server with the final
// text opened as a buffer.
import { afterEach, describe, expect, it } from 'vitest';
import { differential } from './helpers/differential';
import { applySplice, prng, type Splice } from './helpers/lsp-text';

const UTIL = `"""Helpers."""


def helper_a(x=None):
    return x


def helper_b(x=None):
    return helper_a(x)


def helper_c(x=None):
    return x


class Box:
    def put(self, x):
        return helper_c(x)
`;

const MAIN = `"""Main module — naïve café ☕."""
from .util import helper_a, helper_b, helper_c, Box


def alpha(x):
    """First 😀."""
    helper_a(x)
    return x


def beta(x):
    alpha(x)
    helper_b(x)
    return Box().put(x)


class Runner:
    def run(self, x):
        beta(x)
        return self.step(x)

    def step(self, x):
        return helper_c(x)
`;

const MAIN_REL = 'pkg/main.py';
const UTIL_REL = 'pkg/util.py';
const FILES = { 'pkg/__init__.py': '', [UTIL_REL]: UTIL };


const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Edits that keep the file valid Python; each returns the splices of one notification. */
function structuredEdit(text: string, rnd: ReturnType<typeof prng>, counter: { n: number }): Splice[] {
  const lines: Array<{ start: number; text: string; eol: string }> = [];
  const re = /([^\r\n]*)(\r\n|\n|$)/g;
  for (let m = re.exec(text); m && m.index < text.length; m = re.exec(text)) lines.push({ start: m.index, text: m[1], eol: m[2] || '\n' });
  const defs = lines.filter((l) => /^\s*def \w+\(/.test(l.text));
  const calls = lines.filter((l) => /^\s+[\w.]+\((x|None)?\)\s*(#.*)?$/.test(l.text) && !/^\s+return\b/.test(l.text));
  const topLevel = lines.filter((l) => /^(def|class) /.test(l.text));
  const callee = () => rnd.pick(['helper_a', 'helper_b', 'helper_c', 'alpha', 'beta', 'Box().put', ...defs.map((d) => /def (\w+)/.exec(d.text)![1]).filter((n) => n !== 'step' && n !== 'run' && n !== 'put')]);
  const indentOf = (l: { text: string }) => /^\s*/.exec(l.text)![0];
  const kind = rnd.int(7);
  if (kind === 0 && defs.length) {
    // A call as the first statement of a body.
    const d = rnd.pick(defs);
    return [{ start: d.start + d.text.length + d.eol.length, deleteCount: 0, insert: `${indentOf(d)}    ${callee()}(x)${d.eol}` }];
  }
  if (kind === 1 && calls.length) {
    // Delete a call statement (every body keeps its return).
    const c = rnd.pick(calls);
    return [{ start: c.start, deleteCount: c.text.length + c.eol.length, insert: '' }];
  }
  if (kind === 2) {
    // A new function with multi-byte text, before a top-level definition or at the end.
    const n = ++counter.n;
    const fn = `def gen_${n}(x):\n    """Generated ${n}: é 😀."""\n    s = "😀é"; ${callee()}(x)  # ☕\n    return x\n\n\n`;
    const at = rnd.next() < 0.5 && topLevel.length ? rnd.pick(topLevel).start : text.length;
    const prefix = at === text.length && !text.endsWith('\n') ? '\n' : '';
    return [{ start: at, deleteCount: 0, insert: prefix + fn }];
  }
  if (kind === 3 && calls.length) {
    // Retarget a call.
    const c = rnd.pick(calls);
    const m = /^(\s+)([\w.]+)\(/.exec(c.text)!;
    return [{ start: c.start + m[1].length, deleteCount: m[2].length, insert: callee() }];
  }
  if (kind === 4 && lines.length) {
    // A multi-byte comment at the end of a line.
    const l = rnd.pick(lines);
    return [{ start: l.start + l.text.length, deleteCount: 0, insert: rnd.pick(['  # café 😀', '  # ☕☕', '  # é']) }];
  }
  if (kind === 5) {
    // LF → CRLF on a few lines, as several changes in one notification (later ranges first
    // would be the editor's choice; here each range refers to the text left by the previous).
    const lf = lines.filter((l) => l.eol === '\n' && l.start + l.text.length < text.length);
    const picks = [rnd.pick(lf), rnd.pick(lf)].filter(Boolean).sort((a, b) => a.start - b.start);
    const unique = picks.filter((p, i) => i === 0 || p.start !== picks[i - 1].start);
    return unique.map((l, i) => ({ start: l.start + l.text.length + i, deleteCount: 0, insert: '\r' }));
  }
  // Two edits in one notification: a call in one body and a comment elsewhere.
  const d = defs.length ? rnd.pick(defs) : lines[0];
  const first: Splice = { start: d.start + d.text.length + d.eol.length, deleteCount: 0, insert: `${indentOf(d)}    ${callee()}(x)${d.eol}` };
  return [first, { start: 0, deleteCount: 0, insert: '# 😀 top\n' }];
}

const diff = differential({ mainRel: MAIN_REL, main: MAIN, utilRel: UTIL_REL, files: FILES, structuredEdit, damage: ['x', ' ', '(', ')', ':', '\n', 'é', '😀', 'def ', 'return ', '"', '\r\n', '    ', 'helper_a(x)', '"""'] }, cleanups);

describe('live buffer differential', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: 40 random edits answer like a fresh server on the final text`, async () => {
      await diff.run(seed, 40);
    });
  }

  it('the generated edits cover multi-byte text, CRLF and new functions', () => {
    // Guards the generator itself: a differential over trivial edits would prove little.
    const rnd = prng(7);
    let text = MAIN;
    const counter = { n: 0 };
    for (let i = 0; i < 60; i++) for (const s of structuredEdit(text, rnd, counter)) text = applySplice(text, s);
    expect(text).toContain('\r\n');
    expect(text).toContain('😀');
    expect(text).toMatch(/def gen_\d+/);
    expect(counter.n).toBeGreaterThan(0);
  });
});
