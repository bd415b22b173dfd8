// The one table of supported languages (DESIGN invariant 3). Adding a language = a folder next
// to this file and one line here.
import type { LanguageSupport } from './types';
import { python } from './python';
import { javascript, tsx, typescript } from './typescript';

export const LANGUAGES: readonly LanguageSupport[] = [python, typescript, tsx, javascript];

const byExtension = new Map<string, LanguageSupport>();
for (const lang of LANGUAGES) for (const ext of lang.extensions) byExtension.set(ext, lang);
const byId = new Map(LANGUAGES.map((l) => [l.id, l]));

export const EXTENSIONS: ReadonlySet<string> = new Set(byExtension.keys());

export function languageForPath(path: string): LanguageSupport | undefined {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? undefined : byExtension.get(path.slice(dot));
}

export function languageById(id: string): LanguageSupport | undefined {
  return byId.get(id);
}
