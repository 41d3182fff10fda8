import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { LearningRate, SimpleOptimizer, SimpleStepResult } from './base.js';
import { gradientClippingSchema } from './clipping.js';
import { WeightDecay, WeightDecayConfig } from './decay.js';
import { moduleOptimizer, type ModuleOptimizer } from './module-optimizer.js';
import { nonNegative, positive, unitClosed } from './schema.js';

type AnyFloat = Tensor<number, Float>;

/**
 * Configuration of {@link RmsProp} (Burn's `RmsPropConfig`). Burn's defaults: α 0.99, **momentum
 * 0.9** and **ε 1e-5** (PyTorch: momentum 0, ε 1e-8).
 */
export class RmsPropConfig extends Config.define({
  /** Smoothing constant of the squared-gradient average. */
  alpha: unitClosed().default(0.99),
  /** Momentum factor (0 disables momentum). */
  momentum: nonNegative().default(0.9),
  /** Added to the denominator for numerical stability. */
  epsilon: positive().default(1e-5),
  /** Normalize by the estimated variance (squared average minus squared mean gradient). */
  centered: z.boolean().default(false),
  /** L2 weight decay added to the gradient. */
  weightDecay: WeightDecayConfig.nested().optional(),
  /** Gradient clipping. */
  gradClipping: gradientClippingSchema.optional(),
}) {
  /** The nesting schema typed as this class (`optimizer: RmsPropConfig.schema` in another config). */
  static override readonly schema = RmsPropConfig.nested();

  /** The per-tensor optimizer (for `ModuleOptimizer.withGroup`); {@link init} also applies the clipping. */
  build(): RmsProp {
    return new RmsProp(this);
  }

  /** An optimizer for any module. */
  init<M extends Module = Module>(): ModuleOptimizer<M> {
    return moduleOptimizer<M>(this.build(), this.gradClipping);
  }
}

/**
 * The state of one parameter of {@link RmsProp}: the squared-gradient average, the gradient
 * average (centered only) and the momentum buffer (momentum > 0 only).
 */
export type RmsPropState = {
  readonly squareAvg: AnyFloat;
  readonly gradAvg: AnyFloat | undefined;
  readonly momentumBuf: AnyFloat | undefined;
};

/** RMSProp (Burn's `RmsProp`; Hinton), optionally centered and with momentum. */
export class RmsProp implements SimpleOptimizer<RmsPropState> {
  private readonly alpha: number;
  private readonly momentum: number;
  private readonly epsilon: number;
  private readonly centered: boolean;
  private readonly weightDecay: WeightDecay | undefined;

  constructor(config: RmsPropConfig = new RmsPropConfig()) {
    this.alpha = config.alpha;
    this.momentum = config.momentum;
    this.epsilon = config.epsilon;
    this.centered = config.centered;
    this.weightDecay = config.weightDecay && new WeightDecay(config.weightDecay);
  }

  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: RmsPropState | undefined,
  ): SimpleStepResult<D, RmsPropState> {
    const a = this.alpha;
    const g = this.weightDecay ? this.weightDecay.transform(grad, tensor) : grad;
    const sq = g.square().mul(1 - a);
    const squareAvg = state === undefined ? sq : (state.squareAvg as Tensor<D, Float>).mul(a).add(sq);
    let avg = squareAvg;
    let gradAvg: Tensor<D, Float> | undefined;
    if (this.centered) {
      const ga = g.mul(1 - a);
      gradAvg = state?.gradAvg === undefined ? ga : (state.gradAvg as Tensor<D, Float>).mul(a).add(ga);
      avg = squareAvg.sub(gradAvg.square());
    }
    let direction = g.div(avg.sqrt().add(this.epsilon));
    let momentumBuf: Tensor<D, Float> | undefined;
    if (this.momentum > 0) {
      momentumBuf =
        state?.momentumBuf === undefined
          ? direction
          : (state.momentumBuf as Tensor<D, Float>).mul(this.momentum).add(direction);
      direction = momentumBuf;
    }
    return { tensor: tensor.sub(direction.mul(lr)), state: { squareAvg, gradAvg, momentumBuf } };
  }
}
