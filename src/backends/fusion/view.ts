import type { SliceSpecs, TensorPrimitive } from '../../backend/backend.js';
import { sameShape } from '../../core/shape.js';
import { Node } from './node.js';
import { materialize, own, type FusionCore } from './plan.js';

/** A layout op applied to an expression: it re-indexes the DAG instead of becoming a node. */
export type View =
  | { readonly kind: 'reshape'; readonly shape: readonly number[] }
  | { readonly kind: 'permute'; readonly axes: readonly number[] }
  | { readonly kind: 'expand'; readonly shape: readonly number[] }
  | { readonly kind: 'slice'; readonly specs: SliceSpecs };

/** The shape `view` gives a tensor of `shape`. */
export function viewShape(shape: readonly number[], view: View): number[] {
  switch (view.kind) {
    case 'reshape':
    case 'expand':
      return [...view.shape];
    case 'permute':
      return view.axes.map((a) => shape[a]!);
    case 'slice':
      return view.specs.map((s) => s.size);
  }
}

/** True when a reshape only inserts or removes size-1 dims (a view of any strided layout). */
export function isUnitReshape(from: readonly number[], to: readonly number[]): boolean {
  const a = from.filter((s) => s !== 1);
  const b = to.filter((s) => s !== 1);
  return sameShape(a, b);
}

/**
 * `view` of `node` as a new node (no reference held yet). A leaf gets the inner backend's view op;
 * a pending elementwise DAG is rebuilt with the view applied to each of its leaves and scalars
 * (shared parts stay shared); a permute goes through reductions too. What cannot be re-indexed is
 * computed first and viewed as a leaf: a reduction under another view (except an expand back along
 * its reduced dims, which becomes a `bcast` node) and a reshape that is more than inserting or
 * removing size-1 dims, unless every leaf is dense (a reshape of it is then a view).
 */
export function applyView<P extends TensorPrimitive>(core: FusionCore<P>, node: Node<P>, view: View): Node<P> {
  if (
    view.kind === 'reshape' &&
    node.kind !== 'leaf' &&
    node.kind !== 'scalar' &&
    !isUnitReshape(node.shape, view.shape) &&
    !reshapable(node)
  )
    materialize(core, node);
  const memo = new Map<Node<P>, Node<P>>();
  const rebuild = (n: Node<P>): Node<P> => {
    const known = memo.get(n);
    if (known !== undefined) return known;
    let out: Node<P>;
    const shape = viewShape(n.shape, view);
    if (n.kind === 'reduce' && view.kind === 'expand' && sameShape(view.shape, n.args[0]!.shape)) out = Node.bcast(n);
    else if (view.kind === 'permute' && n.kind === 'reduce') {
      // A permuted reduction is the reduction of the permuted arg over the dims' new positions.
      const dims = view.axes.flatMap((a, i) => (n.dims.includes(a) ? [i] : []));
      out = Node.reduce(n.rop!, rebuild(n.args[0]!), dims, n.dtype);
    } else if (view.kind === 'permute' && n.kind === 'bcast' && n.args[0]!.kind === 'reduce')
      out = Node.bcast(rebuild(n.args[0]!));
    else {
      if (n.kind === 'reduce' || n.kind === 'bcast') materialize(core, n);
      switch (n.kind) {
        case 'leaf':
          out = Node.leaf(own(core, n.p!, leafView(core, n.p!, view)), view.kind === 'reshape' && n.dense);
          break;
        case 'scalar':
          out = Node.scalar(shape, n.value, n.dtype);
          break;
        default:
          out = Node.op(n.op!, shape, n.dtype, n.args.map(rebuild));
      }
    }
    memo.set(n, out);
    return out;
  };
  return rebuild(node);
}

/**
 * True when a reshape can re-index the pending DAG of `node`: elementwise ops and scalars over dense
 * leaves only (a reshape of each leaf is then a view; reductions and broadcast rows are not re-indexed).
 */
function reshapable<P extends TensorPrimitive>(node: Node<P>): boolean {
  const seen = new Set<Node<P>>();
  const stack = [node];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (seen.has(x)) continue;
    seen.add(x);
    if (x.kind === 'leaf') {
      if (!x.dense) return false;
    } else if (x.kind === 'op') stack.push(...x.args);
    else if (x.kind !== 'scalar') return false;
  }
  return true;
}

/** The inner backend's view op. */
function leafView<P extends TensorPrimitive>(core: FusionCore<P>, p: P, view: View): P {
  const { inner } = core;
  switch (view.kind) {
    case 'reshape':
      return inner.reshape(p, view.shape);
    case 'permute':
      return inner.permute(p, view.axes);
    case 'expand':
      return inner.expand(p, view.shape);
    case 'slice':
      return inner.slice(p, view.specs);
  }
}
