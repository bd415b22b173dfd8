// A tree cursor that reads without allocating, for copying a whole syntax tree into JS at once.
//
// web-tree-sitter's TreeCursor and Node copy their state in and out of WASM memory through
// `setValue`/`getValue` and allocate a Node or a Point per answer: about 1.3 µs a named node,
// more than our whole extraction spends on it. The package's own exports can do the same walk
// with the cursor's state left in place in the transfer buffer between calls (the C side reads
// and writes it there): ~0.4 µs a node. When those exports are not there (another version of
// the package), the public TreeCursor gives the same answers, slower.
import type { Node, TreeCursor } from 'web-tree-sitter';

/** The walk a tree copy needs: where the cursor is and what it is on. */
export interface FlatCursor {
  /** Symbol of the current node (`Language.types` index; 65535 for ERROR). */
  typeId(): number;
  /** Field id of the current node in its parent (0: none). */
  fieldId(): number;
  startIndex(): number;
  endIndex(): number;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
  /** Frees the cursor; it must not be used after. */
  delete(): void;
}

/** The exports of the tree-sitter WASM module this cursor calls (see lib/tree-sitter.c of web-tree-sitter). */
interface Exports {
  HEAP32: Int32Array;
  _ts_init(): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
}

const NEEDED = [
  '_ts_init',
  '_ts_tree_cursor_current_node_type_id_wasm',
  '_ts_tree_cursor_current_field_id_wasm',
  '_ts_tree_cursor_start_index_wasm',
  '_ts_tree_cursor_end_index_wasm',
  '_ts_tree_cursor_goto_first_child_wasm',
  '_ts_tree_cursor_goto_next_sibling_wasm',
  '_ts_tree_cursor_goto_parent_wasm',
];

/** Internal slots of web-tree-sitter objects: the tree's pointer, the cursor's four words of state. */
type Slots = Record<0 | 1 | 2 | 3, number>;

/**
 * A function making flat cursors over the trees of the instance whose Emscripten module is
 * `module`; the public TreeCursor when the module lacks the exports this needs.
 */
export function flatCursors(module: Record<string, unknown>): (node: Node) => FlatCursor {
  const ok = NEEDED.every((k) => typeof module[k] === 'function') && module.HEAP32 instanceof Int32Array;
  if (!ok) return (node) => new PublicCursor(node.walk());
  const m = module as unknown as Exports;
  // The transfer buffer's address (ts_init only writes the ABI versions into it and returns it).
  const buffer = m._ts_init() >> 2;
  // The raw path leans on the package's private layout: the first tree it is asked for is also
  // walked with the public cursor, and any difference means the public cursor from then on.
  let verified: boolean | null = null;
  return (node) => {
    verified ??= sameWalk(() => new RawCursor(m, buffer, node.walk()), () => new PublicCursor(node.walk()));
    return verified ? new RawCursor(m, buffer, node.walk()) : new PublicCursor(node.walk());
  };
}

/**
 * Whether two cursors walk the same tree alike (its first 200 nodes: types, fields, ranges,
 * depth and siblings; a layout that differs reads garbage from the first node). The walk runs
 * cold, in a process's first extraction: a thousand nodes were 16–25 ms of a CLI query's
 * one-file re-index, 200 are ~4. One after the other: the raw cursor keeps its state in the
 * transfer buffer, which any public call reuses.
 */
function sameWalk(a: () => FlatCursor, b: () => FlatCursor): boolean {
  try {
    const first = steps(a());
    const second = steps(b());
    return first.length === second.length && first.every((x, i) => x === second[i]);
  } catch {
    return false;
  }
}

/** What a pre-order walk sees, node by node (type, field, range), up to a limit; frees the cursor. */
function steps(c: FlatCursor, limit = 200): number[] {
  const out: number[] = [];
  try {
    for (let n = 0; n < limit; n++) {
      out.push(c.typeId(), c.fieldId(), c.startIndex(), c.endIndex());
      if (c.gotoFirstChild()) continue;
      while (!c.gotoNextSibling()) if (!c.gotoParent()) return out;
    }
    return out;
  } finally {
    c.delete();
  }
}

class RawCursor implements FlatCursor {
  private readonly tree: number;

  constructor(
    private readonly m: Exports,
    private readonly buffer: number,
    private readonly cursor: TreeCursor,
  ) {
    const c = cursor as unknown as Slots;
    this.tree = (cursor as unknown as { tree: Slots }).tree[0];
    const h = m.HEAP32;
    h[buffer] = c[0];
    h[buffer + 1] = c[1];
    h[buffer + 2] = c[2];
    h[buffer + 3] = c[3];
  }

  typeId(): number {
    return this.m._ts_tree_cursor_current_node_type_id_wasm(this.tree);
  }
  fieldId(): number {
    return this.m._ts_tree_cursor_current_field_id_wasm(this.tree);
  }
  startIndex(): number {
    return this.m._ts_tree_cursor_start_index_wasm(this.tree);
  }
  endIndex(): number {
    return this.m._ts_tree_cursor_end_index_wasm(this.tree);
  }
  gotoFirstChild(): boolean {
    return this.m._ts_tree_cursor_goto_first_child_wasm(this.tree) === 1;
  }
  gotoNextSibling(): boolean {
    return this.m._ts_tree_cursor_goto_next_sibling_wasm(this.tree) === 1;
  }
  gotoParent(): boolean {
    return this.m._ts_tree_cursor_goto_parent_wasm(this.tree) === 1;
  }
  delete(): void {
    // Back into the package's object (its state moved with the walk), which frees it.
    const c = this.cursor as unknown as Slots;
    const h = this.m.HEAP32; // memory may have grown since the constructor
    c[0] = h[this.buffer];
    c[1] = h[this.buffer + 1];
    c[2] = h[this.buffer + 2];
    c[3] = h[this.buffer + 3];
    this.cursor.delete();
  }
}

class PublicCursor implements FlatCursor {
  constructor(private readonly c: TreeCursor) {}
  typeId(): number {
    return this.c.nodeTypeId;
  }
  fieldId(): number {
    return this.c.currentFieldId;
  }
  startIndex(): number {
    return this.c.startIndex;
  }
  endIndex(): number {
    return this.c.endIndex;
  }
  gotoFirstChild(): boolean {
    return this.c.gotoFirstChild();
  }
  gotoNextSibling(): boolean {
    return this.c.gotoNextSibling();
  }
  gotoParent(): boolean {
    return this.c.gotoParent();
  }
  delete(): void {
    this.c.delete();
  }
}
