// What a language extractor produces from one file: plain data, structured-clone safe (it
// crosses worker threads). Language knowledge stops here: everything downstream (store,
// resolution, trace, search) is language-neutral.
import type { Tree, Language, Node, Query } from 'web-tree-sitter';
import type { DocsLevel, EntityKind, Relation } from '../../../../protocol';
import type { CopyFilter, SyntaxNode } from '../parse/syntax-copy';

/** 0-based row; column in UTF-16 code units (web-tree-sitter parses JS strings as UTF-16). */
export interface Point {
  row: number;
  column: number;
}

export interface Span {
  start: Point;
  end: Point;
}

export type CodeKind = Extract<EntityKind, 'module' | 'class' | 'interface' | 'type' | 'enum' | 'namespace' | 'function' | 'method' | 'attr' | 'global'>;

export interface ExtractedEntity {
  id: string;
  kind: CodeKind;
  name: string;
  /** Dotted path inside the file: `User.save`, `outer.inner`; the module's own qname is its name. */
  qname: string;
  /** Id of the enclosing entity (module for top level); null for the module itself. */
  parent: string | null;
  span: Span;
  /** Span of the name identifier (for LSP selectionRange). */
  nameSpan: Span;
  /** One line: `def save(self, force: bool = False) -> None`, `class User(Base)`. */
  signature: string;
  /**
   * Decorators as written, without `@` for Python; with `@` for TypeScript, whose bare words
   * here are member modifiers that change how the member is reached (`get`, `set`, `static`).
   * The language reads them back through `isPropertyGetter`.
   */
  decorators: string[];
  docstring: string | null;
  /** Base-class expressions as written (classes only). */
  bases?: string[];
  /**
   * The type this entity yields, as written: a function's return type (annotated, or inferred
   * from `return Cls(...)`, `return self`), a global's type when it is built by a call
   * (`logger = getLogger()` → `getLogger`). Resolved by the graph in the entity's own scope.
   */
  returns?: string;
  /** A global that is another name (`isfuture = base_futures.isfuture`, `_PyFuture = Future`). */
  alias?: string;
  /** Significant words of the body (identifiers, string words), capped: feeds lexical search. */
  body: string;
  /**
   * Message-like string literals of the body (`raise ValueError(f"header {h!r} is not valid")`
   * gives `header is not valid`), value slots blanked, '\n' between them, capped (../literals.ts): feeds
   * lexical search, so a report quoting an error message finds the code that raises it.
   */
  literals?: string;
  /** Set by index workers (see `entityHash`); absent from a fresh extraction. */
  contentHash?: string;
}

/**
 * How the first segment of a reference binds, when the extractor could tell. Each language maps
 * its own spelling onto these kinds (Python `self`/`cls`/`super()`, TypeScript `this` in an
 * instance member / `this` in a static member / `super`); the graph knows only the kinds.
 */
export type Receiver =
  | { kind: 'self' } // instance of the enclosing class (`self.x`, `this.x`)
  | { kind: 'cls' } // the enclosing class itself (`cls.x`, `this.x` in a static method)
  | { kind: 'super' } // the bases of the enclosing class (`super().x`, `super.x`)
  | { kind: 'typed'; type: string } // a local whose type expression is known (`x = Cls()`, `x: Cls`)
  | { kind: 'expr' }; // some other expression (`f().m()`, `x[0].m()`): target is the member only

export type ReceiverKind = Receiver['kind'];

/** Every receiver kind, in a fixed order: compact encodings (worker batches, pending refs) index into it. */
export const RECEIVER_KINDS = ['self', 'cls', 'super', 'typed', 'expr'] as const satisfies ReadonlyArray<ReceiverKind>;

/**
 * Type expressions `elem:E`: an element of what `E` is (`for t in self.tags`); the graph resolves
 * `E` to a function or attribute and reads its container type.
 */
export const ELEMENT_TYPE = 'elem:';
/** Recorded types `[]T` (a `returns`, an attribute's type): a container of `T`s, itself no class. */
export const CONTAINER_TYPE = '[]';

export type ConfigKind = 'env' | 'settings' | 'constant' | 'file';

