// The index schema. Bump SCHEMA_VERSION for any change of tables or of what a column means: an
// index of another version is rebuilt from source (it is derived data; see store/db.ts).
export const SCHEMA_VERSION = 11; // 11: call_args one row per file and callee name (an older build read one row per file); 10: entities.literals and its lexical column (an older index has neither: rebuilt); 6: edges.dispatch; 7: call_args (both branches said 6: an index of either is rebuilt); 8: call_args one row per file; 9: call_args lists each caller once (an older build could not read it), and the vectors kept for re-scoring are bytes (an older build would find none)
// Bump ANALYSIS_VERSION for any change of what extraction or resolution make of the same files
// (entities, references, edges): an index made by another version is rebuilt, rather than left
// answering with the old analysis for every file that has not changed since.
export const ANALYSIS_VERSION = 5; // 5: a JavaScript/TypeScript call through `f.call(…)` / `f.apply(…)` is a call of `f`, a package imports itself by its own name, a type expression naming both a value and a class or interface (declaration merging) means the type; 1: first recorded (indexes without it predate it: rebuilt); 2: container types ([]T, elem:E) and MROs not cached when cut; 3: module files in path order, one module written several ways (x.py + x.pyi, x.ts + x.js + x.d.ts) is the file the importer means, a method wins over an attribute of its name; 4: a dual build (x.js + x.mjs + x.cjs) is the importer's module family, getters are called inside chains, on call results and through imported objects and type what is reached through them, TS locals, attributes, returns and elements are typed by their values, `readonly`/`override` constructor parameters are fields, a global assigned under `global` holds what is assigned

export const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS files (
  fid INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  language TEXT NOT NULL,
  module TEXT,
  hash TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  syntax_errors INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS entities (
  -- AUTOINCREMENT: an eid is never reused, so nothing keyed on it (edges, vectors) can point
  -- at a different entity after a delete.
  eid INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  qname TEXT NOT NULL,
  fid INTEGER,
  parent TEXT,
  sr INTEGER, sc INTEGER, er INTEGER, ec INTEGER,
  nsr INTEGER, nsc INTEGER, ner INTEGER, nec INTEGER,
  signature TEXT NOT NULL DEFAULT '',
  docstring TEXT,
  decorators TEXT,
  bases TEXT,
  returns TEXT,
  alias TEXT,
  body TEXT NOT NULL DEFAULT '',
  literals TEXT NOT NULL DEFAULT '',
  content_hash TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS entities_fid ON entities(fid);
CREATE INDEX IF NOT EXISTS entities_name ON entities(name);

-- What the code says: one row per raw reference, kept so it can be resolved again.
CREATE TABLE IF NOT EXISTS refs (
  rid INTEGER PRIMARY KEY,
  fid INTEGER NOT NULL,
  src INTEGER NOT NULL,          -- entities.eid of the enclosing entity
  relation TEXT NOT NULL,
  target TEXT NOT NULL,
  last TEXT NOT NULL,
  receiver TEXT,
  rtype TEXT,
  config_kind TEXT,
  catches TEXT,
  reraise INTEGER NOT NULL DEFAULT 0,
  access INTEGER NOT NULL DEFAULT 0,
  sr INTEGER NOT NULL, sc INTEGER NOT NULL, er INTEGER NOT NULL, ec INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_fid ON refs(fid);
CREATE INDEX IF NOT EXISTS refs_src ON refs(src);
CREATE INDEX IF NOT EXISTS refs_last ON refs(last);
-- Typed receivers only (a sixth of the refs): what an edit that moves a name scans.
CREATE INDEX IF NOT EXISTS refs_rtype ON refs(rtype) WHERE rtype IS NOT NULL;

-- What it resolves to: zero (unresolved), one, or several (ambiguous) rows per ref. Source and
-- relation are the ref's; integers keep the largest tables small.
CREATE TABLE IF NOT EXISTS edges (
  rid INTEGER NOT NULL,
  dst INTEGER NOT NULL,          -- entities.eid of the target
  ambiguous INTEGER NOT NULL DEFAULT 0,
  caught INTEGER NOT NULL DEFAULT 0,
  -- 1: a method call that may reach this override in a subclass (dynamic dispatch), not the
  -- method the call names; 0: what the call names (certain, or one of ambiguous candidates).
  dispatch INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS edges_rid ON edges(rid);
CREATE INDEX IF NOT EXISTS edges_dst ON edges(dst);

CREATE TABLE IF NOT EXISTS imports (
  fid INTEGER NOT NULL,
  source TEXT NOT NULL,
  local TEXT,
  module TEXT NOT NULL,
  member TEXT,
  sr INTEGER NOT NULL, sc INTEGER NOT NULL, er INTEGER NOT NULL, ec INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_fid ON imports(fid);
CREATE INDEX IF NOT EXISTS imports_member ON imports(member);

CREATE TABLE IF NOT EXISTS attr_types (
  fid INTEGER NOT NULL,
  cls TEXT NOT NULL,
  attr TEXT NOT NULL,
  type TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attr_types_fid ON attr_types(fid);

-- Argument types at call sites (languages/types.ts CallArgs), one row per file and callee name
-- (the target's last segment): typing a parameter by its callers reads the sites of one name,
-- and resolving site-packages asks for 12.7K names' 276K sites of 703K (a row per file had every
-- site of a file read for one of them; a row per site was a fifth of the rows a first index
-- writes). calls: JSON {callers, sites}, each site [caller's place in callers, target,
-- receiver, rtype, args], receiver and rtype as in refs, args the type expressions
-- (store/call-args-row.ts).
-- (A rowid table: rows of a WITHOUT ROWID table past ~1 KB, a tenth of them, each took
-- overflow pages of their own: 29 MB of pages for 19.7 MB of rows on the stdlib.)
CREATE TABLE IF NOT EXISTS call_args (
  fid INTEGER NOT NULL,
  name TEXT NOT NULL,
  calls TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS call_args_key ON call_args(fid, name);

CREATE TABLE IF NOT EXISTS skeletons (
  fid INTEGER PRIMARY KEY,
  hash TEXT NOT NULL,
  json TEXT NOT NULL
);

-- Lexical index over entities; rowid = entities.eid.
CREATE VIRTUAL TABLE IF NOT EXISTS entities_fts USING fts5(
  name, name_split, signature, docstring, path, body, literals,
  content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
`;

/**
 * Indexes that a bulk load drops and rebuilds at the end: their keys arrive in random order, so
 * one sort beats keeping them. The others (by fid, src, rid) grow at the end and stay.
 */
export const BULK_INDEXES = ['entities_name', 'refs_last', 'refs_rtype', 'edges_dst'];

/** Tables holding derived graph data, emptied by a rebuild. */
export const DATA_TABLES = ['files', 'entities', 'refs', 'edges', 'imports', 'attr_types', 'call_args', 'skeletons'];
