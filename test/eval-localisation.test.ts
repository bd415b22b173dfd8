// The localisation eval's reports (server/eval/data/heldout-reports.txt): every answer names a
// real definition of the installed library, each report belongs to one library, and the answer
// check itself tells a missing name from a present one. The libraries are this machine's
// site-packages (_pytest + pytest, sympy); a library that is not installed is skipped, saying so.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnswersInSource, LOCALISATION_LIBRARIES, REPORTS_FILE, reportsByLibrary, splitAnswer } from '../server/eval/localisation';
import { sitePackagesPath } from '../server/eval/python-paths';
import { dataDir, loadBugReports } from '../server/eval/retrieval/query-sets';

const reports = loadBugReports(path.join(dataDir(), REPORTS_FILE));
const byLibrary = reportsByLibrary(reports);
let sitePackages = '';
try {
  sitePackages = sitePackagesPath();
} catch {
  sitePackages = '';
}

describe('held-out reports file', () => {
  it('holds reports for every library, each answer well formed', () => {
    for (const lib of LOCALISATION_LIBRARIES) expect(byLibrary.get(lib.name)?.length ?? 0).toBeGreaterThanOrEqual(30);
    for (const r of reports) {
      expect(r.query.length).toBeGreaterThan(80);
      for (const a of r.answers) expect(() => splitAnswer(a)).not.toThrow();
    }
    expect(new Set(reports.map((r) => r.query)).size).toBe(reports.length);
  });
});

for (const lib of LOCALISATION_LIBRARIES) {
  const installed = !!sitePackages && lib.dirs.every((d) => fs.existsSync(path.join(sitePackages, d)));
  const title = installed ? `${lib.name}: every answer is a definition of the installed source` : `${lib.name}: skipped — not installed in this machine's site-packages (${sitePackages || 'python3 not found'})`;
  describe.skipIf(!installed)(title, () => {
    it('finds every answer', () => {
      const answers = [...new Set((byLibrary.get(lib.name) ?? []).flatMap((r) => r.answers))];
      expect(checkAnswersInSource(answers, sitePackages)).toEqual([]);
    });
  });
}

describe.skipIf(!sitePackages)('the answer check', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-localisation-test-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  fs.mkdirSync(path.join(tmp, 'geo'));
  fs.writeFileSync(
    path.join(tmp, 'geo', 'shapes.py'),
    'class Circle:\n    def area(self):\n        def helper():\n            pass\n        return 1\n\n\nasync def fetch():\n    pass\n',
  );

  it('accepts classes, methods, nested and async defs, and names what is missing', () => {
    const present = ['geo/shapes.py:Circle', 'geo/shapes.py:Circle.area', 'geo/shapes.py:Circle.area.helper', 'geo/shapes.py:fetch'];
    expect(checkAnswersInSource(present, tmp)).toEqual([]);
    expect(checkAnswersInSource(['geo/shapes.py:Circle.perimeter', 'geo/shapes.py:helper'], tmp)).toEqual(['geo/shapes.py:Circle.perimeter', 'geo/shapes.py:helper']);
    expect(checkAnswersInSource(['geo/none.py:f'], tmp)[0]).toMatch(/^geo\/none\.py:f \(cannot read/);
  });

  it('refuses a malformed answer and a report spanning libraries', () => {
    expect(() => splitAnswer('sympy/core/numbers.py')).toThrow(/malformed/);
    expect(() => reportsByLibrary([{ query: 'q', answers: ['sympy/a.py:f', '_pytest/b.py:g'], split: 'dev' }])).toThrow(/span libraries/);
    expect(() => reportsByLibrary([{ query: 'q', answers: ['numpy/a.py:f'], split: 'dev' }])).toThrow(/in no library/);
  });
});