export interface RawRef {
  /** Id of the innermost enclosing function/method/class/module. */
  from: string;
  relation: Relation;
  /**
   * The target as written, dotted, after the receiver if any: `validate_token`,
   * `auth.validate_token`, `repo.save` (with receiver self), `DATABASE_URL` (env config key),
   * `settings.DEBUG`, `config/settings.json`.
   */
  target: string;
  receiver?: Receiver;
  /** For READS_CONFIG: which pattern produced it. */
  configKind?: ConfigKind;
  /** Site of the reference (the call expression, raise statement, assignment target, ...). */
  span: Span;
  /**
   * Exception names caught by the try blocks enclosing this site (innermost first); `*` is a
   * handler that catches anything (a bare `except:`, a TypeScript `catch`).
   */
  catches?: string[];
  /** PROPAGATES_ERROR: a bare `raise` re-raising what an `except` caught. */
  reraise?: boolean;
  /** CALLS by reading an attribute (`self.name`): counts only if the target is a property getter. */
  access?: boolean;
}

/**
 * The local a module binds when its whole value is replaced (CommonJS `module.exports = X`):
 * importing the module as a whole then yields `X`. Never a valid identifier.
 */
export const MODULE_VALUE = '<module>';

export interface ImportBinding {
  /** Id of the importing module entity. */
  from: string;
  /** Name bound in this file (`np`, `c` for `from a import b as c`); null for a star import. */
  local: string | null;
  /** Module as written; relative ones keep their dots: `..models`, `os.path`. */
  module: string;
  /** Imported member for `from m import x`; null for `import m`; `*` for a star import. */
  member: string | null;
  span: Span;
}

/** A type known for a class attribute, e.g. `self.repo = Repo()` in `__init__`. */
export interface AttrType {
  /** Id of the class. */
  cls: string;
  attr: string;
  /** Type expression as written (`Repo`, `models.Repo`). */
  type: string;
}

/**
 * The types of the arguments at one call site, for typing the callee's parameters that have no
 * annotation: a parameter is typed when every call site in the workspace passes the same class.
 */
export interface CallArgs {
  /** Id of the innermost enclosing entity of the call, as `RawRef.from`. */
  from: string;
  /** The callee, as in the call's `RawRef` (target and receiver). */
  target: string;
  receiver?: Receiver;
  /**
   * Positional arguments' type expressions ('' where unknown), then keyword ones as
   * `name=type`; `*` for a splat (`*args`, `**kw`), which leaves every parameter unknown.
   */
  args: string[];
}

export interface FileExtraction {
  file: string;
  language: string;
  entities: ExtractedEntity[];
  refs: RawRef[];
  imports: ImportBinding[];
  attrTypes: AttrType[];
  /**
   * Argument types at call sites (languages that infer parameter types from callers). Each has
   * a reference in `refs` whose target ends in its callee's last segment (its CALLS reference):
   * a model read back from the index finds call sites by that name (graph/README.md).
   */
  callArgs?: CallArgs[];
  /** Number of ERROR/MISSING nodes: > 0 means the file has syntax errors (entities still extracted). */
  syntaxErrors: number;
}

export interface SkeletonPart {
  text: string;
  /** Entities in the skeleton with their 0-based line in the skeleton text. */
  entities: Array<{ id: string; skeletonRow: number }>;
}

/**
 * Read-only access to workspace files that are not indexed but steer module resolution
 * (tsconfig.json, package.json). Paths are relative to the workspace root, with `/`.
 */
export interface ProjectFiles {
  /** Text of a file, or undefined when it does not exist or cannot be read. */
  read(rel: string): string | undefined;
  /** Names of the entries of a directory ('' is the root); empty when there is none. */
  list(rel: string): string[];
  /**
   * Names of the folders holding the workspace root, innermost first (`/x/site-packages/flask`
   * → `flask`, `site-packages`, `x`), so a language can tell what the root itself is imported
   * as; `read('../f')` reads beside the root. Absent: nothing outside the root is known.
   */
  rootNames?(): string[];
  /**
   * What `read` was asked for so far: the file's digest, or null when it was missing. The index
   * keeps it, and rebuilds what these files steer when one of them changes.
   */
  readonly reads?: ReadonlyMap<string, string | null>;
}

