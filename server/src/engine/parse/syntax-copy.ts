// A syntax tree copied into plain JS objects in one cursor pass, answering the part of the Node
// API an extractor walks with (type, range, named children, fields) without crossing into WASM.
// Every property of a web-tree-sitter Node is a call into WASM that allocates; an extractor
// asks several of each node, so reading each node once and walking the copy is much cheaper.
//
// The copy keeps named nodes, and the anonymous ones that fill a field (`operator`); positions
// are computed from the source (tree-sitter counts rows at `\n`, columns in UTF-16 code units
// as web-tree-sitter reports them). What it does not keep (all children, for a header spread
// over lines) comes from the real node, found again by its child indices.
import type { Language, Node } from 'web-tree-sitter';
import type { FlatCursor } from './flat-cursor';

export interface Point {
  row: number;
  column: number;
}

/** What a copy needs to know of a language, computed once per grammar. */
export class LanguageTables {
  /** Symbol → type name (ERROR for symbols with none, as Node.type). */
  readonly types: string[];
  /** Symbol → named (ERROR, 65535, is absent: named). */
  readonly named: boolean[];
  readonly fields: ReadonlyArray<string | null>;
  private readonly fieldIds = new Map<string, number>();

  constructor(language: Language) {
    this.types = language.types.map((t) => t || 'ERROR');
    this.named = language.types.map((_, i) => language.nodeTypeIsNamed(i));
    this.fields = language.fields;
    language.fields.forEach((f, i) => {
      if (f && !this.fieldIds.has(f)) this.fieldIds.set(f, i);
    });
  }

  /** Symbol → 1 for the named symbols of these type names. */
  symbols(names: readonly string[]): Uint8Array {
    const out = new Uint8Array(this.types.length);
    this.types.forEach((t, i) => {
      if (this.named[i] && names.includes(t)) out[i] = 1;
    });
    return out;
  }

  fieldId(name: string): number {
    return this.fieldIds.get(name) ?? -1;
  }
}

/**
 * The copied nodes, in pre-order, as columns of numbers: no object per node, so a large file's
 * tree costs the garbage collector nothing while it is walked. Nodes are linked to their
 * parent, first child and next sibling; the children kept are the named ones and the
 * anonymous ones that fill a field.
 */
class CopiedTree {
  private lineStarts: number[] | null = null;
  count = 0;
  /** Nodes whose children were not copied (see CopyFilter). */
  readonly shallow = new Set<number>();
  sym: Uint16Array;
  field: Uint16Array;
  named: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  parent: Int32Array;
  firstChild: Int32Array;
  nextSibling: Int32Array;
  /** Index among all the parent's children, anonymous ones included (Node.child). */
  childIndex: Int32Array;

  constructor(
    readonly source: string,
    readonly root: Node,
    readonly tables: LanguageTables,
    /** Nodes to make room for (grown when more come). */
    capacity: number,
  ) {
    const n = Math.max(64, capacity);
    this.sym = new Uint16Array(n);
    this.field = new Uint16Array(n);
    this.named = new Uint8Array(n);
    this.start = new Int32Array(n);
    this.end = new Int32Array(n);
    this.parent = new Int32Array(n);
    this.firstChild = new Int32Array(n);
    this.nextSibling = new Int32Array(n);
    this.childIndex = new Int32Array(n);
  }

  /** Appends a node (its children and next sibling none yet); returns its index. */
  add(sym: number, field: number, named: boolean, start: number, end: number, parent: number, childIndex: number): number {
    const i = this.count++;
    if (i === this.sym.length) this.grow();
    this.sym[i] = sym;
    this.field[i] = field;
    this.named[i] = named ? 1 : 0;
    this.start[i] = start;
    this.end[i] = end;
    this.parent[i] = parent;
    this.firstChild[i] = -1;
    this.nextSibling[i] = -1;
    this.childIndex[i] = childIndex;
    return i;
  }

  private grow(): void {
    const n = this.sym.length * 2;
    const more = <T extends Uint16Array | Uint8Array | Int32Array>(a: T, make: new (n: number) => T): T => {
      const b = new make(n);
      b.set(a);
      return b;
    };
    this.sym = more(this.sym, Uint16Array);
    this.field = more(this.field, Uint16Array);
    this.named = more(this.named, Uint8Array);
    this.start = more(this.start, Int32Array);
    this.end = more(this.end, Int32Array);
    this.parent = more(this.parent, Int32Array);
    this.firstChild = more(this.firstChild, Int32Array);
    this.nextSibling = more(this.nextSibling, Int32Array);
    this.childIndex = more(this.childIndex, Int32Array);
  }

  position(index: number): Point {
    const starts = (this.lineStarts ??= lineStarts(this.source));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= index) lo = mid;
      else hi = mid - 1;
    }
    return { row: lo, column: index - starts[lo] };
  }
}

