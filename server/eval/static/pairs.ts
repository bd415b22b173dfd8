// (text → code) pairs for contrastive training of the static table, all from this machine:
//   docstring → code: a function's docstring's first sentence, and the function without it;
//   name → code:      a function's name words, and its body (no docstring needed);
//   JSDoc → code:     the first sentence of a /** ... */ block, and the JS/TS function under it.
// The code side is what the runtime embeds for an entity (static-embedder.ts: path, qualified
// name and signature counted double, body words at half weight), so training and search agree.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { staticParts, type WeightedText } from '../../src/engine/embed/static-embedder';
import { discover, IgnoreRules } from '../../src/engine/workspace/discover';
import { firstSentence } from '../docstrings';
import type { ExtractedEntity } from '../../src/engine/languages/types';

export interface Pair {
  /** Where the code is (`root-relative path:name`): the sort key and the hard-negative group. */
  key: string;
  query: string;
  code: WeightedText[];
  source: 'docstring' | 'name' | 'jsdoc' | 'declaration' | 'comment';
}

const CODE_KINDS = new Set(['function', 'method']);
const MIN_QUERY_WORDS = 3;

/** Collects Python pairs from entities as a corpus walk visits them (one parse for both). */
export function pythonPairCollector(skipDocstring?: (doc: string) => boolean): { visit: (e: ExtractedEntity, file: string) => void; pairs: Pair[] } {
  const pairs: Pair[] = [];
  const visit = (e: ExtractedEntity, file: string) => {
    if (!CODE_KINDS.has(e.kind) || !e.body) return;
    const key = `${file}:${e.qname}`;
    const doc = e.docstring ? firstSentence(e.docstring) : '';
    if (doc && !skipDocstring?.(e.docstring!) && doc.split(/\s+/).length >= MIN_QUERY_WORDS) {
      pairs.push({ key, query: doc, code: staticParts({ path: file, qname: e.qname, signature: e.signature, body: e.body }), source: 'docstring' });
    } else if (/_|[a-z][A-Z]/.test(e.name) && !e.name.startsWith('__')) {
      // The name stands in for the query, so the code side leaves it out.
      pairs.push({ key, query: e.name, code: [[e.signature.replace(e.name, ''), 2], [e.body, 0.5]], source: 'name' });
    }
  };
  return { visit, pairs };
}

// A JSDoc block followed by a function declaration, a function-valued binding or a method.
const JSDOC = /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(([^)]*)\)|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b[^(]*\(([^)]*)\)|\(([^)]*)\)\s*=>)|(?:(?:public|private|protected|static|async|get|set)\s+)*([A-Za-z_$][\w$]*)\s*\(([^)]*)\)\s*(?::[^{;]*)?\{)/g;
const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts']);
const MAX_JS_BYTES = 400_000;
const BODY_CHARS = 1500;

/** JSDoc → function pairs from the JavaScript and TypeScript under `root` (node_modules). */
export function jsDocPairs(root: string, exclude: string[]): Pair[] {
  const rules = new IgnoreRules(root, exclude);
  const found = discover(root, { extensions: JS_EXTENSIONS, exclude, maxFileBytes: MAX_JS_BYTES }, rules);
  const out: Pair[] = [];
  for (const f of found.files) {
    if (/\.(min|d)\.[cm]?[jt]s$/.test(f.path)) continue;
    const text = fs.readFileSync(path.join(root, f.path), 'utf8');
    for (const m of text.matchAll(JSDOC)) {
      const name = m[2] ?? m[4] ?? m[7];
      const params = m[3] ?? m[5] ?? m[6] ?? m[8] ?? '';
      if (!name || /^(if|for|while|switch|catch|function|return|constructor)$/.test(name)) continue;
      const doc = jsDocSummary(m[1]);
      if (!doc) continue;
      const start = (m.index ?? 0) + m[0].length;
      const body = text.slice(start, start + BODY_CHARS);
      out.push({ key: `${f.path}:${name}`, query: doc, code: staticParts({ path: f.path, qname: name, signature: `${name}(${params})`, body }), source: 'jsdoc' });
    }
  }
  return out;
}

/** A JSDoc block's first sentence (its tags left out), or '' when it is too short or a tool's directive. */
function jsDocSummary(block: string): string {
  const doc = firstSentence(
    block
      .split('\n')
      .map((l) => l.replace(/^\s*\*\s?/, ''))
      .join('\n')
      .split(/\n\s*@/)[0],
  );
  return doc.split(/\s+/).length < MIN_QUERY_WORDS || /^@|^(eslint|istanbul|prettier)\b/i.test(doc) ? '' : doc;
}

// A JSDoc block over a declaration with no body, as type declarations (.d.ts) hold them:
// `declare function f(a: T): R;`, an interface's `f?(a: T): R;`, a class's `static f(...)`.
const DECLARATION = /\/\*\*((?:[^*]|\*(?!\/))*)\*\/\s*(?:(?:export|declare|default|function|static|readonly|public|private|protected|abstract|async|get|set|const|let|var)\s+)*([A-Za-z_$][\w$]*)\??\s*(?:<[^>]*>)?\s*\(([^)]*)\)/g;

/**
 * JSDoc → declaration pairs from the type declarations under `root`: a summary and the
 * signature it documents (name and parameters; there is no body). Packages ship the same
 * declarations more than once (a library's own copy and a dependency's), so a summary and name
 * seen before is not repeated.
 */
export function declarationPairs(root: string, exclude: string[]): Pair[] {
  const rules = new IgnoreRules(root, exclude);
  const found = discover(root, { extensions: new Set(['.ts', '.mts', '.cts']), exclude, maxFileBytes: 4 * MAX_JS_BYTES }, rules);
  const seen = new Set<string>();
  const out: Pair[] = [];
  for (const f of found.files) {
    if (!/\.d\.[cm]?ts$/.test(f.path)) continue;
    const text = fs.readFileSync(path.join(root, f.path), 'utf8');
    for (const m of text.matchAll(DECLARATION)) {
      const [, block, name, params] = m;
      if (/^(if|for|while|switch|catch|function|return|constructor|new)$/.test(name)) continue;
      const doc = jsDocSummary(block);
      if (!doc) continue;
      const once = `${doc}\0${name}`;
      if (seen.has(once)) continue;
      seen.add(once);
      out.push({ key: `${f.path}:${name}`, query: doc, code: staticParts({ path: f.path, qname: name, signature: `${name}(${params})`, body: '' }), source: 'declaration' });
    }
  }
  return out;
}