/**
 * What a language sees of the workspace's layout when it names a file's modules: the project
 * files, which files are indexed, and a cache that lives exactly as long as this layout (the
 * graph builds a new layout when a file the language calls a layout file appears or goes).
 */
export interface WorkspaceLayout {
  project?: ProjectFiles;
  /** Is this workspace path an indexed file? */
  has(file: string): boolean;
  /** The indexed files, in no particular order. */
  files(): Iterable<string>;
  /** `compute()` once per key for this layout: derived facts (source roots, package folders). */
  memo<T>(key: string, compute: () => T): T;
}

/**
 * A dotted name a file is imported under, and where the name comes from: a `declared` source
 * root (a project file's, a `src/` folder, the root when it is itself a package), the `root`
 * of the workspace, or the file's own `basedir` (a folder that scripts and tests run from).
 * Resolution prefers declared, then the importer's own basedir, then the root, then the nearest
 * file of other basedirs (see graph/README.md).
 */
export interface ImportName {
  name: string;
  kind: 'declared' | 'root' | 'basedir';
  /** The folder the name is relative to ('' is the workspace root). */
  dir: string;
}

/**
 * A loaded grammar: its Language, and queries compiled by the same tree-sitter instance (a
 * Query from another instance — the package's default one, or one that aborted — cannot run).
 */
export interface Grammar {
  language: Language;
  /** The compiled query of this source text (compiled once per grammar). */
  query(source: string): Query;
  /**
   * `node`'s subtree copied into plain objects in one pass (parse/syntax-copy.ts), for an
   * extractor that asks many questions of every node. `source` is the text the tree was parsed
   * from; `filter` leaves subtrees out (default: none).
   */
  copy(node: Node, source: string, filter?: CopyFilter): SyntaxNode;
}

/** Options of a skeleton; a language that ignores them shows docstrings whole. */
export interface SkeletonOptions {
  /** `full`, `first-line` (the first line and `...`) or `none`. */
  docs?: DocsLevel;
}

/** Opaque per-buffer state an extractor may keep between extractions. */
export interface ExtractionReuse {
  state?: unknown;
}

