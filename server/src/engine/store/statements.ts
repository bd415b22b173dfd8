// Every statement the store runs, prepared once per connection, when first used. Kept apart
// from store.ts so that file reads as what the store does, not as SQL text.
import type { Statement } from 'better-sqlite3';
import { CHANGE_KEY_SQL, type Db } from './db';

const ENTITY_COLS = `e.eid, e.id, e.kind, e.name, e.qname, f.path AS path, e.parent, e.sr, e.sc, e.er, e.ec,
  e.nsr, e.nsc, e.ner, e.nec, e.signature, e.docstring, e.decorators`;
const REF_COLS = `r.rid, r.fid, f.path AS path, s.id AS source, r.relation, r.target, r.last, r.receiver, r.rtype,
  r.config_kind, r.catches, r.reraise, r.access, r.sr, r.sc, r.er, r.ec`;

const INSERT_ENTITY = `INSERT INTO entities(id, kind, name, qname, fid, parent, sr, sc, er, ec, nsr, nsc, ner, nec,
    signature, docstring, decorators, bases, returns, alias, body, literals, content_hash)
  VALUES (@id, @kind, @name, @qname, @fid, @parent, @sr, @sc, @er, @ec, @nsr, @nsc, @ner, @nec,
    @signature, @docstring, @decorators, @bases, @returns, @alias, @body, @literals, @contentHash)`;

/**
 * Per file: its fid, then its entities, import bindings and attribute types as JSON arrays, each
 * row ending in its rowid (the order written). No ORDER BY in the aggregates: each subquery reads
 * its table through the fid index, in rowid order, and a sorter per file cost a third of the
 * statement; the reader checks the order (read-rows.ts `parseModelRows`).
 */
const MODEL_ROWS = `SELECT f.fid,
    (SELECT json_group_array(json_array(e.id, e.kind, e.name, NULLIF(e.qname, e.name), e.parent, json(e.bases), e.returns, e.alias, json(e.decorators), e.eid)) FROM entities e WHERE e.fid = f.fid),
    (SELECT json_group_array(json_array(i.source, i.local, i.module, i.member, i.rowid)) FROM imports i WHERE i.fid = f.fid),
    (SELECT json_group_array(json_array(a.cls, a.attr, a.type, a.rowid)) FROM attr_types a WHERE a.fid = f.fid)
  FROM files f`;

/** MODEL_ROWS from the file after a path on, at most a number of files (-1: all), in path order. */
export const MODEL_ROWS_AFTER = `${MODEL_ROWS} WHERE f.path > ? ORDER BY f.path LIMIT ?`;

export type Statements = ReturnType<typeof prepareStatements>;

