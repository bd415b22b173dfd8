// Modules: ES imports and exports (default, named, namespace, re-exports and barrels), dynamic
// `import()`, CommonJS `require` and `module.exports`. Each becomes an import binding; a file
// binding its own names (`export default X`, `module.exports = X`) binds them to itself.
import type { Node } from 'web-tree-sitter';
import { MODULE_VALUE, selfSpecifier } from './names';
import { ExtractionState, span } from './scopes';
import { FUNCTION_VALUES, stringValue } from './syntax';


export abstract class ModuleRefs {
  protected readonly st: ExtractionState;

  constructor(
    protected readonly source: string,
    protected readonly file: string,
  ) {
    this.st = new ExtractionState(source, file);
  }

  protected abstract callable(n: Node, fn: Node, name: string, kind: 'function' | 'method', body: Node | null, nameNode?: Node): void;

  protected bind(local: string | null, spec: string, member: string | null, at: Node): void {
    this.st.imports.push({ from: this.st.owner().ent.id, local, module: spec, member, span: span(at) });
  }

  protected importStatement(n: Node): void {
    const spec = stringValue(n.childForFieldName('source'));
    if (spec === null) return;
    const clause = n.namedChildren.find((c) => c?.type === 'import_clause');
    const requireClause = n.namedChildren.find((c) => c?.type === 'import_require_clause');
    if (requireClause) {
      // `import x = require('./m')`
      const id = requireClause.namedChild(0);
      if (id) this.bind(id.text, spec, null, n);
      return;
    }
    if (!clause) {
      this.bind(null, spec, null, n); // side-effect import
      return;
    }
    for (const c of clause.namedChildren) {
      if (!c) continue;
      if (c.type === 'identifier') this.bind(c.text, spec, 'default', n);
      else if (c.type === 'namespace_import') {
        const id = c.namedChild(0);
        if (id) this.bind(id.text, spec, null, n);
      } else if (c.type === 'named_imports') {
        for (const s of c.namedChildren) {
          if (s?.type !== 'import_specifier') continue;
          const name = s.childForFieldName('name');
          const alias = s.childForFieldName('alias');
          if (name) this.bind((alias ?? name).text, spec, unquote(name), n);
        }
      }
    }
  }

  protected exportStatement(n: Node): void {
    const spec = stringValue(n.childForFieldName('source'));
    const own = selfSpecifier(this.file);
    const clause = n.namedChildren.find((c) => c?.type === 'export_clause');
    if (spec !== null) {
      if (clause) {
        for (const s of clause.namedChildren) {
          if (s?.type !== 'export_specifier') continue;
          const name = s.childForFieldName('name');
          const alias = s.childForFieldName('alias');
          if (name) this.bind(unquote(alias ?? name), spec, unquote(name), n);
        }
      } else {
        const ns = n.namedChildren.find((c) => c?.type === 'namespace_export');
        const id = ns?.namedChild(0);
        if (id) this.bind(unquote(id), spec, null, n); // export * as ns from
        else this.bind(null, spec, '*', n); // export * from
      }
      return;
    }
    if (clause) {
      // `export { a as b }`: the file binds `b` to its own `a`.
      for (const s of clause.namedChildren) {
        if (s?.type !== 'export_specifier') continue;
        const name = s.childForFieldName('name');
        const alias = s.childForFieldName('alias');
        if (name && alias && alias.text !== name.text) this.bind(unquote(alias), own, name.text, n);
      }
      return;
    }
    if (!n.children.some((c) => c?.type === 'default')) return;
    const decl = n.childForFieldName('declaration');
    const value = n.childForFieldName('value');
    const named = decl?.childForFieldName('name') ?? null;
    if (named && named.text !== 'default') this.bind('default', own, named.text, n);
    else if (value?.type === 'identifier') this.bind('default', own, value.text, n);
  }

  /** `module.exports = X`, `module.exports.f = …`, `exports.f = …`. */
  protected commonJsExport(path: string[], right: Node | null, n: Node): boolean {
    const isModuleExports = path[0] === 'module' && path[1] === 'exports';
    const isExports = path[0] === 'exports' && this.st.local('exports') === undefined;
    if (!isModuleExports && !isExports) return false;
    const member = isModuleExports ? path[2] : path[1];
    const own = selfSpecifier(this.file);
    if (!right) return true;
    if (!member) {
      if (right.type === 'identifier') this.bind(MODULE_VALUE, own, right.text, n);
      else if (right.type === 'object') {
        // The exported object's members are the module's names.
        this.st.stack.push({ ent: this.st.stack[0].ent, start: right.startIndex, end: right.endIndex, kind: 'container', isStatic: false, locals: new Map(), prefix: '' });
        for (const p of right.namedChildren) {
          if (p?.type !== 'pair') continue;
          const key = p.childForFieldName('key');
          const value = p.childForFieldName('value');
          if (key && value?.type === 'identifier' && value.text !== key.text) this.bind(key.text, own, value.text, n);
        }
      }
      return true;
    }
    if (FUNCTION_VALUES.has(right.type)) this.callable(n, right, member, 'function', right.childForFieldName('body'));
    else if (right.type === 'identifier' && right.text !== member) this.bind(member, own, right.text, n);
    return true;
  }

  /** `const x = require('./m')`, `const { a, b: c } = require('./m')`. */
  protected requireBinding(nameNode: Node, value: Node): boolean {
    let call = value;
    if (call.type === 'await_expression') call = call.namedChild(0) ?? call;
    if (call.type !== 'call_expression') return false;
    const fn = call.childForFieldName('function');
    const isRequire = fn?.type === 'identifier' && fn.text === 'require';
    if (!isRequire && fn?.type !== 'import') return false;
    const spec = stringValue(call.childForFieldName('arguments')?.namedChild(0) ?? null);
    if (spec === null) return false;
    if (nameNode.type === 'identifier') this.bind(nameNode.text, spec, null, value);
    else if (nameNode.type === 'object_pattern') {
      for (const p of nameNode.namedChildren) {
        if (p?.type === 'shorthand_property_identifier_pattern') this.bind(p.text, spec, p.text, value);
        else if (p?.type === 'pair_pattern') {
          const k = p.childForFieldName('key');
          const v = p.childForFieldName('value');
          if (k && v?.type === 'identifier') this.bind(v.text, spec, k.text, value);
        }
      }
    } else return false;
    return true;
  }
}

function unquote(n: Node): string {
  return n.type === 'string' ? n.text.slice(1, -1) : n.text;
}