/** Everything the engine needs to know about one language. Registered in one table. */
export interface LanguageSupport {
  id: string;
  /**
   * Languages that import and call each other by name share a family (TypeScript, TSX and
   * JavaScript); guesses by name (same directory, unique in workspace) stay inside it. Default: id.
   */
  family?: string;
  extensions: string[];
  /** Absolute path of the grammar's .wasm file. */
  wasmPath(): string;
  /**
   * `reuse` carries language-private state from the previous extraction of the same buffer, so
   * that parts the edit did not touch need not be walked again (live editing).
   */
  extract(tree: Tree, source: string, file: string, grammar: Grammar, reuse?: ExtractionReuse): FileExtraction;
  /** Telegraphic skeleton: signatures, docstrings, class attributes; bodies elided. */
  skeleton(tree: Tree, source: string, file: string, extraction: FileExtraction, options?: SkeletonOptions): SkeletonPart;
  /** Dotted module name of a workspace file (`shop/models.py` → `shop.models`), or null. */
  moduleName(file: string): string | null;
  /**
   * Absolute name of an import's module as written in `fromFile` (`..models` in
   * `shop/api/views.py` → `shop.models`; `@app/x` through a tsconfig path alias), or null if it
   * climbs above the root. `project` lets a language read its project files (tsconfig.json,
   * package.json); without it, only what the specifier itself says is used.
   */
  absoluteModule(module: string, fromFile: string, project?: ProjectFiles): string | null;
  /**
   * The files whose imports `absoluteModule` answered by whether one of `paths` exists (a
   * tsconfig path alias that finds a file now): when one appears or goes, they are extracted
   * again. Absent: a language whose module names do not depend on which files exist.
   */
  importersDecidedBy?(paths: readonly string[], project?: ProjectFiles): Set<string>;
  /** Names bound by the language itself (never resolved by same-directory/workspace guesses). */
  builtins?: ReadonlySet<string>;
  /** Builtin exception → its builtin base (`KeyError` → `LookupError`), for caught-or-escaping. */
  exceptionBases?: Readonly<Record<string, string>>;
  /**
   * A source-encoding declaration (PEP 263 for Python), tried on each of the first two lines;
   * group 1 is the encoding's name. Files without one are UTF-8.
   */
  encodingCookie?: RegExp;
  /**
   * Whether a handler named `handler` catches an exception whose class and base names are
   * `names`, when the language decides it by name alone (Python: `BaseException` catches all,
   * `Exception` all but the exit signals); undefined: the graph compares classes.
   */
  handlerCatches?(handler: string, names: ReadonlySet<string>): boolean | undefined;
  /**
   * Files that only declare what lives elsewhere (TypeScript `.d.ts`): their entities serve
   * resolution and skeletons but rank last in search, after the implementations they describe.
   */
  isDeclarationFile?(file: string): boolean;
  /** Name of the method a class runs when it is called/constructed (`__init__`, `constructor`). */
  constructorName: string;
  /** The implicit root class, never an external base (`object`); none if the language has none. */
  rootClass?: string;
  /** Is a method with these decorators (as extracted) read as an attribute (a property getter)? */
  isPropertyGetter(decorators: readonly string[]): boolean;
  /**
   * Is a definition with these decorators a typing stub of another of the same name (Python
   * `@overload`)? Stubs fold into the definition that is not one, else into the first stub.
   */
  isOverloadStub?(decorators: readonly string[]): boolean;
  /**
   * The names an absolute import finds a workspace file under (Python: its dotted path from
   * each source root, and from its basedir). Default: its module name, as `declared`. A
   * relative import finds a file by its module name alone (`moduleName`, from the root).
   */
  importNames?(file: string, layout: WorkspaceLayout): ImportName[];
  /**
   * The folder whose files `file` imports by their bare names first (Python: the first
   * ancestor without `__init__.py`, what pytest and a script's run put on the path).
   */
  basedir?(file: string, layout: WorkspaceLayout): string;
  /**
   * Files whose appearing or going changes the import names of others (`__init__.py`,
   * `setup.py`): every file under their folder is named anew and its references resolved again.
   */
  isLayoutFile?(file: string): boolean;
  /**
   * Project files (workspace paths, `../` above the root) that steer only the names
   * `importNames` gives (Python: `pyproject.toml`, `setup.cfg`, `setup.py`, an `__init__.py`
   * above the root). When one changes, the files under its folder are named anew and their
   * importers resolved again, as when a layout file appears; nothing is parsed again. A changed
   * project file no language claims here (`tsconfig.json`: its aliases are bound as each file
   * is loaded) makes the next index run parse and resolve every file again.
   */
  namesOnlyProjectFile?(rel: string): boolean;
  /**
   * The part of a project file (`ProjectFiles.read`) that this language's module naming reads,
   * as a string, or undefined to mean the whole text. The index keeps its digest
   * (workspace/project.ts), so an edit elsewhere in the file (a dependency added to a
   * package.json) does not make the next run index anything again. It must hold everything the
   * language reads of the file; a file two languages view differently is kept whole.
   */
  projectFileView?(rel: string, text: string): string | undefined;
  /**
   * A top-level module the language knows to live outside the workspace (Python's standard
   * library, a package installed in the project's virtual environment): an import of it is
   * never bound to a workspace file found only through another folder's basedir.
   */
  isExternalModule?(top: string, layout: WorkspaceLayout): boolean;
  /**
   * One module written several ways in one folder (a source and its stub, its compiled output,
   * its declarations: `x.py`/`x.pyi`, `x.ts`/`x.js`/`x.d.ts`): how near `file` is to what an
   * import written in `importer` means, 0 nearest. Only the nearest of such files are
   * candidates. Default: all equal (each a candidate, ambiguous).
   */
  sameModuleRank?(importer: string, file: string): number;
  /**
   * Files whose top-level functions supply a test function's parameters by name (pytest
   * fixtures in `conftest.py` files), nearest first. A parameter the extractor types as
   * `fixture:NAME` has the type of what fixture NAME returns: one in the test's own scope
   * (defined or imported), else the first of these files that defines it.
   */
  fixtureScopes?(file: string): string[];
}
