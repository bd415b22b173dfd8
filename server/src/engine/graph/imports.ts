// Import bindings become IMPORTS refs (module → module or entity), with relative module names
// made absolute by the language, so they resolve like any other dotted target.

import type { FileExtraction, LanguageSupport, ProjectFiles, RawRef } from '../languages/types';

export function importRefs(ex: FileExtraction, lang: LanguageSupport, project?: ProjectFiles): RawRef[] {
  const own = lang.moduleName(ex.file);
  // A file binding its own names (`export { a as b }`, `export default X`) imports nothing.
  return ex.imports.flatMap((b) => {
    const module = lang.absoluteModule(b.module, ex.file, project) ?? b.module;
    if (module === own) return [];
    const target = b.member && b.member !== '*' ? (module.endsWith('.') ? module + b.member : `${module}.${b.member}`) : module;
    return [{ from: b.from, relation: 'IMPORTS' as const, target, span: b.span }];
  });
}
