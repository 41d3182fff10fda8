import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { expectFloatArg, expectPair } from './check.js';
import { reduceLoss } from './reduce.js';
import type { Reduction } from './reduction.js';

/** `0.5 · ln(2π)`, added when `full`. */
const HALF_LN_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/** Configuration of {@link GaussianNLLLoss} (Burn's `GaussianNLLLossConfig`). */
export class GaussianNLLLossConfig extends Config.define({
  /** Lower clamp of the variance, for stability. */
  eps: z.number().positive().default(1e-6),
  /** Whether to add the constant `0.5 · ln(2π)`. */
  full: z.boolean().default(false),
}) {
  /** Creates the loss. */
  init(): GaussianNLLLoss {
    return new GaussianNLLLoss(this);
  }
}

/**
 * Gaussian negative log likelihood (Burn's `GaussianNLLLoss`, PyTorch's `gaussian_nll_loss`):
 * `0.5 · (log(v) + (input - target)² / v)` with `v = max(var, eps)` (`+ 0.5 · ln(2π)` when `full`).
 * `var` has the input's shape, or size 1 in its last dim (one variance per row, broadcast).
 * As in Burn, the clamp is an ordinary op: where `var < eps` its gradient is 0 (PyTorch clamps
 * without recording the op, so its gradient passes through).
 */
export class GaussianNLLLoss extends Module {
  /** Lower clamp of the variance. */
  readonly eps: number;
  /** Whether the constant term is added. */
  readonly full: boolean;

  constructor(config: GaussianNLLLossConfig = new GaussianNLLLossConfig()) {
    super();
    this.eps = config.eps;
    this.full = config.full;
  }

  /** The reduced loss (`mean`/`auto` or `sum`; default `mean`, as PyTorch). */
  forward<D extends number>(
    input: Tensor<D, Float>,
    target: Tensor<D, Float>,
    variance: Tensor<D, Float>,
    reduction: Reduction = 'mean',
  ): Tensor<1, Float> {
    return reduceLoss(this.forwardNoReduction(input, target, variance), reduction, 'GaussianNLLLoss');
  }

  /** The elementwise loss (the input's shape). */
  forwardNoReduction<D extends number>(
    input: Tensor<D, Float>,
    target: Tensor<D, Float>,
    variance: Tensor<D, Float>,
  ): Tensor<D, Float> {
    expectPair(input, target, 'GaussianNLLLoss', 'input', 'target');
    expectFloatArg(variance, 'GaussianNLLLoss', 'var');
    const dims = input.dims(),
      vdims = variance.dims();
    const fits =
      vdims.length === dims.length && vdims.every((v, i) => v === dims[i] || (i === dims.length - 1 && v === 1));
    if (!fits) {
      throw new BurnError(
        'GaussianNLLLoss',
        `var of shape ${fmt(vdims)} for input of shape ${fmt(dims)}; expected ${fmt(dims)} or ${fmt([...dims.slice(0, -1), 1])}`,
      );
    }
    const v = variance.clampMin(this.eps);
    const loss = v.log().add(input.sub(target).square().div(v)).mul(0.5);
    return this.full ? loss.add(HALF_LN_TWO_PI) : loss;
  }

  override displayAttributes(): Record<string, unknown> {
    return { eps: this.eps, full: this.full };
  }
}
