import type { Module } from '../module/module.js';
import { BurnError, fmt } from '../core/errors.js';
import { sameShape } from '../core/shape.js';
import { Tensor } from '../tensor/tensor.js';
import { GradientsParams } from './grads.js';

/**
 * Sums gradients over several steps (Burn's `GradientsAccumulator`), e.g. to train with a larger
 * effective batch: `accumulate(module, grads)` after each backward pass, then `grads()` hands the
 * sums to the optimizer and starts over.
 */
export class GradientsAccumulator<M extends Module = Module> {
  private sums = new GradientsParams();
  private count = 0;

  /** Adds the gradients of `module`'s parameters in `grads` to the running sums. */
  accumulate(module: M, grads: GradientsParams): void {
    module.visit((param) => {
      const next = grads.get(param.id);
      if (next === undefined) return;
      const current = this.sums.get(param.id);
      if (current !== undefined && !sameShape(current.dims(), next.dims())) {
        throw new BurnError(
          'GradientsAccumulator.accumulate',
          `gradient of shape ${fmt(next.dims())} for a parameter whose accumulated gradient has shape ${fmt(current.dims())}`,
        );
      }
      // The sums outlive the caller's scopes until `grads()` hands them over.
      this.sums.register(param.id, Tensor.keep(current === undefined ? next : current.add(next)));
    });
    this.count++;
  }

  /** Number of `accumulate` calls since the last {@link grads}. */
  steps(): number {
    return this.count;
  }

  /** The summed gradients; the accumulator starts over empty. */
  grads(): GradientsParams {
    const out = this.sums;
    this.sums = new GradientsParams();
    this.count = 0;
    return out;
  }
}
