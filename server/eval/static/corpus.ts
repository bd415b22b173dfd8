// Training documents for the static table: one per function, method or class of a code base,
// made of the words of its name, signature, docstring and body (the same fields an entity's
// embedding text is built from), extracted by the engine's own parser and extractor.
import type { ExtractedEntity } from '../../src/engine/languages/types';
import { EXTENSIONS, LANGUAGES } from '../../src/engine/languages/registry';
import { Parsers } from '../../src/engine/parse/parsers';
import { discover, IgnoreRules } from '../../src/engine/workspace/discover';
import { processAll } from '../../src/engine/workspace/pool';
import { staticWords } from '../../src/engine/embed/terms';

/** Documents as interned word ids (each document's distinct words), plus the dictionary. */
export interface Corpus {
  words: string[];
  /** Document d's word ids are ids[offsets[d] .. offsets[d+1]). */
  offsets: Int32Array;
  ids: Int32Array;
  files: number;
}

export interface CorpusOptions {
  root: string;
  exclude?: string[];
  /** Keep one file in `sampleEvery` (deterministic, by path order) to bound training time. */
  sampleEvery?: number;
  /** Documents whose docstring's key is in this set are left out (decontamination). */
  skipDocstring?: (doc: string) => boolean;
  /** Cap on distinct words per document: long classes would otherwise dominate co-occurrence. */
  maxWordsPerDoc?: number;
  workers?: number;
  onProgress?: (done: number, total: number) => void;
  /** Sees every extracted entity too (training pairs are collected in the same walk). */
  onEntity?: (e: ExtractedEntity, file: string) => void;
}

/** Walks a code base and calls `visit` with every extracted code entity and its file path. */
export async function forEachEntity(
  root: string,
  opts: { exclude?: string[]; sampleEvery?: number; workers?: number; onProgress?: (done: number, total: number) => void },
  visit: (e: ExtractedEntity, file: string) => void,
): Promise<number> {
  const rules = new IgnoreRules(root, opts.exclude ?? []);
  const found = discover(root, { extensions: EXTENSIONS, exclude: opts.exclude ?? [], maxFileBytes: 1_000_000 }, rules);
  const every = Math.max(1, opts.sampleEvery ?? 1);
  const jobs = found.files.filter((_, i) => i % every === 0).map((f) => ({ path: f.path, knownHash: null, size: f.size }));
  const parsers = new Parsers();
  await parsers.load(LANGUAGES);
  let done = 0;
  await processAll(jobs, { root, maxBytes: 1_000_000, workers: opts.workers }, parsers, (batch) => {
    for (const o of batch) if (o.kind === 'parsed') for (const e of o.extraction.entities) visit(e, o.path);
    done += batch.length;
    opts.onProgress?.(done, jobs.length);
  });
  return jobs.length;
}

const DOC_KINDS = new Set(['function', 'method', 'class']);

/** The words of one entity as a training document. */
export function entityWords(e: ExtractedEntity, file: string): string[] {
  const base = file.replace(/^.*\//, '').replace(/\.[^.]+$/, '');
  return staticWords([base, e.qname, e.signature, e.docstring ?? '', e.body].join(' '));
}

export async function buildCorpus(opts: CorpusOptions): Promise<Corpus> {
  const dict = new Map<string, number>();
  const words: string[] = [];
  const offsets: number[] = [0];
  let ids = new Int32Array(1 << 20);
  let used = 0;
  const cap = opts.maxWordsPerDoc ?? 96;
  const files = await forEachEntity(opts.root, opts, (e, file) => {
    opts.onEntity?.(e, file);
    if (!DOC_KINDS.has(e.kind)) return;
    if (e.docstring && opts.skipDocstring?.(e.docstring)) return;
    const distinct = new Set<number>();
    for (const w of entityWords(e, file)) {
      let id = dict.get(w);
      if (id === undefined) {
        id = words.length;
        dict.set(w, id);
        words.push(w);
      }
      distinct.add(id);
      if (distinct.size >= cap) break;
    }
    if (distinct.size < 2) return; // nothing co-occurs in a one-word document
    if (used + distinct.size > ids.length) {
      const bigger = new Int32Array(ids.length * 2);
      bigger.set(ids);
      ids = bigger;
    }
    for (const id of distinct) ids[used++] = id;
    offsets.push(used);
  });
  return { words, offsets: Int32Array.from(offsets), ids: ids.slice(0, used), files };
}
