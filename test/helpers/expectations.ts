// Expected edges written inside sample sources (fixtures/resolution/README.md has the syntax):
// a trailing `# expect: CALLS func:a.py:f; MUTATES ?x` comment lists every edge whose site
// starts on that line. Parsing is strict: a malformed marker is an error naming file and line.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EdgeRow } from '../../server/src/engine/api';
import type { Engine } from '../../server/src/engine/engine';

const MARKER = /(?:#|\/\/)\s*expect:(.*)$/;
const RELATIONS = new Set(['CALLS', 'INHERITS', 'IMPORTS', 'MUTATES', 'READS_CONFIG', 'PROPAGATES_ERROR']);
const FLAGS = new Set(['ambiguous', 'caught', 'dispatch']);
/** An extension the samples may use; only these files are read for markers. */
const SOURCE = /\.(pyi?|[cm]?ts|tsx|[cm]?js|jsx)$/;

/** `file:line` (1-based, as an editor shows it) → the expected edges there, sorted. */
export type Expectations = Map<string, string[]>;

/** One edge as the samples write it: `RELATION target` with `?name` when unresolved, then flags. */
export function edgeText(e: Pick<EdgeRow, 'relation' | 'target' | 'targetName' | 'ambiguous' | 'caught' | 'dispatch'>): string {
  const flags = [e.ambiguous && 'ambiguous', e.caught && 'caught', e.dispatch && 'dispatch'].filter(Boolean);
  return `${e.relation} ${e.target ?? '?' + e.targetName}${flags.length ? ` (${flags.join(', ')})` : ''}`;
}

/** Parses the text after `expect:` into edge texts; `nothing` is the empty list. */
export function parseMarker(text: string, where: string): string[] {
  const body = text.trim();
  if (body === 'nothing') return [];
  if (!body) throw new Error(`${where}: empty expectation (write "expect: nothing" for no edges)`);
  const out: string[] = [];
  for (const group of body.split(';')) {
    const m = /^\s*([A-Z_]+)\s+(.+?)\s*$/.exec(group);
    if (!m || !RELATIONS.has(m[1])) throw new Error(`${where}: "${group.trim()}" is not "RELATION target, target..."`);
    // Split on commas outside parentheses: `a (ambiguous, caught), b`.
    for (const item of m[2].split(/,(?![^(]*\))/)) {
      const t = /^\s*(\S+)(?:\s+\(([^)]*)\))?\s*$/.exec(item);
      if (!t) throw new Error(`${where}: "${item.trim()}" is not "target" or "target (flags)"`);
      const flags = (t[2] ?? '').split(',').map((f) => f.trim()).filter(Boolean);
      const bad = flags.find((f) => !FLAGS.has(f));
      if (bad) throw new Error(`${where}: unknown flag "${bad}" (known: ${[...FLAGS].join(', ')})`);
      const ordered = [...FLAGS].filter((f) => flags.includes(f));
      out.push(`${m[1]} ${t[1]}${ordered.length ? ` (${ordered.join(', ')})` : ''}`);
    }
  }
  return out.sort();
}

/** Every marker of every source file under `root`, keyed by `file:line`. */
export function readExpectations(root: string): Expectations {
  const out: Expectations = new Map();
  for (const rel of sourceFiles(root)) {
    const lines = fs.readFileSync(path.join(root, rel), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const m = MARKER.exec(line);
      if (m) out.set(`${rel}:${i + 1}`, parseMarker(m[1], `${rel}:${i + 1}`));
    });
  }
  return out;
}

export function sourceFiles(root: string, dir = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${d.name}` : d.name;
    if (d.isDirectory()) {
      if (d.name !== '.nsccn') out.push(...sourceFiles(root, rel));
    } else if (SOURCE.test(d.name)) out.push(rel);
  }
  return out.sort();
}

/**
 * The edges the engine holds, keyed like the expectations: every line with a marker, plus
 * every other line that holds a resolved edge (those must be marked too).
 */
export function actualEdges(engine: Engine, expected: Expectations): Expectations {
  const out: Expectations = new Map([...expected.keys()].map((k) => [k, []]));
  for (const f of engine.store.files()) {
    for (const e of engine.fileEntities(f.path)) {
      for (const x of engine.outgoing(e.id)) {
        const key = `${x.file}:${x.span.start.row + 1}`;
        if (!out.has(key) && !x.target) continue; // unresolved noise on an unmarked line
        if (!out.has(key)) out.set(key, []);
        out.get(key)!.push(edgeText(x));
      }
    }
  }
  for (const [k, v] of out) out.set(k, [...new Set(v)].sort());
  return out;
}