export function prepareStatements(db: Db) {
  const p = (sql: string) => db.prepare(sql);
  return lazily({
    fileByPath: () => p('SELECT * FROM files WHERE path = ?'),
    metaGet: () => p('SELECT value FROM meta WHERE key = ?'),
    metaSet: () => p('INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)'),
    metaDelete: () => p('DELETE FROM meta WHERE key = ?'),
    bumpEntityGeneration: () => p("INSERT INTO meta(key, value) VALUES ('entity_generation', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"),
    allFiles: () => p('SELECT * FROM files ORDER BY path'),
    // As arrays: 1.8k rows of the stdlib in ~2.5 ms, against ~9 ms as objects of every column.
    fileStamps: () => p('SELECT fid, path, hash, size, mtime_ms FROM files ORDER BY path').raw(),
    upsertFile: () => p(`INSERT INTO files(path, language, module, hash, size, mtime_ms, syntax_errors)
      VALUES (@path, @language, @module, @hash, @size, @mtimeMs, @syntaxErrors)
      ON CONFLICT(path) DO UPDATE SET language = excluded.language, module = excluded.module, hash = excluded.hash,
        size = excluded.size, mtime_ms = excluded.mtime_ms, syntax_errors = excluded.syntax_errors
      RETURNING fid`),
    touchFile: () => p('UPDATE files SET mtime_ms = ?, size = ? WHERE fid = ?'),
    deleteFile: () => p('DELETE FROM files WHERE fid = ?'),
    entityIdsOfFile: () => p('SELECT eid, id FROM entities WHERE fid = ?'),
    entitiesOfFid: () => p(`SELECT eid, id, kind, name, qname, parent, sr, sc, er, ec, nsr, nsc, ner, nec, content_hash
      FROM entities WHERE fid = ?`),
    refsOfFid: () => p('SELECT rid, src, relation, target, receiver, rtype, config_kind, catches, reraise, access, sr, sc, er, ec FROM refs WHERE fid = ?'),
    moveRef: () => p('UPDATE refs SET sr = ?, sc = ?, er = ?, ec = ? WHERE rid = ?'),
    shiftEntities: () => p(`UPDATE entities SET sr = sr + (CASE WHEN sr > @row THEN @d ELSE 0 END), er = er + @d,
      nsr = nsr + (CASE WHEN nsr > @row THEN @d ELSE 0 END), ner = ner + (CASE WHEN ner > @row THEN @d ELSE 0 END)
      WHERE fid = @fid AND er > @row`),
    shiftRefs: () => p(`UPDATE refs SET sr = sr + (CASE WHEN sr > @row THEN @d ELSE 0 END), er = er + @d WHERE fid = @fid AND er > @row`),
    deleteRef: () => p('DELETE FROM refs WHERE rid = ?'),
    upsertEntity: () => p(`${INSERT_ENTITY}
      ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, name = excluded.name, qname = excluded.qname,
        fid = excluded.fid, parent = excluded.parent, sr = excluded.sr, sc = excluded.sc, er = excluded.er,
        ec = excluded.ec, nsr = excluded.nsr, nsc = excluded.nsc, ner = excluded.ner, nec = excluded.nec,
        signature = excluded.signature, docstring = excluded.docstring, decorators = excluded.decorators,
        bases = excluded.bases, returns = excluded.returns, alias = excluded.alias, body = excluded.body,
        literals = excluded.literals, content_hash = excluded.content_hash
      RETURNING eid`),
    insertFile: () => p('INSERT INTO files(path, language, module, hash, size, mtime_ms, syntax_errors) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    // A bulk load's plain insert: same columns and parameters (`entityParams`), nothing to upsert.
    insertEntity: () => p(INSERT_ENTITY),
    entityEids: () => p('SELECT id, eid FROM entities'),
    maxEid: () => p('SELECT coalesce(max(eid), 0) AS n FROM entities'),
    upsertVirtual: () => p(`INSERT INTO entities(id, kind, name, qname, signature) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(id) DO NOTHING`),
    deleteEntity: () => p('DELETE FROM entities WHERE eid = ?'),
    refsIntoEid: () => p('SELECT DISTINCT rid FROM edges WHERE dst = ?'),
    // Files whose imports may name a module (absolute, relative, or as a member of its package;
    // dotted as in Python, or a path as in TypeScript: '../models', '../models/index', './payments.js').
    pathsImportingName: () => p(`SELECT DISTINCT f.path FROM imports i JOIN files f ON f.fid = i.fid
      WHERE i.member = @n OR i.module = @n OR i.module LIKE '%.' || @n OR i.module LIKE @n || '.%' OR i.module LIKE '%.' || @n || '.%'
        OR i.module LIKE '%/' || @n OR i.module LIKE '%/' || @n || '.%' OR i.module LIKE '%/' || @n || '/index' OR i.module LIKE '%/' || @n || '/index.%'`),
    importedNames: () => p('SELECT f.path, i.member, i.module FROM imports i JOIN files f ON f.fid = i.fid').raw(),
    refTypes: () => p('SELECT DISTINCT rtype FROM refs WHERE rtype IS NOT NULL').pluck(),
    refsOfTypes: () => p('SELECT rid, rtype FROM refs WHERE rtype IN (SELECT value FROM json_each(?))'),
    // A substring pre-filter in SQL (the caller checks whole words): no row reaches JS unless
    // its type mentions one of the names.
    typedRefsMentioningOne: () => p('SELECT rid, rtype FROM refs WHERE rtype IS NOT NULL AND instr(rtype, ?) > 0'),
    // Other connections' commits move it (this one's do not).
    dataVersion: () => p('PRAGMA data_version').pluck(),
    changeKey: () => p(CHANGE_KEY_SQL).pluck(),
    aliasesOfMember: () => p('SELECT DISTINCT local FROM imports WHERE member = ? AND local IS NOT NULL AND local <> member'),
    pathsUnder: () => p(`SELECT path FROM files WHERE substr(path, 1, length(@dir) + 1) = @dir || '/'`),
    deleteEdgesIntoEid: () => p('DELETE FROM edges WHERE dst = ?'),
    ftsInsert: () => p('INSERT INTO entities_fts(rowid, name, name_split, signature, docstring, path, body, literals) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
    ftsDelete: () => p('DELETE FROM entities_fts WHERE rowid = ?'),
    ftsFill: () => p(`INSERT INTO entities_fts(rowid, name, name_split, signature, docstring, path, body, literals)
      SELECT e.eid, e.name, nsccn_split(e.qname), e.signature, coalesce(e.docstring, ''), nsccn_path_words(f.path), e.body, e.literals
      FROM entities e JOIN files f ON f.fid = e.fid WHERE e.eid >= ?`),
    refsOfFileRids: () => p('SELECT rid FROM refs WHERE fid = ?'),
    deleteEdgesOfFile: () => p('DELETE FROM edges WHERE rid IN (SELECT rid FROM refs WHERE fid = ?)'),
    deleteRefsOfFile: () => p('DELETE FROM refs WHERE fid = ?'),
    insertRef: () => p(`INSERT INTO refs(fid, src, relation, target, last, receiver, rtype, config_kind, catches, reraise, access, sr, sc, er, ec)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    deleteImportsOfFile: () => p('DELETE FROM imports WHERE fid = ?'),
    insertImport: () => p('INSERT INTO imports(fid, source, local, module, member, sr, sc, er, ec) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    deleteAttrTypesOfFile: () => p('DELETE FROM attr_types WHERE fid = ?'),
    insertAttrType: () => p('INSERT INTO attr_types(fid, cls, attr, type) VALUES (?, ?, ?, ?)'),
    deleteCallArgsOfFile: () => p('DELETE FROM call_args WHERE fid = ?'),
    insertCallArgs: () => p('INSERT INTO call_args(fid, name, calls) VALUES (?, ?, ?)'),
    upsertCallArgs: () => p('INSERT INTO call_args(fid, name, calls) VALUES (?, ?, ?) ON CONFLICT(fid, name) DO UPDATE SET calls = excluded.calls'),
    deleteCallArgsNamed: () => p('DELETE FROM call_args WHERE fid = ? AND name = ?'),
    callArgsOfFid: () => p('SELECT name, calls FROM call_args WHERE fid = ?').raw(),
    deleteSkeleton: () => p('DELETE FROM skeletons WHERE fid = ?'),
    deleteEdgesOfRef: () => p('DELETE FROM edges WHERE rid = ?'),
    insertEdge: () => p('INSERT INTO edges(rid, dst, ambiguous, caught, dispatch) SELECT ?, eid, ?, ?, ? FROM entities WHERE id = ?'),
    insertEdgeEid: () => p('INSERT INTO edges(rid, dst, ambiguous, caught, dispatch) VALUES (?, ?, ?, ?, ?)'),
    entityById: () => p(`SELECT ${ENTITY_COLS} FROM entities e LEFT JOIN files f ON f.fid = e.fid WHERE e.id = ?`),
    entityByEid: () => p(`SELECT ${ENTITY_COLS} FROM entities e LEFT JOIN files f ON f.fid = e.fid WHERE e.eid = ?`),
    entitiesByEid: () => p(`SELECT ${ENTITY_COLS} FROM entities e LEFT JOIN files f ON f.fid = e.fid WHERE e.eid IN (SELECT value FROM json_each(?))`),
    entitiesOfPath: () => p(`SELECT ${ENTITY_COLS} FROM entities e JOIN files f ON f.fid = e.fid WHERE f.path = ? ORDER BY e.sr, e.sc, e.eid`),
    entitiesByName: () => p(`SELECT ${ENTITY_COLS} FROM entities e LEFT JOIN files f ON f.fid = e.fid WHERE e.name = ? LIMIT 50`),
    entitiesByQname: () => p(`SELECT ${ENTITY_COLS} FROM entities e LEFT JOIN files f ON f.fid = e.fid WHERE e.name = ? AND e.qname = ? AND e.fid IS NOT NULL ORDER BY e.id LIMIT 20`),
    entitiesByQnameUnder: () => p(`SELECT ${ENTITY_COLS} FROM entities e JOIN files f ON f.fid = e.fid WHERE e.name = ? AND e.qname = ? AND f.path LIKE ? ESCAPE '\\' ORDER BY e.id LIMIT 50`),
    // Search ranking: an entity's body words and how many entities call it (its popularity).
    rankingFacts: () => p(`SELECT e.eid, e.body,
      (SELECT count(DISTINCT r.src) FROM edges x JOIN refs r ON r.rid = x.rid WHERE x.dst = e.eid AND r.relation = 'CALLS') AS callers
      FROM entities e WHERE e.eid IN (SELECT value FROM json_each(?))`),
    // What the symbol model holds of each file, one JSON array per table (read-rows.ts ModelFileRows), file by file in path order.
    modelRows: () => p(MODEL_ROWS_AFTER).raw(),
    callArgsOfPath: () => p('SELECT c.calls FROM call_args c JOIN files f ON f.fid = c.fid WHERE f.path = ?').pluck(),
    callArgsOfPathNamed: () => p('SELECT c.calls FROM call_args c JOIN files f ON f.fid = c.fid WHERE f.path = ? AND c.name = ?').pluck(),
    pathsReferring: () => p('SELECT DISTINCT f.path FROM refs r JOIN files f ON f.fid = r.fid WHERE r.last = ?').pluck(),
    refByRid: () => p(`SELECT ${REF_COLS} FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src WHERE r.rid = ?`),
    refsOfPath: () => p(`SELECT ${REF_COLS} FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src WHERE f.path = ?`),
    allRefs: () => p(`SELECT ${REF_COLS} FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src`),
    // Edges between entities of one list, by id (search's graph boost over its top hits).
    linksAmong: () => p(`SELECT s.id, t.id FROM entities s JOIN refs r ON r.src = s.eid JOIN edges d ON d.rid = r.rid JOIN entities t ON t.eid = d.dst
      WHERE s.id IN (SELECT value FROM json_each(@ids)) AND t.id IN (SELECT value FROM json_each(@ids)) AND r.relation IN ('CALLS', 'INHERITS', 'IMPORTS')`).raw(),
    callTargetsNamed: () => p(`SELECT DISTINCT t.id FROM refs r JOIN edges d ON d.rid = r.rid JOIN entities t ON t.eid = d.dst WHERE r.last = ? AND r.relation = 'CALLS'`).pluck(),
    callTargetsOfPath: () => p(`SELECT r.last, t.id FROM refs r JOIN files f ON f.fid = r.fid JOIN edges d ON d.rid = r.rid JOIN entities t ON t.eid = d.dst WHERE f.path = ? AND r.relation = 'CALLS'`),
    callTargetsOfPathNamed: () => p(`SELECT r.last, t.id FROM refs r JOIN files f ON f.fid = r.fid JOIN edges d ON d.rid = r.rid JOIN entities t ON t.eid = d.dst
      WHERE f.path = ? AND r.relation = 'CALLS' AND r.last IN (SELECT value FROM json_each(?))`),
    paramTypedRefsOfPath: () => p(`SELECT ${REF_COLS} FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src WHERE f.path = ? AND r.rtype IS NOT NULL AND instr(r.rtype, 'param:') > 0`),
    refsAfterRid: () => p(`SELECT rid, fid, src, relation, target, receiver, rtype, config_kind, catches, access FROM refs WHERE rid > ? ORDER BY rid LIMIT ?`).raw(),
    fidPaths: () => p('SELECT fid, path FROM files').raw(),
    eidIds: () => p('SELECT eid, id FROM entities').raw(),
    idOfEid: () => p('SELECT id FROM entities WHERE eid = ?').pluck(),
    refsByLast: () => p(`SELECT ${REF_COLS} FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src WHERE r.last = ?`),
    outgoing: () => p(`SELECT ${REF_COLS}, t.id AS edge_target, d.ambiguous, d.caught, d.dispatch FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src
      LEFT JOIN edges d ON d.rid = r.rid LEFT JOIN entities t ON t.eid = d.dst
      WHERE r.src = (SELECT eid FROM entities WHERE id = ?) AND (r.access = 0 OR d.rid IS NOT NULL) ORDER BY r.sr, r.sc`),
    incoming: () => p(`SELECT ${REF_COLS}, t.id AS edge_target, d.ambiguous, d.caught, d.dispatch FROM edges d
      JOIN entities t ON t.eid = d.dst JOIN refs r ON r.rid = d.rid JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src
      WHERE d.dst = (SELECT eid FROM entities WHERE id = ?) ORDER BY f.path, r.sr, r.sc`),
    incomingByName: () => p(`SELECT ${REF_COLS}, NULL AS edge_target, 0 AS ambiguous, 0 AS caught, 0 AS dispatch FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src
      WHERE r.last = ? AND r.access = 0 AND NOT EXISTS (SELECT 1 FROM edges d WHERE d.rid = r.rid)`),
    raisers: () => p(`SELECT DISTINCT r.src FROM edges d JOIN refs r ON r.rid = d.rid
      WHERE d.dst = ? AND d.caught = 0 AND r.relation = 'PROPAGATES_ERROR' AND r.src <> d.dst LIMIT ?`).pluck(),
    countFiles: () => p('SELECT count(*) AS n FROM files'),
    countEntities: () => p("SELECT count(*) AS n FROM entities WHERE fid IS NOT NULL"),
    countRefs: () => p('SELECT count(*) AS n FROM refs'),
    // Two subqueries: SQLite answers a lone min() or max() of the rowid from the tree's edge.
    refRidSpan: () => p('SELECT coalesce((SELECT max(rid) FROM refs), 0) - coalesce((SELECT min(rid) FROM refs), 1) + 1 AS n'),
    countEdges: () => p('SELECT count(*) AS n FROM edges'),
    entityKindCounts: () => p('SELECT kind, count(*) AS n FROM entities GROUP BY kind'),
    edgeRelationCounts: () => p('SELECT r.relation, count(*) AS n FROM edges d JOIN refs r ON r.rid = d.rid WHERE d.dispatch = 0 GROUP BY r.relation'),
    countDispatchEdges: () => p('SELECT count(*) AS n FROM edges WHERE dispatch = 1'),
    unresolvedCount: () => p('SELECT count(*) AS n FROM refs r WHERE r.access = 0 AND NOT EXISTS (SELECT 1 FROM edges d WHERE d.rid = r.rid)'),
    skeletonGet: () => p('SELECT s.hash, s.json FROM skeletons s JOIN files f ON f.fid = s.fid WHERE f.path = ?'),
    skeletonPut: () => p('INSERT OR REPLACE INTO skeletons(fid, hash, json) VALUES ((SELECT fid FROM files WHERE path = ?), ?, ?)'),
    idsNamedFrom: () => p(`SELECT id FROM entities WHERE name >= ? AND name < ? LIMIT 200`),
    idsLike: () => p(`SELECT id FROM entities WHERE id LIKE ? ESCAPE '\\' LIMIT 200`),
    // NOT IN builds the set of targets once: no index on edges.dst is needed (a bulk load has none).
    pruneVirtual: () => p(`DELETE FROM entities WHERE fid IS NULL AND eid NOT IN (SELECT dst FROM edges)`),
  });
}

/**
 * Each statement prepared on its first use, then kept: preparing all of them took ~3.5 ms of
 * every command's start (a query runs a handful), and a statement's SQL is still checked by the
 * tests that run it.
 */
function lazily<T extends Record<string, () => Statement>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const out = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(makers) as Array<keyof T>) {
    let made: ReturnType<T[typeof key]> | undefined;
    Object.defineProperty(out, key, { enumerable: true, get: () => (made ??= makers[key]() as ReturnType<T[typeof key]>) });
  }
  return out;
}
