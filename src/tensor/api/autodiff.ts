import type { Gradients } from '../../backend/autodiff.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Kind } from '../kind.js';
import { sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { TensorIntBool } from './int-bool.js';

/**
 * Automatic differentiation on tensors of an autodiff device (`device.autodiff()`), Burn's
 * `api/autodiff.rs`. On other devices `requireGrad` is a no-op, as in Burn, and `backward` throws.
 */
export class TensorAutodiff<D extends number = number, K extends Kind = Float> extends TensorIntBool<D, K> {
  private ad(op: string) {
    const ops = this.backend.autodiff;
    if (!ops) throw new BurnError(op, `${this.dev} is not an autodiff device; create tensors on device.autodiff()`);
    return ops;
  }

  /** Marks this tensor as a leaf whose gradient `backward()` computes (no-op without autodiff). */
  requireGrad(): Tensor<D, K> {
    return this.setRequireGrad(true);
  }
  /** Marks (true) or unmarks (false, detaching) this tensor for gradients. */
  setRequireGrad(require: boolean): Tensor<D, K> {
    const ops = this.backend.autodiff;
    return ops ? this.wrap(ops.requireGrad(this.primitive, require)) : this.wrap(this.primitive);
  }
  /** True when gradients flow to or through this tensor. */
  isRequireGrad(): boolean {
    return this.backend.autodiff?.isRequireGrad(this.primitive) ?? false;
  }
  /** The same values, cut from the autodiff graph. */
  detach(): Tensor<D, K> {
    const ops = this.backend.autodiff;
    return ops ? this.wrap(ops.detach(this.primitive)) : this.wrap(this.primitive);
  }
  /** Same as `setRequireGrad(false)`. */
  noGrad(): Tensor<D, K> {
    return this.setRequireGrad(false);
  }
  /** Computes the gradients of every tracked leaf with respect to this tensor (seeded with ones) and frees the graph. */
  backward(): Gradients {
    return this.ad('backward').backward(this.primitive);
  }
  /** The gradient of this leaf in `grads`, on the inner device; undefined when it has none. */
  grad(grads: Gradients): Tensor<D, K> | undefined {
    const id = this.ad('grad').nodeId(this.primitive);
    const g = id === undefined ? undefined : grads.get(id);
    return g === undefined ? undefined : this.onInner(g);
  }
  /** Removes and returns this leaf's gradient from `grads`. */
  gradRemove(grads: Gradients): Tensor<D, K> | undefined {
    const id = this.ad('gradRemove').nodeId(this.primitive);
    const g = id === undefined ? undefined : grads.remove(id);
    return g === undefined ? undefined : this.onInner(g);
  }
  /** Replaces this leaf's gradient in `grads` with `grad` (a tensor of the inner device and the same shape). */
  gradReplace(grads: Gradients, grad: Tensor<D, K>): void {
    const id = this.ad('gradReplace').nodeId(this.primitive);
    if (id === undefined) throw new BurnError('gradReplace', 'the tensor does not require grad');
    if (!sameShape(grad.primitive.shape, this.primitive.shape)) {
      throw new BurnError(
        'gradReplace',
        `gradient of shape ${fmt(grad.primitive.shape)} for a tensor of shape ${fmt(this.primitive.shape)}`,
      );
    }
    if (!grad.dev.equals(this.dev.inner()))
      throw new BurnError('gradReplace', `the gradient must live on ${this.dev.inner()}, not ${grad.dev}`);
    grads.set(id, grad.primitive);
  }
  /** The same values on the inner device (untracked); on a device without autodiff, the tensor itself. */
  inner(): Tensor<D, K> {
    const ops = this.backend.autodiff;
    return ops ? this.onInner(ops.inner(this.primitive)) : this.wrap(this.primitive);
  }
  private onInner(p: Tensor<D, K>['primitive']): Tensor<D, K> {
    const inner = this.dev.inner();
    return new (this.constructor as new (d: typeof inner, p: Tensor<D, K>['primitive']) => Tensor<D, K>)(inner, p);
  }
}
