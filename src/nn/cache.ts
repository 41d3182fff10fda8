import type { Float } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';

/**
 * A cache for one tensor (Burn's `TensorCache`), used by the autoregressive inference of the
 * attention and transformer layers: it keeps the output computed for the tokens seen so far, so
 * each new step only computes the last token. A cache is mutable and belongs to one decoding run.
 */
export class TensorCache<D extends number> {
  private state: Tensor<D, Float> | undefined = undefined;

  /** An empty cache. */
  static empty<D extends number>(): TensorCache<D> {
    return new TensorCache<D>();
  }

  /** Whether the cache holds a value. */
  isEmpty(): boolean {
    return this.state === undefined;
  }

  /**
   * Autoregressive step: when empty, `fn(tensor)`; otherwise `fn` of the last position of
   * `tensor` (`[batch, seq, d]` → `[batch, 1, d]`) concatenated to the cached value along
   * `dimCat`. The result is cached and returned.
   */
  forwardAutoregressive(
    tensor: Tensor<3, Float>,
    dimCat: number,
    fn: (t: Tensor<3, Float>) => Tensor<D, Float>,
  ): Tensor<D, Float> {
    const old = this.state;
    let next: Tensor<D, Float>;
    if (old === undefined) {
      next = fn(tensor);
    } else {
      const seq = tensor.dims()[1]!;
      next = Tensor.cat([old, fn(tensor.slice([null, [seq - 1, seq]]))], dimCat);
    }
    this.state = next;
    return next;
  }

  /** Full cache: `fn(tensor)` the first time, the cached value afterwards (a fixed memory). */
  forwardFull(tensor: Tensor<3, Float>, fn: (t: Tensor<3, Float>) => Tensor<D, Float>): Tensor<D, Float> {
    if (this.state === undefined) this.state = fn(tensor);
    return this.state;
  }
}
