// What training must never see (issue 18): code other evaluations judge NSCCN on. The standard
// library is the retrieval eval and is never a training root; inside site-packages and
// node_modules, vendored copies of other projects are skipped wherever they appear, and so are
// the packages held out for other evaluations. Gitignore syntax (a bare name matches a
// directory or file of that name at any depth).
export const EXCLUDED_PACKAGES = ['jinja2', 'sympy', 'pytest', '_pytest', 'requests', 'flask', 'rich', 'more_itertools'];

export const TRAINING_EXCLUDES = [
  '_vendor/',
  'vendored/',
  ...EXCLUDED_PACKAGES.flatMap((p) => [`${p}/`, `${p}.py`]),
  // Tests repeat the code they test; docs and examples are not library code.
  'tests/',
  'test/',
  '__pycache__/',
  '*.dist-info/',
];
