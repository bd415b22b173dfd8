// The live-buffer differential, language by language: a seeded sequence of incremental edits to
// one file (the language's own structured edits, bursts of random damage undone edit by edit,
// one full replacement) must leave the real server answering exactly like a fresh server that
// indexed the final text from disk, and like that server with the final text opened as a buffer.
// A language gives its files and its edits; the driver, the answers compared and the checks are
// shared.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect } from 'vitest';
import { LspClient, fileUri, tempDir, writeFiles } from './lsp-client';
import { applySplice, inverse, prng, snap, toContentChange, type CallItem, type DocSymbol, type Splice } from './lsp-text';

export type Rng = ReturnType<typeof prng>;

export interface DifferentialSpec {
  /** The edited file, its starting text, and the file whose helpers it calls. */
  mainRel: string;
  main: string;
  utilRel: string;
  /** Every other file of the workspace (the util file included). */
  files: Record<string, string>;
  /** An edit that keeps the file valid; the splices of one notification. */
  structuredEdit(text: string, rnd: Rng, counter: { n: number }): Splice[];
  /** What random damage inserts (it breaks the syntax until undone). */
  damage: readonly string[];
}

export interface Differential {
  workspace(mainText: string): Promise<{ root: string; client: LspClient }>;
  answers(client: LspClient, root: string): Promise<unknown>;
  run(seed: number, steps: number): Promise<void>;
}

/** `cleanups` is emptied by the test file's afterEach. */
export function differential(spec: DifferentialSpec, cleanups: Array<() => Promise<unknown> | void>): Differential {
  const workspace = async (mainText: string) => {
    const { dir, cleanup } = tempDir('nsccn-lsp-diff-');
    cleanups.push(cleanup);
    writeFiles(dir, { ...spec.files, [spec.mainRel]: mainText });
    const client = await LspClient.start({ folders: [dir], progress: false, codeLensRefresh: false });
    cleanups.push(() => client.stop());
    await client.waitReady();
    return { root: dir, client };
  };

  /** What an editor shows: the main file's outline, outgoing calls of its callables, incoming calls of the util file's. */
  const answers = async (client: LspClient, root: string) => {
    const rootUri = fileUri(root);
    const outline = (rel: string) => client.request<DocSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: fileUri(path.join(root, rel)) } });
    const callables = (syms: DocSymbol[]): DocSymbol[] => syms.flatMap((s) => [...(s.kind === 12 || s.kind === 6 ? [s] : []), ...callables(s.children ?? [])]);
    const calls = async (rel: string, s: DocSymbol, direction: 'outgoing' | 'incoming') => {
      const items = await client.request<CallItem[] | null>('textDocument/prepareCallHierarchy', { textDocument: { uri: fileUri(path.join(root, rel)) }, position: s.selectionRange.start });
      if (!items) return null;
      return { item: items[0].data.id, calls: await client.request(`callHierarchy/${direction}Calls`, { item: items[0] }) };
    };
    const mainOutline = await outline(spec.mainRel);
    const out = [];
    for (const s of callables(mainOutline)) out.push(await calls(spec.mainRel, s, 'outgoing'));
    const inc = [];
    for (const s of callables(await outline(spec.utilRel))) inc.push(await calls(spec.utilRel, s, 'incoming'));
    return JSON.parse(JSON.stringify({ mainOutline, out, inc }).split(rootUri).join('<root>')) as unknown;
  };

  /** A random splice anywhere, never inside a CRLF or a surrogate pair. */
  const randomSplice = (text: string, rnd: Rng): Splice => {
    const start = snap(text, rnd.int(text.length + 1));
    const end = snap(text, Math.min(text.length, start + rnd.int(12)));
    let insert = '';
    for (let i = rnd.int(4); i > 0; i--) insert += rnd.pick(spec.damage);
    return { start, deleteCount: end - start, insert };
  };

  const run = async (seed: number, steps: number) => {
    const rnd = prng(seed);
    const live = await workspace(spec.main);
    const uri = fileUri(path.join(live.root, spec.mainRel));
    let text = spec.main;
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
        // A burst of random damage, then its exact undo, edit by edit.
        const undo: Array<{ before: string; s: Splice }> = [];
        for (let i = 1 + rnd.int(4); i > 0; i--) {
          const s = randomSplice(text, rnd);
          undo.push({ before: text, s });
          await send([s]);
          // Requests in a broken state must still answer.
          await live.client.request('textDocument/documentSymbol', { textDocument: { uri } });
        }
        while (undo.length) {
          const { before, s } = undo.pop()!;
          await send([inverse(before, s)]);
        }
      } else await send(spec.structuredEdit(text, rnd, counter));
      if (step === Math.floor(steps / 2)) {
        // One full-text replacement (no range), as some clients send.
        text = text + '\n';
        await live.client.change(uri, ++version, [{ text }]);
      }
    }
    const got = await answers(live.client, live.root);
    // Edits live in the buffer only: the disk still has the original.
    expect(fs.readFileSync(path.join(live.root, spec.mainRel), 'utf8')).toBe(spec.main);
    const fresh = await workspace(text);
    const want = await answers(fresh.client, fresh.root);
    expect(got, `seed ${seed}: live edits vs a fresh index of the final text`).toEqual(want);
    await fresh.client.open(fileUri(path.join(fresh.root, spec.mainRel)), text, 1);
    expect(await answers(fresh.client, fresh.root), `seed ${seed}: fresh buffer`).toEqual(want);
    // The edits really happened.
    expect(text).not.toBe(spec.main);
  };

  return { workspace, answers, run };
}
