// The live-buffer differential (see lsp-differential.test.ts) on a TypeScript file: random
// incremental edits (new functions, retargeted calls, multi-byte comments, CRLF, broken
// intermediate states undone edit by edit, one full replacement) must leave the server answering
// exactly like a fresh server that indexed the final text from disk, and like that server with
// the final text opened as a buffer.
import { afterEach, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LspClient, fileUri, tempDir, writeFiles } from './helpers/lsp-client';
import { applySplice, inverse, prng, snap, toContentChange, type CallItem, type DocSymbol, type Splice } from './helpers/lsp-text';

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

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function workspace(mainText: string): Promise<{ root: string; client: LspClient }> {
  const { dir, cleanup } = tempDir('nsccn-lsp-diff-ts-');
  cleanups.push(cleanup);
  writeFiles(dir, { [UTIL_REL]: UTIL, [MAIN_REL]: mainText });
  const client = await LspClient.start({ folders: [dir], progress: false, codeLensRefresh: false });
  cleanups.push(() => client.stop());
  await client.waitReady();
  return { root: dir, client };
}

/** The outline of main.ts, outgoing calls of its functions and methods, incoming calls of util.ts's. */
async function answers(client: LspClient, root: string): Promise<unknown> {
  const rootUri = fileUri(root);
  const outline = (rel: string) => client.request<DocSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: fileUri(path.join(root, rel)) } });
  const callables = (syms: DocSymbol[]): DocSymbol[] => syms.flatMap((s) => [...(s.kind === 12 || s.kind === 6 ? [s] : []), ...callables(s.children ?? [])]);
  const calls = async (rel: string, s: DocSymbol, direction: 'outgoing' | 'incoming') => {
    const items = await client.request<CallItem[] | null>('textDocument/prepareCallHierarchy', { textDocument: { uri: fileUri(path.join(root, rel)) }, position: s.selectionRange.start });
    if (!items) return null;
    return { item: items[0].data.id, calls: await client.request(`callHierarchy/${direction}Calls`, { item: items[0] }) };
  };
  const mainOutline = await outline(MAIN_REL);
  const out = [];
  for (const s of callables(mainOutline)) out.push(await calls(MAIN_REL, s, 'outgoing'));
  const inc = [];
  for (const s of callables(await outline(UTIL_REL))) inc.push(await calls(UTIL_REL, s, 'incoming'));
  return JSON.parse(JSON.stringify({ mainOutline, out, inc }).split(rootUri).join('<root>'));
}

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

function randomSplice(text: string, rnd: ReturnType<typeof prng>): Splice {
  const start = snap(text, rnd.int(text.length + 1));
  const end = snap(text, Math.min(text.length, start + rnd.int(12)));
  const pieces = ['x', ' ', '(', ')', '{', '}', ';', '\n', 'é', '😀', 'function ', 'return ', "'", '\r\n', '/*', 'helperA(x)', '=>'];
  let insert = '';
  for (let i = rnd.int(4); i > 0; i--) insert += rnd.pick(pieces);
  return { start, deleteCount: end - start, insert };
}

async function runSequence(seed: number, steps: number): Promise<void> {
  const rnd = prng(seed);
  const live = await workspace(MAIN);
  const uri = fileUri(path.join(live.root, MAIN_REL));
  let text = MAIN;
  let version = 1;
  await live.client.open(uri, text, version);
  const send = async (splices: Splice[]) => {
    const changes = [];
    for (const s of splices) {
      changes.push(toContentChange(text, s));
      text = applySplice(text, s);
    }
    await live.client.change(uri, ++version, changes);
  };
  const counter = { n: 0 };
  for (let step = 0; step < steps; step++) {
    if (rnd.next() < 0.35) {
      const undo: Array<{ before: string; s: Splice }> = [];
      for (let i = 1 + rnd.int(4); i > 0; i--) {
        const s = randomSplice(text, rnd);
        undo.push({ before: text, s });
        await send([s]);
        await live.client.request('textDocument/documentSymbol', { textDocument: { uri } });
      }
      while (undo.length) {
        const { before, s } = undo.pop()!;
        await send([inverse(before, s)]);
      }
    } else await send(structuredEdit(text, rnd, counter));
    if (step === Math.floor(steps / 2)) {
      text = text + '\n';
      await live.client.change(uri, ++version, [{ text }]);
    }
  }
  const got = await answers(live.client, live.root);
  expect(fs.readFileSync(path.join(live.root, MAIN_REL), 'utf8')).toBe(MAIN); // nothing saved
  const fresh = await workspace(text);
  const want = await answers(fresh.client, fresh.root);
  expect(got, `seed ${seed}: live edits vs a fresh index of the final text`).toEqual(want);
  await fresh.client.open(fileUri(path.join(fresh.root, MAIN_REL)), text, 1);
  expect(await answers(fresh.client, fresh.root), `seed ${seed}: fresh buffer`).toEqual(want);
  expect(text).not.toBe(MAIN);
}

describe('live TypeScript buffer differential', () => {
  for (const seed of [1, 2]) {
    it(`seed ${seed}: 20 random edits answer like a fresh server on the final text`, async () => {
      await runSequence(seed, 20);
    });
  }

  it('the answers are not empty: calls across files are there to compare', async () => {
    const { root, client } = await workspace(MAIN);
    const a = JSON.stringify(await answers(client, root));
    expect(a).toContain('method:src/util.ts:Box.put');
    expect(a).toContain('func:src/util.ts:helperB');
  });
});
