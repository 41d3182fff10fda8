import { Config } from '../config/config.js';
import type { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { LearningRate, SimpleOptimizer, SimpleStepResult } from './base.js';
import { gradientClippingSchema } from './clipping.js';
import { WeightDecay, WeightDecayConfig } from './decay.js';
import { moduleOptimizer, type ModuleOptimizer } from './module-optimizer.js';
import { nonNegative, positive } from './schema.js';

/** Configuration of {@link AdaGrad} (Burn's `AdaGradConfig`; Burn's ε default is 1e-5, PyTorch's 1e-10). */
export class AdaGradConfig extends Config.define({
  /** Learning-rate decay: step `t` uses `lr / (1 + (t − 1)·lrDecay)`. */
  lrDecay: nonNegative().default(0),
  /** Added to the denominator for numerical stability. */
  epsilon: positive().default(1e-5),
  /** L2 weight decay added to the gradient. */
  weightDecay: WeightDecayConfig.nested().optional(),
  /** Gradient clipping. */
  gradClipping: gradientClippingSchema.optional(),
}) {
  /** The nesting schema typed as this class (`optimizer: AdaGradConfig.schema` in another config). */
  static override readonly schema = AdaGradConfig.nested();

  /** The per-tensor optimizer (for `ModuleOptimizer.withGroup`); {@link init} also applies the clipping. */
  build(): AdaGrad {
    return new AdaGrad(this);
  }

  /** An optimizer for any module. */
  init<M extends Module = Module>(): ModuleOptimizer<M> {
    return moduleOptimizer<M>(this.build(), this.gradClipping);
  }
}

/** The state of one parameter of {@link AdaGrad}: steps taken and the sum of squared gradients. */
export type AdaGradState = { readonly lrDecay: { readonly time: number; readonly sum: Tensor<number, Float> } };

/** AdaGrad (Burn's `AdaGrad`; Duchi et al.): `θ ← θ − lrₜ·g / (√Σg² + ε)`. */
export class AdaGrad implements SimpleOptimizer<AdaGradState> {
  private readonly lrDecay: number;
  private readonly epsilon: number;
  private readonly weightDecay: WeightDecay | undefined;

  constructor(config: AdaGradConfig = new AdaGradConfig()) {
    this.lrDecay = config.lrDecay;
    this.epsilon = config.epsilon;
    this.weightDecay = config.weightDecay && new WeightDecay(config.weightDecay);
  }

  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: AdaGradState | undefined,
  ): SimpleStepResult<D, AdaGradState> {
    const g = this.weightDecay ? this.weightDecay.transform(grad, tensor) : grad;
    const prev = state?.lrDecay;
    const time = prev === undefined ? 1 : prev.time + 1;
    const sum = prev === undefined ? g.square() : (prev.sum as Tensor<D, Float>).add(g.square());
    const clr = lr / (1 + (time - 1) * this.lrDecay);
    const delta = g.div(sum.sqrt().add(this.epsilon)).mul(clr);
    return { tensor: tensor.sub(delta), state: { lrDecay: { time, sum } } };
  }
}
