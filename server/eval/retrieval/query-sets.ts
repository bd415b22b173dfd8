// The hand-written query sets of the retrieval eval (server/eval/data/): short web-style how-to
// questions and bug-report-style texts, each with the stdlib function(s) that answer it, and the
// dev/test split every set uses (by a hash of the query text, so adding a query moves no other).
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface EvalQuery {
  query: string;
  /** `path:qname` relative to the stdlib root; any one of them is a right answer. */
  answers: string[];
  split: 'dev' | 'test';
}

export function dataDir(): string {
  const inBuild = __dirname.split(path.sep).includes('dist');
  return path.resolve(__dirname, inBuild ? '../../../../server/eval/data' : '../data');
}

/** FNV-1a of the text; even → dev, odd → test. */
export function splitOf(text: string): 'dev' | 'test' {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) % 2 === 0 ? 'dev' : 'test';
}

const answersOf = (s: string) => s.split(',').map((a) => a.trim()).filter(Boolean);

/** web-questions.tsv: `question<TAB>answer, answer`; `#` lines are comments. */
export function loadWebQuestions(file = path.join(dataDir(), 'web-questions.tsv')): EvalQuery[] {
  const out: EvalQuery[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [query, answers] = line.split('\t');
    if (!answers) throw new Error(`${file}: no answer in line ${JSON.stringify(line)}`);
    out.push({ query: query.trim(), answers: answersOf(answers), split: splitOf(query.trim()) });
  }
  return out;
}

/** bug-reports.txt: each report opens with `=== answer, answer` and runs to the next one. */
export function loadBugReports(file = path.join(dataDir(), 'bug-reports.txt')): EvalQuery[] {
  const out: EvalQuery[] = [];
  let current: { answers: string[]; lines: string[] } | null = null;
  const flush = () => {
    if (!current) return;
    const query = current.lines.join('\n').trim();
    if (!query) throw new Error(`${file}: empty report for ${current.answers.join(', ')}`);
    out.push({ query, answers: current.answers, split: splitOf(query) });
  };
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('=== ')) {
      flush();
      current = { answers: answersOf(line.slice(4)), lines: [] };
    } else if (current) current.lines.push(line);
  }
  flush();
  return out;
}
