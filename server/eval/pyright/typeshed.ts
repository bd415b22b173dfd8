// pyright resolves `import email.utils` to its bundled typeshed stub before any local code of
// the same name, so in a workspace made of standard-library packages every absolute import of
// a sibling module would land in typeshed. The eval therefore gives pyright a copy of its
// typeshed stdlib without the evaluated packages (files and VERSIONS lines): those imports
// then resolve to the workspace copy (local code wins over the interpreter's search paths),
// and everything else keeps its usual stubs.
import * as fs from 'node:fs';
import * as path from 'node:path';

export function bundledTypeshed(): string {
  const dir = path.join(path.dirname(require.resolve('pyright/package.json')), 'dist', 'typeshed-fallback');
  if (!fs.existsSync(path.join(dir, 'stdlib', 'VERSIONS'))) throw new Error(`pyright's bundled typeshed is missing at ${dir}`);
  return dir;
}

/** Writes a typeshed folder at `dest` whose stdlib lacks `packages`; returns `dest`. */
export function typeshedWithout(packages: string[], dest: string, source = bundledTypeshed()): string {
  const drop = new Set(packages);
  const topOf = (name: string) => name.split(/[./]/)[0].replace(/\.pyi$/, '');
  const stdlib = path.join(dest, 'stdlib');
  fs.mkdirSync(stdlib, { recursive: true });
  for (const d of fs.readdirSync(path.join(source, 'stdlib'), { withFileTypes: true })) {
    if (d.name === 'VERSIONS' || drop.has(topOf(d.name))) continue;
    fs.cpSync(path.join(source, 'stdlib', d.name), path.join(stdlib, d.name), { recursive: true });
  }
  const versions = fs
    .readFileSync(path.join(source, 'stdlib', 'VERSIONS'), 'utf8')
    .split('\n')
    .filter((line) => {
      const m = /^\s*([A-Za-z0-9_.]+)\s*:/.exec(line);
      return !m || !drop.has(m[1].split('.')[0]);
    });
  fs.writeFileSync(path.join(stdlib, 'VERSIONS'), versions.join('\n'));
  return dest;
}
