// A skeleton cut to a token budget by usefulness: first docstrings are shortened (to their first
// line, then left out), then the most deeply nested lines go (methods' docstrings and nested
// classes before class members, class members before top-level signatures), and only then the
// last lines of the file.
import { DOCS_LEVELS, type DocsLevel, type Skeleton } from '../../../../protocol';
import { countTokens } from '../skeleton/tokens';
import { finish, tokensOf, truncation, TRUNCATION_RESERVE } from './measure';

export function fitSkeleton(make: (docs: DocsLevel) => Skeleton, docs: DocsLevel, maxTokens: number): Skeleton {
  const asked = make(docs);
  if (tokensOf(asked) <= maxTokens) return asked;
  let sk = asked;
  for (const level of DOCS_LEVELS.slice(DOCS_LEVELS.indexOf(docs) + 1)) {
    sk = make(level);
    if (tokensOf(sk) + TRUNCATION_RESERVE <= maxTokens) {
      sk.truncated = truncation(maxTokens, {}, `docstrings shown at level ${level} (asked: ${docs}) to fit ${maxTokens} tokens`);
      return finish(sk);
    }
  }
  const lines = sk.text.replace(/\n$/, '').split('\n');
  const indent = lines.map((l) => (l.trim() ? l.length - l.trimStart().length : -1));
  const levels = [...new Set(indent.filter((n) => n >= 0))].sort((a, b) => b - a);
  const budget = maxTokens - TRUNCATION_RESERVE;
  let keep: boolean[] = lines.map(() => true);
  let cut: Skeleton = sk;
  for (const max of levels) {
    keep = indent.map((n) => n <= max);
    cut = project(sk, lines, keep);
    if (tokensOf(cut) <= budget) break;
  }
  // Even the top level alone is too much: keep the first lines that fit.
  while (tokensOf(cut) > budget && keep.some(Boolean)) {
    keep[keep.lastIndexOf(true)] = false;
    cut = project(sk, lines, keep);
  }
  const droppedLines = keep.filter((k, i) => !k && indent[i] >= 0).length;
  const droppedEntities = sk.entities.length - cut.entities.length;
  const docNote = sk.docs !== docs ? `docstrings left out (asked: ${docs}), ` : '';
  cut.truncated = truncation(maxTokens, { lines: droppedLines, entities: droppedEntities }, `${docNote}dropped ${droppedLines} of ${indent.filter((n) => n >= 0).length} lines (${droppedEntities} entities), innermost first, to fit ${maxTokens} tokens`);
  return finish(cut);
}

/** The skeleton with only the kept lines; entities on dropped lines go too. */
function project(sk: Skeleton, lines: string[], keep: boolean[]): Skeleton {
  const newRow: number[] = [];
  const text: string[] = [];
  lines.forEach((l, i) => {
    newRow.push(keep[i] ? text.length : -1);
    if (keep[i]) text.push(l);
  });
  const entities = sk.entities.flatMap((e) => {
    const row = newRow[e.skeletonLine - 1];
    return row === undefined || row < 0 ? [] : [{ ...e, skeletonLine: row + 1 }];
  });
  const joined = text.length ? `${text.join('\n')}\n` : '';
  return { ...sk, text: joined, skeletonTokens: countTokens(joined), entities };
}
