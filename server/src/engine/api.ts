// Plain-data types of the engine's public surface, shared by its modules and the faces
// (LSP, CLI, MCP). No LSP types here: positions are plain {line, character} objects.
import type { EntityKind, Relation, Position } from '../../../protocol';
import type { Span } from './languages/types';

export type { Position };

export interface Range {
  start: Position;
  end: Position;
}

/** An incremental or full text change, shaped like LSP's TextDocumentContentChangeEvent. */
export type TextChange = { range: Range; text: string } | { text: string };

/** An entity as stored. Rows/columns are 0-based (UTF-16 columns). */
export interface EntityRow {
  id: string;
  kind: EntityKind;
  name: string;
  qname: string;
  file: string | null;
  parent: string | null;
  span: Span | null;
  nameSpan: Span | null;
  signature: string;
  docstring: string | null;
  decorators: string[];
}

/** An edge as stored, with its site. */
export interface EdgeRow {
  source: string;
  /** Entity id, or null when the target is not (yet) an entity. */
  target: string | null;
  /** The target's name as written (always set). */
  targetName: string;
  relation: Relation;
  ambiguous: boolean;
  caught: boolean;
  /**
   * A dispatch edge ("may call"): the call names a method, and this override of it in a
   * subclass may run instead. Certain calls (what the call names) have false.
   */
  dispatch: boolean;
  /** Site of the reference in the source entity's file. */
  file: string;
  span: Span;
}

export interface ModelSettings {
  /** Hugging Face model id or a local folder; `none` switches the model stream off. */
  model?: string;
  /** Folder with local models (transformers.js `localModelPath`). */
  localModelPath?: string;
  /** Cache folder for downloaded models. */
  cacheDir?: string;
  /** Allow downloads from the model hub (default true, as the library does). */
  allowRemote?: boolean;
  /** `auto` (default), `float` or `binary` vector search. */
  quantization?: 'auto' | 'float' | 'binary';
}

export interface EngineOptions {
  root: string;
  /** Extra glob patterns to skip (gitignore syntax), on top of .gitignore and the built-ins. */
  exclude?: string[];
  /** Files larger than this are skipped (default 1 MB). */
  maxFileBytes?: number;
  /** Where the index lives; default `<root>/.nsccn/index.db`. `:memory:` for tests. */
  dbPath?: string;
  /** Worker threads for parsing (default: cores, at most 4; 0 = parse on the main thread). */
  workers?: number;
  embeddings?: ModelSettings;
  /** Receives one-line diagnostics (skipped files, rebuilds, stream availability). */
  log?: (message: string) => void;
  /**
   * A one-shot query (the CLI): `open` loads only the index. Grammars load when a file must be
   * parsed, the embedder when a search or `finishEmbeddings` asks; no background work starts.
   * Editor buffers need grammars: call `loadGrammars` before `openDocument`. Default false (a server).
   */
  lazy?: boolean;
  /**
   * When a server's engine loads the tree-sitter grammars: during `open` (the default), in the
   * `background` after it (answers from the index come ~60 ms sooner; wait for
   * `grammarsPending()` before `openDocument`), or only `when-parsing` on this thread (an index
   * command: a run large enough for worker threads parses there, and ~30 MB of parsers on this
   * thread would sit unused; `loadGrammars` before `openDocument` or a skeleton).
   */
  grammars?: 'open' | 'background' | 'when-parsing';
  /**
   * When SQLite's integrity check of an existing index runs (it reads the whole file): at `open`
   * (the default; a damaged index is rebuilt there), in the `background` after open (a server:
   * a damaged index is reported and rebuilt at its next opening), or `after-damage` only (the
   * default of a lazy engine: a damaged page met by a query marks the index, see `noteError`).
   */
  integrity?: 'open' | 'background' | 'after-damage';
}

export interface IndexProgress {
  /**
   * `reading`: files are read, parsed and written (`done` / `total` count files); `resolving`:
   * the references they hold are resolved into edges (`done` / `total` count references: on
   * site-packages ~20 s after the last file, a quarter of a first index).
   */
  phase: 'reading' | 'resolving';
  done: number;
  total: number;
  /**
   * How far the phase is, 0–1. Reading, by the bytes of the files it reads: the largest files
   * go first, so a count of files says 10 % while half the work is done (the stdlib: 10 % of its
   * files after 58 % of the parsing time). What a progress bar should show.
   */
  fraction: number;
  file?: string;
}

/** Emitted after the graph changed (index run, buffer edit, watched file change). */
export interface GraphChange {
  files: string[];
}
