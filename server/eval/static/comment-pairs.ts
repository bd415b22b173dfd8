// comment → code pairs for the static table's contrastive stage (issue 18 asks for them beside
// docstrings): a run of `#` comment lines that reads as prose, and the lines of code right under
// it (up to a blank line, another comment, or a line indented less than the comment). Read from
// the files' text, not the parse: the extractor keeps no comments. A comment says in words what
// the code below does ("# drop the entries that expired"), the phrasing of a how-to question
// rather than of a docstring's summary.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discover, IgnoreRules } from '../../src/engine/workspace/discover';
import { firstSentence, sentenceKey } from '../docstrings';
import type { Pair } from './pairs';

export interface Comment {
  /** 1-based line of the comment's first line. */
  line: number;
  text: string;
  /** The code lines under it, trimmed. */
  code: string[];
}

const MAX_CODE_LINES = 6;
const MIN_WORDS = 4;
/** Per file: a long, heavily commented module must not fill whole batches by itself. */
const MAX_PER_FILE = 40;
// Commented-out code, tool directives and boilerplate are not descriptions of the code below.
const CODE_LIKE = /\w\(|[={}[\];<>]|^(import|from|return|def|class|if|for|while|print|self\.|raise|assert|else|elif|try|except)\b/;
const DIRECTIVE = /^(noqa|type:|pragma|pylint|fmt:|mypy|flake8|isort|-\*-|!|todo\b|xxx\b|fixme\b|copyright|license|see\b|https?:)/i;
const PROSE_WORD = /^\(?[A-Za-z][a-z']*[.,:;)]*$/;
const COMMENT_LINE = /^(\s*)#\s?(.*)$/;

/** The prose comments of a Python file's text, each with the code under it. */
export function proseComments(text: string): Comment[] {
  const lines = text.split('\n');
  const out: Comment[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = COMMENT_LINE.exec(lines[i]);
    if (!m) continue;
    const indent = m[1].length;
    const parts = [m[2]];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const more = COMMENT_LINE.exec(lines[j]);
      if (!more || more[1].length !== indent) break;
      parts.push(more[2]);
    }
    const start = i;
    i = j - 1;
    const prose = parts.join(' ').replace(/\s+/g, ' ').trim();
    if (DIRECTIVE.test(prose) || CODE_LIKE.test(prose)) continue;
    const words = prose.split(' ');
    if (words.length < MIN_WORDS || words.filter((w) => PROSE_WORD.test(w)).length < words.length * 0.7) continue;
    const code: string[] = [];
    for (; j < lines.length && code.length < MAX_CODE_LINES; j++) {
      const l = lines[j];
      if (!l.trim() || /^\s*#/.test(l) || l.length - l.trimStart().length < indent) break;
      code.push(l.trim());
    }
    if (code.length) out.push({ line: start + 1, text: firstSentence(prose), code });
  }
  return out;
}

function pythonFiles(root: string, exclude: string[]): string[] {
  const found = discover(root, { extensions: new Set(['.py']), exclude, maxFileBytes: 1_000_000 }, new IgnoreRules(root, exclude));
  return found.files.map((f) => f.path).sort();
}

/** The sentence keys of every prose comment under `root`: what decontamination leaves out. */
export function commentKeys(root: string, exclude: string[]): Set<string> {
  const keys = new Set<string>();
  for (const f of pythonFiles(root, exclude)) for (const c of proseComments(fs.readFileSync(path.join(root, f), 'utf8'))) keys.add(sentenceKey(c.text));
  return keys;
}

/** comment → code pairs from the Python under `root`, skipping comments `skip` says were seen in an eval set. */
export function commentPairs(root: string, exclude: string[], skip?: (key: string) => boolean): Pair[] {
  const out: Pair[] = [];
  for (const f of pythonFiles(root, exclude)) {
    let n = 0;
    for (const c of proseComments(fs.readFileSync(path.join(root, f), 'utf8'))) {
      if (n >= MAX_PER_FILE) break;
      if (skip?.(sentenceKey(c.text))) continue;
      out.push({ key: `${f}#${String(c.line).padStart(6, '0')}`, query: c.text, code: [[c.code.join('\n'), 1]], source: 'comment' });
      n++;
    }
  }
  return out;
}
