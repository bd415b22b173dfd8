// The one way a file's new content reaches the index, whether it came from disk or from an
// editor buffer: store rows first, then the symbol model, resolution at the next flush.
import type { FileExtraction, LanguageSupport } from '../languages/types';
import type { Graph } from '../graph/graph';
import { importRefs } from '../graph/imports';
import type { FileMeta, Store } from '../store/store';

export function applyExtraction(store: Store, graph: Graph, lang: LanguageSupport, meta: FileMeta, ex: FileExtraction, fromRun = false): void {
  graph.load(); // the model must hold the file's previous state before its rows change
  const full: FileExtraction = { ...ex, refs: ex.refs.concat(importRefs(ex, lang)) };
  const result = (fromRun ? store.insertFile(meta, full) : null) ?? store.replaceFile(meta, full);
  graph.fileChanged(meta.path, lang, meta.module, full, result, fromRun);
}

export function applyDeletion(store: Store, graph: Graph, path: string, fromRun = false): void {
  graph.load();
  graph.fileDeleted(path, store.deleteFile(path), fromRun);
}
