// A store with hand-made extractions, for the embedding and vector tests: no parser, no engine,
// just the rows the embedding service reads (entities with signature, docstring and body).
import { openDatabase } from '../../server/src/engine/store/db';
import { Store } from '../../server/src/engine/store/store';
import type { ExtractedEntity, FileExtraction } from '../../server/src/engine/languages/types';

export interface FixtureFunction {
  name: string;
  signature?: string;
  docstring?: string | null;
  body: string;
}

const span = (row: number) => ({ start: { row, column: 0 }, end: { row: row + 2, column: 0 } });

/** One module per file with the given top-level functions. */
export function extraction(file: string, fns: FixtureFunction[]): FileExtraction {
  const mod = file.replace(/\.py$/, '').replace(/\//g, '.');
  const moduleId = `module:${file}:${mod}`;
  const entities: ExtractedEntity[] = [
    { id: moduleId, kind: 'module', name: mod, qname: mod, parent: null, span: span(0), nameSpan: span(0), signature: `module ${mod}`, decorators: [], docstring: null, body: '' },
    ...fns.map((f, i) => ({
      id: `func:${file}:${f.name}`,
      kind: 'function' as const,
      name: f.name,
      qname: f.name,
      parent: moduleId,
      span: span(3 * i + 1),
      nameSpan: span(3 * i + 1),
      signature: f.signature ?? `def ${f.name}()`,
      decorators: [],
      docstring: f.docstring ?? null,
      body: f.body,
    })),
  ];
  return { file, language: 'python', entities, refs: [], imports: [], attrTypes: [], syntaxErrors: 0 };
}

export function openStore(): Store {
  const { db } = openDatabase(':memory:', () => {});
  return new Store(db);
}

export function writeFile(store: Store, file: string, fns: FixtureFunction[], hash = 'h'): void {
  store.transaction(() => {
    store.replaceFile({ path: file, language: 'python', module: file.replace(/\.py$/, ''), hash, size: 1, mtimeMs: 1 }, extraction(file, fns));
  });
}

export function eidOf(store: Store, id: string): number {
  const row = store.entity(id);
  if (!row) throw new Error(`no entity ${id}`);
  return row.eid;
}

/** Small workspace over the tiny model's concepts: each function is about one of them. */
export const CONCEPT_FILES: Record<string, FixtureFunction[]> = {
  'auth.py': [{ name: 'verify_password', signature: 'def verify_password(user, secret)', body: 'password credential verify user secret token' }],
  'db.py': [{ name: 'insert_row', signature: 'def insert_row(table, row)', body: 'sql table row insert commit record' }],
  'net.py': [{ name: 'fetch_url', signature: 'def fetch_url(url)', body: 'http request response url socket fetch' }],
  'stats.py': [{ name: 'average', signature: 'def average(numbers)', body: 'sum total number mean compute' }],
  'files.py': [{ name: 'read_file', signature: 'def read_file(path)', body: 'file path open read disk' }],
};

export function conceptStore(): Store {
  const store = openStore();
  for (const [file, fns] of Object.entries(CONCEPT_FILES)) writeFile(store, file, fns);
  return store;
}
