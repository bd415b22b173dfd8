// Text output of the CALLS eval: the per-package table, what was left out of scope, and the
// top causes of disagreement with examples.
import type { Category } from './classify';
import type { Drops, Metrics } from './compare';

const pct = (x: number | null) => (x === null ? '   -  ' : `${(100 * x).toFixed(1).padStart(5)}%`);

export function metricsTable(rows: Array<[string, Metrics]>): string {
  const head = ['package', 'pyright', 'nsccn', '+ambig', 'agreed', '+ambig', 'precision', 'prec+amb', 'recall', 'rec+amb'];
  const widths = [16, 8, 7, 7, 7, 7, 10, 9, 8, 8];
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' ');
  const out = [line(head)];
  for (const [name, m] of rows) {
    out.push(
      line([
        name,
        String(m.pyright),
        String(m.nsccn),
        String(m.nsccnAmbiguous),
        String(m.agreed),
        String(m.agreedAmbiguous),
        pct(m.precision),
        pct(m.precisionWithAmbiguous),
        pct(m.recall),
        pct(m.recallWithAmbiguous),
      ]),
    );
  }
  return out.join('\n');
}

export function dropsText(d: Drops, reattributed: number): string {
  return [
    'Out of scope (not counted above):',
    `  pyright calls into builtins/typeshed/site-packages: ${d.pyrightExternal}`,
    `  pyright targets in the workspace with no NSCCN entity at their name: ${d.pyrightUnmapped}`,
    `  pyright sites outside any function body (class/module level): ${d.pyrightOutOfScopeCaller}`,
    `  NSCCN CALLS references left unresolved (target null): ${d.nsccnUnresolved}`,
    `  NSCCN CALLS from classes/modules (decorators, class bodies): ${d.nsccnOutOfScopeCaller}`,
    `  NSCCN CALLS from callers pyright gave no answer for: ${d.nsccnUnansweredCaller}`,
    `  NSCCN CALLS to a variable holding a callable (global/attr; pyright reports defs only): ${d.nsccnVariableCallee}`,
    ...(d.nsccnInvoked ? [`  NSCCN CALLS through f.call(…) / f.apply(…) (TypeScript names Function.prototype.call): ${d.nsccnInvoked}`] : []),
    `  pyright sites attributed to a nested def/enclosing scope, as NSCCN does: ${reattributed}`,
  ].join('\n');
}

export function causesText(title: string, cats: Category[], top: number, examples = 3): string {
  const total = cats.reduce((s, c) => s + c.count, 0);
  const out = [`${title} (${total} edges; first call site of each classified):`];
  for (const c of cats.slice(0, top)) {
    out.push(`  ${String(c.count).padStart(5)}  ${c.category}`);
    for (const x of c.examples.slice(0, examples)) {
      out.push(`           ${x.caller} line ${x.line}: ${x.code}`);
      out.push(`             → ${x.callee}   [other side: ${x.other}]`);
    }
  }
  const rest = cats.slice(top);
  if (rest.length) out.push(`  ${String(rest.reduce((s, c) => s + c.count, 0)).padStart(5)}  (${rest.length} smaller categories)`);
  return out.join('\n');
}
