// Statements: blocks, assignments (what they bind, declare and mutate), with-items.
import type { SyntaxNode as Node } from '../../parse/syntax-copy';
import { entityId } from '../../../../../protocol';
import { bindName, setType, type Scope } from './scope';
import { dotted, elementTypeName, typeName } from './text';
import { CONTAINER_TYPE, ELEMENT_TYPE } from '../types';
import { DefinitionWalker } from './definitions';
import { headOf } from './base';

export abstract class StatementWalker extends DefinitionWalker {
  protected block(node: Node, scope: Scope): void {
    for (const c of node.namedChildren) if (c) this.statement(c, scope);
  }

  protected statement(node: Node, scope: Scope): void {
    switch (node.type) {
      case 'function_definition':
      case 'class_definition':
        this.definition(node, scope, [], node);
        return;
      case 'decorated_definition': {
        const def = node.childForFieldName('definition');
        const decos = node.namedChildren.filter((c): c is Node => !!c && c.type === 'decorator');
        if (def) this.definition(def, scope, decos, node);
        return;
      }
      case 'expression_statement':
        // A bare string is documentation (a docstring, a commented-out block), not a message.
        for (const c of node.namedChildren) if (c && !(c.type === 'string' && !c.namedChildren.some((x) => x?.type === 'interpolation'))) this.exprStatement(c, scope);
        return;
      case 'import_statement':
      case 'import_from_statement':
      case 'future_import_statement':
        this.importStatement(node, scope);
        return;
      case 'global_statement':
      case 'nonlocal_statement':
        for (const c of node.namedChildren) if (c?.type === 'identifier') scope.globals.add(this.text(c));
        return;
      case 'delete_statement':
        for (const t of node.namedChildren) {
          if (!t) continue;
          const targets = t.type === 'expression_list' ? t.namedChildren : [t];
          for (const x of targets) if (x) this.mutationTarget(x, scope, null, true);
        }
        return;
      case 'raise_statement':
        this.raise(node, scope);
        return;
      case 'return_statement': {
        const value = node.namedChild(0);
        if (scope.kind === 'function' && value && value.type !== 'none') {
          const sources = this.sources(value);
          if (sources.length) scope.returns.push(...sources);
          else scope.returns.push({ other: true });
        }
        this.expr(value, scope);
        return;
      }
      case 'try_statement':
        this.tryStatement(node, scope);
        return;
      case 'if_statement':
        this.ifStatement(node, scope);
        return;
      case 'assert_statement':
        // `assert isinstance(x, T)`: from here on, x is a T.
        if (scope.kind === 'function') this.narrowScope(scope, this.isinstanceTypes(node.namedChild(0), true));
        this.blocksOf(node, scope, []);
        return;
      case 'for_statement': {
        const left = node.childForFieldName('left');
        const right = node.childForFieldName('right');
        this.bindPattern(left, scope);
        // `for x in xs` over `xs: list[Repo]`: x is a Repo. Over `self.repos` or
        // `self.repos()`: an element of what that attribute or call is (`elem:self.repos`).
        if (left?.type === 'identifier' && right && scope.kind === 'function') {
          const elem = right.type === 'identifier' ? scope.elems.get(this.text(right)) : this.iterated(right);
          if (elem) setType(scope, this.text(left), elem);
        }
        this.expr(right, scope);
        this.blocksOf(node, scope, ['left', 'right']);
        return;
      }
      case 'with_statement':
        for (const c of node.namedChildren) {
          if (!c) continue;
          if (c.type === 'with_clause') {
            for (const item of c.namedChildren) if (item) this.withItem(item, scope);
          } else if (c.type === 'block') this.block(c, scope);
        }
        return;
      case 'comment':
      case 'pass_statement':
      case 'break_statement':
      case 'continue_statement':
        return;
      default:
        this.blocksOf(node, scope, []);
    }
  }

