// Python, registered in ../registry.ts.
import type { LanguageSupport } from '../types';
import { extractPython, type PythonReuse } from './extract';
import { absoluteModule, BUILTINS, EXCEPTION_BASES, fixtureScopes, handlerCatches, isOverloadStub, isPropertyGetter, moduleName } from './names';
import { basedir, importNames, isExternalModule, isLayoutFile, namesOnlyProjectFile, projectFileView } from './modules';
import { skeletonPython } from './skeleton';

export const python: LanguageSupport = {
  id: 'python',
  extensions: ['.py', '.pyi'],
  wasmPath: () => require.resolve('tree-sitter-python/tree-sitter-python.wasm'),
  extract: (tree, source, file, grammar, reuse) => extractPython(tree, source, file, grammar, reuse as { state?: PythonReuse } | undefined),
  skeleton: skeletonPython,
  moduleName,
  absoluteModule,
  builtins: BUILTINS,
  exceptionBases: EXCEPTION_BASES,
  // PEP 263: `# -*- coding: latin-1 -*-`, `# vim: set fileencoding=cp1252 :`.
  encodingCookie: /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/,
  handlerCatches,
  constructorName: '__init__',
  rootClass: 'object',
  isPropertyGetter,
  isOverloadStub,
  importNames,
  basedir,
  isLayoutFile,
  namesOnlyProjectFile,
  projectFileView,
  isExternalModule,
  fixtureScopes,
  // A stub and its source: an import in a stub means the stub, elsewhere the code that runs.
  sameModuleRank: (importer, file) => (importer.endsWith('.pyi') === file.endsWith('.pyi') ? 0 : 1),
};