function lineStarts(source: string): number[] {
  const out = [0];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** A view of one copied node, made when asked for (compare nodes by `id`, not identity). */
export class SyntaxNode {
  constructor(
    private readonly tree: CopiedTree,
    /** Unique in its copy. */
    readonly id: number,
  ) {}

  get type(): string {
    return this.tree.tables.types[this.tree.sym[this.id]] ?? 'ERROR';
  }

  get startIndex(): number {
    return this.tree.start[this.id];
  }

  get endIndex(): number {
    return this.tree.end[this.id];
  }

  get startPosition(): Point {
    return this.tree.position(this.tree.start[this.id]);
  }

  get endPosition(): Point {
    return this.tree.position(this.tree.end[this.id]);
  }

  get parent(): SyntaxNode | null {
    const p = this.tree.parent[this.id];
    return p < 0 ? null : new SyntaxNode(this.tree, p);
  }

  get namedChildren(): SyntaxNode[] {
    const t = this.tree;
    const out: SyntaxNode[] = [];
    for (let c = t.firstChild[this.id]; c >= 0; c = t.nextSibling[c]) if (t.named[c]) out.push(new SyntaxNode(t, c));
    return out;
  }

  get namedChildCount(): number {
    const t = this.tree;
    let n = 0;
    for (let c = t.firstChild[this.id]; c >= 0; c = t.nextSibling[c]) n += t.named[c];
    return n;
  }

  namedChild(index: number): SyntaxNode | null {
    const t = this.tree;
    for (let c = t.firstChild[this.id]; c >= 0; c = t.nextSibling[c]) if (t.named[c] && index-- === 0) return new SyntaxNode(t, c);
    return null;
  }

  /** The first child, named or not, in field `name` (as Node.childForFieldName). */
  childForFieldName(name: string): SyntaxNode | null {
    const t = this.tree;
    const id = t.tables.fieldId(name);
    if (id < 0) return null;
    for (let c = t.firstChild[this.id]; c >= 0; c = t.nextSibling[c]) if (t.field[c] === id) return new SyntaxNode(t, c);
    return null;
  }

  /** Its children were not copied (see CopyFilter): copy `real()` to walk them. */
  get shallow(): boolean {
    return this.tree.shallow.has(this.id);
  }

  /** All children, anonymous ones included, as real nodes (rarely needed: asked of the tree). */
  get children(): Node[] {
    return this.real().children.filter((c): c is Node => !!c);
  }

  /** The web-tree-sitter node this is a copy of. */
  real(): Node {
    const t = this.tree;
    const path: number[] = [];
    for (let i = this.id; t.parent[i] >= 0; i = t.parent[i]) path.push(t.childIndex[i]);
    let node = t.root;
    for (let i = path.length - 1; i >= 0; i--) node = node.child(path[i])!;
    return node;
  }
}

/**
 * Which subtrees not to copy: a node of one of `types` is copied alone, with no children
 * (`shallow`; `real()` reaches them), when `enter` says so. `enter` is asked of those types only
 * and must not call into tree-sitter.
 */
export interface CopyFilter {
  types: readonly string[];
  /** `depth`: 1 for the copied root's children. */
  enter(type: string, startIndex: number, endIndex: number, depth: number): boolean;
}

/**
 * Copies `root`'s subtree, walking `cursor` (which starts on `root` and is freed here). Nothing
 * else may call into the same tree-sitter instance during the walk (the raw cursor keeps its
 * state in the instance's transfer buffer).
 */
export function copySyntax(root: Node, cursor: FlatCursor, source: string, tables: LanguageTables, filter?: CopyFilter): SyntaxNode {
  const named = tables.named;
  const asked = filter ? tables.symbols(filter.types) : null;
  try {
    const start = cursor.startIndex();
    const end = cursor.endIndex();
    // About one kept node per eight or nine characters of Python (stdlib: 8.8 with every node
    // kept, fewer with a filter); a file denser than that grows its columns once.
    const tree = new CopiedTree(source, root, tables, (end - start) >> 3);
    const top = tree.add(cursor.typeId(), 0, true, start, end, -1, 0);
    if (!cursor.gotoFirstChild()) return new SyntaxNode(tree, top);
    let parent = top;
    /** The last child added to `parent`, to link the next one after. */
    let last = -1;
    let index = 0;
    let depth = 1;
    for (;;) {
      const sym = cursor.typeId();
      const isNamed = named[sym] !== false;
      // Anonymous nodes are kept only when they fill a field, and never entered: for the Node
      // API's named children they are leaves.
      const field = cursor.fieldId();
      if (isNamed || field) {
        const node = tree.add(sym, field, isNamed, cursor.startIndex(), cursor.endIndex(), parent, index);
        if (last < 0) tree.firstChild[parent] = node;
        else tree.nextSibling[last] = node;
        last = node;
        if (asked?.[sym] && !filter!.enter(tree.tables.types[sym], tree.start[node], tree.end[node], depth)) tree.shallow.add(node);
        else if (isNamed && cursor.gotoFirstChild()) {
          parent = node;
          last = -1;
          index = 0;
          depth++;
          continue;
        }
      }
      while (!cursor.gotoNextSibling()) {
        if (parent === top) return new SyntaxNode(tree, top);
        cursor.gotoParent();
        depth--;
        last = parent;
        index = tree.childIndex[parent];
        parent = tree.parent[parent];
      }
      index++;
    }
  } finally {
    cursor.delete();
  }
}
