import type { TensorPrimitive } from '../../backend/backend.js';
import type { Node } from './graph.js';

/** A primitive of the autodiff backend: the inner backend's primitive plus its graph node (if tracked). */
export class AdTensor implements TensorPrimitive {
  constructor(
    /** The inner backend's primitive holding the values. */
    readonly inner: TensorPrimitive,
    /** The graph node; undefined when the tensor is not tracked. */
    readonly node: Node | undefined,
  ) {}

  get shape(): readonly number[] {
    return this.inner.shape;
  }

  get dtype(): TensorPrimitive['dtype'] {
    return this.inner.dtype;
  }
}