  /**
   * `if isinstance(x, T):` types x as a T in the body; `if not isinstance(x, T): raise …` (or
   * `return`) as a T after it, which this flow-insensitive record takes for the whole function.
   */
  protected ifStatement(node: Node, scope: Scope): void {
    const cond = node.childForFieldName('condition');
    const body = node.childForFieldName('consequence');
    this.expr(cond, scope);
    if (body && scope.kind === 'function') {
      const last = body.namedChildren.filter((c) => c && c.type !== 'comment').pop();
      if (last && (last.type === 'raise_statement' || last.type === 'return_statement')) this.narrowScope(scope, this.isinstanceTypes(cond, false));
      const types = this.isinstanceTypes(cond, true);
      if (types.size) this.narrowing.push({ scope, types });
      this.block(body, scope);
      if (types.size) this.narrowing.pop();
    } else if (body) this.block(body, scope);
    this.blocksOf(node, scope, ['condition', 'consequence']);
  }

  /** Types narrowed for the rest of a function: its parameters and locals only. */
  protected narrowScope(scope: Scope, types: Map<string, string>): void {
    for (const [name, type] of types) if (scope.locals.has(name) && !scope.globals.has(name)) scope.types.set(name, type);
  }

  /** Compound statements (if/while/match/ERROR...): blocks as statements, the rest as expressions. */
  protected blocksOf(node: Node, scope: Scope, skipFields: string[]): void {
    const skip = skipFields.map((f) => node.childForFieldName(f)?.id);
    for (const c of node.namedChildren) {
      if (!c || skip.includes(c.id)) continue;
      const t = c.type;
      if (t === 'block') this.block(c, scope);
      else if (t.endsWith('_clause') || t === 'ERROR') this.blocksOf(c, scope, []);
      else if (t.endsWith('_statement') || t.endsWith('_definition')) this.statement(c, scope);
      else if (t === 'case_pattern') continue;
      else this.exprStatement(c, scope);
    }
  }

  protected exprStatement(node: Node, scope: Scope): void {
    switch (node.type) {
      case 'assignment':
        this.assignment(node, scope);
        return;
      case 'augmented_assignment': {
        const left = node.childForFieldName('left');
        this.expr(node.childForFieldName('right'), scope);
        if (left) this.mutationTarget(left, scope, null, true);
        return;
      }
      default:
        this.expr(node, scope);
    }
  }

  /**
   * `elem:E` for a loop over an attribute chain or a call of a name or chain (`self.tags`,
   * `repo.items()`), as written: like every recorded type, made resolvable once the scope knows
   * its locals (`canonicalType`).
   */
  protected iterated(node: Node): string | null {
    const callee = node.type === 'call' ? node.childForFieldName('function') : node;
    if (!callee || (callee.type !== 'attribute' && (node.type !== 'call' || callee.type !== 'identifier'))) return null;
    const path = dotted(callee, this.source);
    return path ? `${ELEMENT_TYPE}${path}` : null;
  }

  protected assignment(node: Node, scope: Scope): void {
    const left = node.childForFieldName('left');
    const right = node.childForFieldName('right');
    const annotation = node.childForFieldName('type');
    // Chained `a = b = value`: the right side is itself an assignment.
    if (right?.type === 'assignment') this.assignment(right, scope);
    else this.expr(right, scope);
    if (!left) return;
    const rightType = typeName(annotation, this.source) ?? this.valueType(right, scope);
    const elem = elementTypeName(annotation, this.source);
    if (elem && left.type === 'identifier' && scope.kind === 'function') scope.elems.set(this.text(left), elem);
    // An attribute annotated as a container of one class (`self.tags: list[Tag] = []`, a
    // class-level `tags: list[Tag]`) holds `[]Tag`: what `for t in self.tags` binds.
    const container = elem && !rightType && (left.type === 'attribute' || scope.kind === 'class') ? `${CONTAINER_TYPE}${elem}` : null;
    this.mutationTarget(left, scope, rightType ?? container, false);
    if (scope.kind === 'module' && left.type === 'identifier') {
      // What a module global is, for other files: another name, or an instance built by a call.
      const g = this.memberIds.get(entityId('global', this.file, this.text(left)));
      if (g && g.nameSpan.start.row === left.startPosition.row && g.nameSpan.start.column === left.startPosition.column) {
        const alias = right && (right.type === 'identifier' || right.type === 'attribute') ? dotted(right, this.source) : null;
        if (alias) g.alias = alias;
        else if (rightType) g.returns = rightType;
      }
    }
  }

