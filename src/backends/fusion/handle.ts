import type { TensorPrimitive } from '../../backend/backend.js';
import { inScope, NO_SCAN, trackAllocation, type Releasable } from '../../backend/memory.js';
import type { DType } from '../../core/dtype.js';
import { BurnError } from '../../core/errors.js';
import type { Node } from './node.js';

/** What a handle asks of its decorator when it is released or settled. */
export interface HandleOwner<P extends TensorPrimitive> {
  /** Drops the handle's reference on `node`. */
  drop(node: Node<P>): void;
  /** Computes `node` if it is pending. */
  settle(node: Node<P>): void;
}

/**
 * A tensor of the fusion decorator: a lazy handle on an expression node holding one reference of
 * it. Created inside `Tensor.scope` it is tracked; a handle that survives its scope computes its
 * values when the scope ends (`settle`), one that does not is released (and, if pending, is never
 * computed).
 */
export class FusedTensor<P extends TensorPrimitive = TensorPrimitive> implements TensorPrimitive, Releasable {
  /** @internal Scopes do not search inside (the inner primitives are owned by the nodes). */
  readonly [NO_SCAN] = true;
  private released = false;

  constructor(
    /** The expression; a leaf once computed. */
    readonly node: Node<P>,
    private readonly owner: HandleOwner<P>,
  ) {
    node.refs++;
    if (inScope()) trackAllocation(this);
  }

  get shape(): readonly number[] {
    return this.node.shape;
  }

  get dtype(): DType {
    return this.node.dtype;
  }

  /** True while the values are not computed yet. */
  get pending(): boolean {
    return this.node.kind !== 'leaf';
  }

  /** The node, or a BurnError once this handle was released. */
  live(): Node<P> {
    if (this.released)
      throw new BurnError('fusion', `a tensor of shape [${this.shape.join(', ')}] was used after dispose()`);
    return this.node;
  }

  /** Releases this handle's reference (idempotent): `dispose()`, the end of a scope. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.owner.drop(this.node);
  }

  /** True once {@link release} ran. */
  get isReleased(): boolean {
    return this.released;
  }

  /** Called when a scope ends and this handle survives it: the values are computed now. */
  settle(): void {
    if (!this.released) this.owner.settle(this.node);
  }
}
