// Which files are test code: the common conventions of Python and JavaScript/TypeScript test
// runners (pytest, unittest, jest, vitest, mocha). Tests stay searchable; by default they rank
// after the code they exercise, since "where is X implemented" is the usual question.
const TEST_DIR = /(^|\/)(tests?|__tests__|testing|spec)\//;
const TEST_FILE = /(^|\/)(test_[^/]*\.py|[^/]*_tests?\.py|conftest\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$/;

export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}