  /** An assignment/del/augmented target: binds locals, declares members, records mutations. */
  protected mutationTarget(t: Node, scope: Scope, type: string | null, inPlace: boolean): void {
    switch (t.type) {
      case 'identifier': {
        const name = this.text(t);
        if (scope.kind === 'module') {
          this.member(scope, name, t);
          setType(scope, name, type);
        } else if (scope.kind === 'class') {
          this.member(scope, name, t);
          if (type) this.attrType(scope, scope.ent.id, name, type);
        } else if (scope.globals.has(name)) {
          this.defer(scope, 'MUTATES', name, t, 'globalOnly');
          if (type) this.globalType(scope, name, type);
        } else {
          if (!inPlace) scope.locals.add(name);
          setType(scope, name, type);
        }
        return;
      }
      case 'attribute': {
        const path = dotted(t, this.source);
        if (!path) {
          this.expr(t.childForFieldName('object'), scope);
          return;
        }
        this.wordsOf(path, scope);
        const head = headOf(path);
        const b = bindName(scope, head);
        const segs = path.split('.');
        if (b.kind === 'self' && segs.length === 2 && scope.kind === 'function') {
          // `self.x = …` declares attribute x of the class (and types it when constructed).
          this.member(b.scope, segs[1], t);
          if (type) this.attrType(scope, b.scope.ent.id, segs[1], type);
        }
        if (scope.kind !== 'module' || b.kind !== 'name') this.defer(scope, 'MUTATES', path, t);
        return;
      }
      case 'subscript': {
        this.expr(t.childForFieldName('subscript'), scope);
        const value = t.childForFieldName('value');
        if (!value) return;
        this.containerMutation(value, t, scope);
        return;
      }
      case 'pattern_list':
      case 'tuple_pattern':
      case 'list_pattern':
      case 'tuple':
      case 'list':
      case 'expression_list':
        for (const c of t.namedChildren) if (c) this.mutationTarget(c, scope, null, inPlace);
        return;
      case 'list_splat_pattern':
      case 'parenthesized_expression':
        if (t.namedChild(0)) this.mutationTarget(t.namedChild(0)!, scope, null, inPlace);
        return;
      default:
        this.expr(t, scope);
    }
  }

  /** `x[k] = v`, `x.append(v)`: mutates x when x is an attribute of self/a typed object or a global. */
  protected containerMutation(container: Node, site: Node, scope: Scope): void {
    if (scope.kind === 'module') {
      this.expr(container, scope);
      return;
    }
    const path = dotted(container, this.source);
    if (!path) {
      this.expr(container, scope);
      return;
    }
    this.wordsOf(path, scope);
    if (path.includes('.')) this.defer(scope, 'MUTATES', path, site);
    else this.defer(scope, 'MUTATES', path, site, 'container');
  }

  protected withItem(item: Node, scope: Scope): void {
    const value = item.childForFieldName('value');
    if (value?.type === 'as_pattern') {
      const inner = value.namedChild(0);
      this.expr(inner, scope);
      const target = value.childForFieldName('alias')?.namedChild(0) ?? null;
      if (target?.type === 'identifier') {
        const name = this.text(target);
        scope.locals.add(name);
        setType(scope, name, this.constructed(inner));
      } else this.bindPattern(target, scope);
    } else this.expr(value, scope);
  }
}
