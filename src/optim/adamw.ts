import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { updateMoments, type AdaptiveMomentumState, type MomentSettings } from './adam.js';
import type { LearningRate, SimpleOptimizer, SimpleStepResult } from './base.js';
import { gradientClippingSchema } from './clipping.js';
import { moduleOptimizer, type ModuleOptimizer } from './module-optimizer.js';
import { nonNegative, positive, unitOpen } from './schema.js';

/**
 * Configuration of {@link AdamW} (Burn's `AdamWConfig`). Burn's defaults: β₁ 0.9, β₂ 0.999,
 * **ε 1e-5** and **decoupled weight decay 1e-4** (PyTorch: 1e-8 and 1e-2).
 */
export class AdamWConfig extends Config.define({
  /** Decay of the first moment. */
  beta1: unitOpen().default(0.9),
  /** Decay of the second moment. */
  beta2: unitOpen().default(0.999),
  /** Added to the denominator for numerical stability. */
  epsilon: positive().default(1e-5),
  /** Decoupled weight decay: `θ ← θ·(1 − lr·weightDecay)` before the Adam update. */
  weightDecay: nonNegative().default(1e-4),
  /** Cautious weight decay (arXiv 2510.12402): decay only where `θ` and the first moment agree in sign. */
  cautiousWeightDecay: z.boolean().default(false),
  /** Use the maximum of past second moments (AMSGrad). */
  amsgrad: z.boolean().default(false),
  /** Gradient clipping. */
  gradClipping: gradientClippingSchema.optional(),
}) {
  /** The nesting schema typed as this class (`optimizer: AdamWConfig.schema` in another config). */
  static override readonly schema = AdamWConfig.nested();

  /** The per-tensor optimizer (for `ModuleOptimizer.withGroup`); {@link init} also applies the clipping. */
  build(): AdamW {
    return new AdamW(this);
  }

  /** An optimizer for any module. */
  init<M extends Module = Module>(): ModuleOptimizer<M> {
    return moduleOptimizer<M>(this.build(), this.gradClipping);
  }
}

/** The state of one parameter of {@link AdamW}. */
export type AdamWState = { readonly momentum: AdaptiveMomentumState };

/** AdamW (Burn's `AdamW`; Loshchilov & Hutter): Adam with decoupled weight decay. */
export class AdamW implements SimpleOptimizer<AdamWState> {
  private readonly settings: MomentSettings;
  private readonly weightDecay: number;
  private readonly cautious: boolean;

  constructor(config: AdamWConfig = new AdamWConfig()) {
    this.settings = { beta1: config.beta1, beta2: config.beta2, epsilon: config.epsilon, amsgrad: config.amsgrad };
    this.weightDecay = config.weightDecay;
    this.cautious = config.cautiousWeightDecay;
  }

  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: AdamWState | undefined,
  ): SimpleStepResult<D, AdamWState> {
    const s = this.settings;
    const momentum = updateMoments(s, grad, state?.momentum);
    // m̂ / (√v̂ + ε), as Burn's AdaptiveMomentumW.
    const t = momentum.time;
    const v = s.amsgrad ? (momentum.maxMoment2 ?? momentum.moment2) : momentum.moment2;
    const direction = momentum.moment1.div(1 - s.beta1 ** t).div(
      v
        .div(1 - s.beta2 ** t)
        .sqrt()
        .add(s.epsilon),
    ) as Tensor<D, Float>;
    const decayRate = lr * this.weightDecay;
    let decayed: Tensor<D, Float>;
    if (decayRate === 0) {
      decayed = tensor;
    } else if (this.cautious) {
      const differ = tensor.greaterEqual(0).notEqual((momentum.moment1 as Tensor<D, Float>).greaterEqual(0));
      decayed = tensor.sub(tensor.mul(decayRate).maskFill(differ, 0));
    } else {
      decayed = tensor.mul(1 - decayRate);
    }
    return { tensor: decayed.sub(direction.mul(lr)), state: { momentum } };
  }
}
