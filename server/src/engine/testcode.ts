// Which files are test code — for search (tests rank after the code they exercise, since
// "where is X implemented" is the usual question) and for change impact (the tests that reach
// a changed function). One definition for both: the project's `testGlobs` (.nsccn.json) when it
// gives them, else the common conventions of Python and JavaScript/TypeScript test runners
// (pytest, unittest, jest, vitest, mocha).
import picomatch from 'picomatch';
const TEST_DIR = /(^|\/)(tests?|__tests__|testing|spec)\//;
const TEST_FILE = /(^|\/)(test_[^/]*\.py|[^/]*_tests?\.py|conftest\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$/;

export function isTestPath(path: string): boolean {
  return TEST_DIR.test(path) || TEST_FILE.test(path);
}

/** The test-file predicate of a project: its globs when it declares them, else the conventions. */
export function testMatcher(globs?: readonly string[]): (path: string) => boolean {
  return globs?.length ? picomatch([...globs], { dot: true }) : isTestPath;
}
