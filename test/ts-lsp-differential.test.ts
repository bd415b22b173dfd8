// The live-buffer differential (see lsp-differential.test.ts) on a TypeScript file: random
// incremental edits (new functions, retargeted calls, multi-byte comments, CRLF, broken
// intermediate states undone edit by edit, one full replacement) must leave the server answering
// exactly like a fresh server that indexed the final text from disk, and like that server with
// the final text opened as a buffer.
import { afterEach, describe, expect, it } from 'vitest';
import { differential } from './helpers/differential';
import { type prng, type Splice } from './helpers/lsp-text';

const UTIL = `/** Helpers. */
export function helperA(x?: number): number | undefined {
  return x;
}

export function helperB(x?: number): number | undefined {
  return helperA(x);
}

export class Box {
  put(x: number): number | undefined {
    return helperB(x);
  }
}
`;

const MAIN = `/** Main module — naïve café ☕. */
import { helperA, helperB, Box } from './util';

/** First 😀. */
export function alpha(x: number): number {
  helperA(x);
  return x;
}

export function beta(x: number): number | undefined {
  alpha(x);
  helperB(x);
  return new Box().put(x);
}

export class Runner {
  run(x: number): number {
    beta(x);
    return this.step(x);
  }

  step(x: number): number {
    helperA(x);
    return x;
  }
}
`;

const MAIN_REL = 'src/main.ts';
const UTIL_REL = 'src/util.ts';
const FILES = { [UTIL_REL]: UTIL };

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Edits that keep the file valid TypeScript; each returns the splices of one notification. */
function structuredEdit(text: string, rnd: ReturnType<typeof prng>, counter: { n: number }): Splice[] {
  const lines: Array<{ start: number; text: string; eol: string }> = [];
  const re = /([^\r\n]*)(\r\n|\n|$)/g;
  for (let m = re.exec(text); m && m.index < text.length; m = re.exec(text)) lines.push({ start: m.index, text: m[1], eol: m[2] || '\n' });
  const bodies = lines.filter((l) => /\{\s*$/.test(l.text) && /\(x: number\)/.test(l.text));
  const calls = lines.filter((l) => /^\s+[\w.]+\(x\);\s*(\/\/.*)?$/.test(l.text));
  const topLevel = lines.filter((l) => /^export (function|class) /.test(l.text));
  const callee = () => rnd.pick(['helperA', 'helperB', 'alpha', 'beta', 'new Box().put', ...lines.map((l) => /function (gen_\d+)/.exec(l.text)?.[1]).filter((n): n is string => !!n)]);
  const indentOf = (l: { text: string }) => /^\s*/.exec(l.text)![0];
  const kind = rnd.int(6);
  if (kind === 0 && bodies.length) {
    const d = rnd.pick(bodies);
    return [{ start: d.start + d.text.length + d.eol.length, deleteCount: 0, insert: `${indentOf(d)}  ${callee()}(x);${d.eol}` }];
  }
  if (kind === 1 && calls.length) {
    const c = rnd.pick(calls);
    return [{ start: c.start, deleteCount: c.text.length + c.eol.length, insert: '' }];
  }
  if (kind === 2) {
    const n = ++counter.n;
    const fn = `/** Generated ${n}: é 😀. */\nexport function gen_${n}(x: number): number {\n  const s = '😀é'; ${callee()}(x); // ☕\n  return x;\n}\n\n`;
    const at = rnd.next() < 0.5 && topLevel.length ? rnd.pick(topLevel).start : text.length;
    return [{ start: at, deleteCount: 0, insert: (at === text.length && !text.endsWith('\n') ? '\n' : '') + fn }];
  }
  if (kind === 3 && calls.length) {
    const c = rnd.pick(calls);
    const m = /^(\s+)([\w.]+)\(/.exec(c.text)!;
    return [{ start: c.start + m[1].length, deleteCount: m[2].length, insert: callee() }];
  }
  if (kind === 4 && lines.length) {
    const l = rnd.pick(lines.filter((x) => !x.text.includes('//') && !x.text.startsWith('/**')));
    return [{ start: l.start + l.text.length, deleteCount: 0, insert: rnd.pick([' // café 😀', ' // ☕☕', ' // é']) }];
  }
  const lf = lines.filter((l) => l.eol === '\n' && l.start + l.text.length < text.length);
  const picks = [rnd.pick(lf), rnd.pick(lf)].filter(Boolean).sort((a, b) => a.start - b.start);
  const unique = picks.filter((p, i) => i === 0 || p.start !== picks[i - 1].start);
  return unique.map((l, i) => ({ start: l.start + l.text.length + i, deleteCount: 0, insert: '\r' }));
}

const diff = differential({ mainRel: MAIN_REL, main: MAIN, utilRel: UTIL_REL, files: FILES, structuredEdit, damage: ['x', ' ', '(', ')', '{', '}', ';', '\n', 'é', '😀', 'function ', 'return ', "'", '\r\n', '/*', 'helperA(x)', '=>'] }, cleanups);

describe('live TypeScript buffer differential', () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: 20 random edits answer like a fresh server on the final text`, async () => {
      await diff.run(seed, 20);
    });
  }

  it('the answers are not empty: calls across files are there to compare', async () => {
    const { root, client } = await diff.workspace(MAIN);
    const a = JSON.stringify(await diff.answers(client, root));
    expect(a).toContain('method:src/util.ts:Box.put');
    expect(a).toContain('func:src/util.ts:helperB');
  });
});
