import type { TensorPrimitive } from '../../backend/backend.js';
import type { BinaryOp, CompareOp, PredicateOp, ReduceOp, UnaryOp } from '../../backend/ops.js';
import type { DType } from '../../core/dtype.js';

/** The elementwise op of an `op` node (the IR's elementwise instructions). */
export type NodeOp =
  | { readonly kind: 'unary'; readonly op: UnaryOp }
  | { readonly kind: 'predicate'; readonly op: PredicateOp }
  | { readonly kind: 'binary'; readonly op: BinaryOp }
  | { readonly kind: 'compare'; readonly op: CompareOp }
  | { readonly kind: 'where' }
  | { readonly kind: 'cast' };

/**
 * The kinds of expression node, each evaluated in its own shape's index space:
 * - `leaf`: a materialized inner primitive of exactly the node's shape (any layout);
 * - `scalar`: a number broadcast to the node's shape (`fill`);
 * - `op`: an elementwise op over args of the node's shape;
 * - `reduce`: `rop` over `dims` of its arg (the node's shape has those dims set to 1);
 * - `bcast`: a `reduce` node expanded back along its reduced dims to its arg's shape.
 */
export type NodeKind = 'leaf' | 'scalar' | 'op' | 'reduce' | 'bcast';

/**
 * One node of the lazy expression DAG. Nodes are reference counted (handles and parent nodes hold
 * references); a node computed by a program becomes a `leaf` in place, so every DAG that reads it
 * sees the values. Only the fusion decorator builds them.
 */
export class Node<P extends TensorPrimitive = TensorPrimitive> {
  /** Handles and parent nodes holding this node. */
  refs = 0;
  kind: NodeKind;
  /** The inner primitive of a leaf, owned by this node (disposed when its last reference goes). */
  p: P | undefined;
  /** The value of a scalar. */
  value = 0;
  /** The op of an `op` node. */
  op: NodeOp | undefined;
  /** The reduction of a `reduce` node. */
  rop: ReduceOp | undefined;
  /** The (sorted) reduced dims of a `reduce` node. */
  dims: readonly number[] = [];
  /** The args (each holds one reference of this node). */
  args: Node<P>[] = [];
  /**
   * A leaf whose primitive is (as far as the decorator knows) a dense row-major output, so that any
   * reshape of it is a view: then a reshape re-indexes a pending DAG over such leaves instead of
   * computing it first. Only a hint: a reshape of another layout is still right (the inner backend copies).
   */
  dense = false;

  private constructor(
    kind: NodeKind,
    readonly shape: readonly number[],
    readonly dtype: DType,
  ) {
    this.kind = kind;
  }

  /** A leaf over `p` (which it owns); `dense`: see {@link Node.dense}. */
  static leaf<P extends TensorPrimitive>(p: P, dense = false): Node<P> {
    const n = new Node<P>('leaf', p.shape, p.dtype);
    n.p = p;
    n.dense = dense;
    return n;
  }

  /** `value` broadcast to `shape`. */
  static scalar<P extends TensorPrimitive>(shape: readonly number[], value: number, dtype: DType): Node<P> {
    const n = new Node<P>('scalar', shape, dtype);
    n.value = value;
    return n;
  }

  /** An elementwise op over `args` (all of `shape`). */
  static op<P extends TensorPrimitive>(
    op: NodeOp,
    shape: readonly number[],
    dtype: DType,
    args: readonly Node<P>[],
  ): Node<P> {
    const n = new Node<P>('op', shape, dtype);
    n.op = op;
    n.setArgs(args);
    return n;
  }

  /** `rop` of `x` over `dims`, the dims kept with size 1. */
  static reduce<P extends TensorPrimitive>(rop: ReduceOp, x: Node<P>, dims: readonly number[], dtype: DType): Node<P> {
    const sorted = [...dims].sort((a, b) => a - b);
    const n = new Node<P>(
      'reduce',
      x.shape.map((s, d) => (sorted.includes(d) ? 1 : s)),
      dtype,
    );
    n.rop = rop;
    n.dims = sorted;
    n.setArgs([x]);
    return n;
  }

  /** The reduce node `r` expanded back to its arg's shape. */
  static bcast<P extends TensorPrimitive>(r: Node<P>): Node<P> {
    const n = new Node<P>('bcast', r.args[0]!.shape, r.dtype);
    n.setArgs([r]);
    return n;
  }

  private setArgs(args: readonly Node<P>[]): void {
    this.args = [...args];
    for (const a of args) a.refs++;
  }
}

/** Releases one reference of `n`; a node whose last reference goes releases its own (a leaf its primitive). */
export function unref<P extends TensorPrimitive>(n: Node<P>, dispose: (p: P) => void): void {
  const stack = [n];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (--x.refs > 0) continue;
    if (x.refs < 0) throw new Error('fusion: node released twice');
    if (x.kind === 'leaf') {
      const p = x.p;
      x.p = undefined;
      if (p !== undefined) dispose(p);
    }
    const args = x.args;
    x.args = [];
    stack.push(...args);
  }
}

/** Turns `n` into a leaf over `p` (its computed values; `dense`: see {@link Node.dense}), releasing its args. */
export function toLeaf<P extends TensorPrimitive>(n: Node<P>, p: P, dispose: (p: P) => void, dense = false): void {
  const args = n.args;
  n.kind = 'leaf';
  n.p = p;
  n.dense = dense;
  n.args = [];
  n.op = undefined;
  n.rop = undefined;
  for (const a of args) unref(a, dispose);
}

/** Number of distinct non-leaf nodes of `n`'s DAG, counted up to `limit + 1`. */
export function pendingSize(n: Node, limit: number): number {
  const seen = new Set<Node>();
  const stack = [n];
  while (stack.length > 0 && seen.size <= limit) {
    const x = stack.pop()!;
    if (x.kind === 'leaf' || seen.has(x)) continue;
    seen.add(x);
    stack.push(...x.args);
  }
  return seen.size;
}
