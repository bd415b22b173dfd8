// `node dist/server/eval/graph-dump.js INDEX.db [OUT.txt]`: the whole graph of an index as
// sorted text lines (files, entities, references, edges, imports, attribute types), keyed by
// entity ids and paths, never by row ids, so two indexes of the same tree built different ways
// (bulk or incremental, before or after a change to extraction) compare with `cmp`/`diff`.
// Prints a digest per table; with OUT, writes the lines too.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import Database from 'better-sqlite3';

const TABLES: Record<string, string> = {
  files: `SELECT path, language, module, hash, syntax_errors FROM files`,
  entities: `SELECT e.id, e.kind, e.name, e.qname, f.path, e.parent, e.sr, e.sc, e.er, e.ec, e.nsr, e.nsc, e.ner, e.nec,
               e.signature, e.docstring, e.decorators, e.bases, e.returns, e.alias, e.body, e.content_hash
             FROM entities e LEFT JOIN files f ON f.fid = e.fid`,
  refs: `SELECT f.path, s.id, r.relation, r.target, r.receiver, r.rtype, r.config_kind, r.catches, r.reraise, r.access, r.sr, r.sc, r.er, r.ec
         FROM refs r JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src`,
  edges: `SELECT f.path, s.id, r.relation, r.target, r.sr, r.sc, d.id, x.ambiguous, x.caught
          FROM edges x JOIN refs r ON r.rid = x.rid JOIN files f ON f.fid = r.fid JOIN entities s ON s.eid = r.src JOIN entities d ON d.eid = x.dst`,
  imports: `SELECT f.path, i.source, i.local, i.module, i.member, i.sr, i.sc, i.er, i.ec FROM imports i JOIN files f ON f.fid = i.fid`,
  attr_types: `SELECT f.path, a.cls, a.attr, a.type FROM attr_types a JOIN files f ON f.fid = a.fid`,
};

export function dumpGraph(dbPath: string): Map<string, string[]> {
  const db = new Database(dbPath, { readonly: true });
  try {
    const out = new Map<string, string[]>();
    for (const [name, sql] of Object.entries(TABLES)) {
      const lines = (db.prepare(sql).raw().all() as unknown[][]).map((row) => `${name}\t${row.map((v) => (v === null ? '∅' : String(v))).join('\t')}`);
      lines.sort();
      out.set(name, lines);
    }
    return out;
  } finally {
    db.close();
  }
}

if (require.main === module) {
  const [dbPath, outPath] = process.argv.slice(2);
  if (!dbPath) {
    console.error('usage: graph-dump INDEX.db [OUT.txt]');
    process.exit(2);
  }
  const dump = dumpGraph(dbPath);
  const fd = outPath ? fs.openSync(outPath, 'w') : null;
  for (const [name, lines] of dump) {
    const h = createHash('sha256');
    for (const l of lines) {
      h.update(l + '\n');
      if (fd !== null) fs.writeSync(fd, l + '\n');
    }
    console.log(`${name.padEnd(11)} ${String(lines.length).padStart(8)}  ${h.digest('hex').slice(0, 16)}`);
  }
  if (fd !== null) fs.closeSync(fd);
}
