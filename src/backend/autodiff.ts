import type { TensorPrimitive } from './backend.js';

/**
 * The gradients of one backward pass: a map from the tracked leaf tensors (by node id) to their
 * gradient, a primitive of the inner device. Read it with `tensor.grad(grads)`.
 */
export class Gradients {
  private readonly byNode = new Map<number, TensorPrimitive>();

  /** @internal The gradient recorded for a node. */
  get(node: number): TensorPrimitive | undefined {
    return this.byNode.get(node);
  }

  /** @internal Sets (replaces) the gradient of a node. */
  set(node: number, grad: TensorPrimitive): void {
    this.byNode.set(node, grad);
  }

  /** @internal Removes and returns the gradient of a node. */
  remove(node: number): TensorPrimitive | undefined {
    const g = this.byNode.get(node);
    this.byNode.delete(node);
    return g;
  }

  /** Number of tensors holding a gradient. */
  get size(): number {
    return this.byNode.size;
  }

  /** @internal The node ids holding a gradient. */
  nodes(): IterableIterator<number> {
    return this.byNode.keys();
  }
}

/**
 * What an autodiff backend adds to {@link Backend}; the Tensor API reaches it through
 * `backend.autodiff`, which is undefined on backends without automatic differentiation.
 */
export interface AutodiffOps<P extends TensorPrimitive = TensorPrimitive> {
  /** Marks a tensor as a leaf that requires grad (or detaches it when `require` is false). */
  requireGrad(p: P, require: boolean): P;
  /** True when the tensor is tracked (a leaf that requires grad, or computed from one). */
  isRequireGrad(p: P): boolean;
  /** The same values, cut from the graph. */
  detach(p: P): P;
  /** Runs the backward pass from `p` (seeded with ones) and frees the graph. */
  backward(p: P): Gradients;
  /** The node id of a tracked tensor, undefined for untracked ones. */
  nodeId(p: P): number | undefined;
  /** The primitive of the inner backend. */
  inner(p: P): TensorPrimitive;
  /** Wraps a primitive of the inner backend (untracked). */
  fromInner(p: TensorPrimitive): P;
}
