import { Config } from '../config/config.js';
import type { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { LearningRate, SimpleOptimizer, SimpleStepResult } from './base.js';
import { gradientClippingSchema } from './clipping.js';
import { WeightDecay, WeightDecayConfig } from './decay.js';
import { moduleOptimizer, type ModuleOptimizer } from './module-optimizer.js';
import { Momentum, MomentumConfig, type MomentumState } from './momentum.js';

/** Configuration of {@link Sgd} (Burn's `SgdConfig`): plain SGD unless momentum or weight decay is set. */
export class SgdConfig extends Config.define({
  /** L2 weight decay added to the gradient. */
  weightDecay: WeightDecayConfig.nested().optional(),
  /** Momentum (Burn's `MomentumConfig`: momentum 0.9, dampening 0.1, no Nesterov by default). */
  momentum: MomentumConfig.nested().optional(),
  /** Gradient clipping. */
  gradientClipping: gradientClippingSchema.optional(),
}) {
  /** The nesting schema typed as this class (`optimizer: SgdConfig.schema` in another config). */
  static override readonly schema = SgdConfig.nested();

  /** The per-tensor optimizer (for `ModuleOptimizer.withGroup`); {@link init} also applies the clipping. */
  build(): Sgd {
    return new Sgd(this);
  }

  /** An optimizer for any module. */
  init<M extends Module = Module>(): ModuleOptimizer<M> {
    return moduleOptimizer<M>(this.build(), this.gradientClipping);
  }
}

/** The state of one parameter of {@link Sgd}. */
export type SgdState = { readonly momentum: MomentumState | undefined };

/** Stochastic gradient descent (Burn's `Sgd`): `θ ← θ − lr·d`, `d` the (decayed, momentum) gradient. */
export class Sgd implements SimpleOptimizer<SgdState> {
  private readonly momentum: Momentum | undefined;
  private readonly weightDecay: WeightDecay | undefined;

  constructor(config: SgdConfig = new SgdConfig()) {
    this.momentum = config.momentum && new Momentum(config.momentum);
    this.weightDecay = config.weightDecay && new WeightDecay(config.weightDecay);
  }

  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: SgdState | undefined,
  ): SimpleStepResult<D, SgdState> {
    let g = this.weightDecay ? this.weightDecay.transform(grad, tensor) : grad;
    let momentum = state?.momentum;
    if (this.momentum) ({ grad: g, state: momentum } = this.momentum.transform(g, momentum));
    return { tensor: tensor.sub(g.mul(lr)), state: { momentum } };
  }
}
