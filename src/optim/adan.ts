import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { LearningRate, SimpleOptimizer, SimpleStepResult } from './base.js';
import { gradientClippingSchema } from './clipping.js';
import { moduleOptimizer, type ModuleOptimizer } from './module-optimizer.js';
import { nonNegative, positive, unitOpen } from './schema.js';

type AnyFloat = Tensor<number, Float>;

/** Configuration of {@link Adan} (Burn's `AdanConfig`; defaults of the paper: β 0.98, 0.92, 0.99, ε 1e-8). */
export class AdanConfig extends Config.define({
  /** Decay of the first moment. */
  beta1: unitOpen().default(0.98),
  /** Decay of the gradient-difference moment. */
  beta2: unitOpen().default(0.92),
  /** Decay of the second moment. */
  beta3: unitOpen().default(0.99),
  /** Added to the denominator for numerical stability. */
  epsilon: positive().default(1e-8),
  /** Weight decay (proximal: `θ ← (θ − lr·u) / (1 + lr·wd)`, unless `noProx`). */
  weightDecay: nonNegative().default(0),
  /** Use the decoupled update `θ ← θ·(1 − lr·wd) − lr·u` instead of the proximal one. */
  noProx: z.boolean().default(false),
  /** Gradient clipping. */
  gradClipping: gradientClippingSchema.optional(),
}) {
  /** The nesting schema typed as this class (`optimizer: AdanConfig.schema` in another config). */
  static override readonly schema = AdanConfig.nested();

  /** The per-tensor optimizer (for `ModuleOptimizer.withGroup`); {@link init} also applies the clipping. */
  build(): Adan {
    return new Adan(this);
  }

  /** An optimizer for any module. */
  init<M extends Module = Module>(): ModuleOptimizer<M> {
    return moduleOptimizer<M>(this.build(), this.gradClipping);
  }
}

/** Adan's moments of one parameter (Burn's `AdaptiveNesterovMomentumState`). */
export type AdanState = {
  readonly momentum: {
    readonly time: number;
    readonly expAvg: AnyFloat;
    readonly expAvgSq: AnyFloat;
    readonly expAvgDiff: AnyFloat;
    /** The previous gradient, negated. */
    readonly negPreGrad: AnyFloat;
  };
};

/** Adan (Burn's `Adan`; Xie et al., arXiv 2208.06677): adaptive Nesterov momentum. */
export class Adan implements SimpleOptimizer<AdanState> {
  private readonly beta1: number;
  private readonly beta2: number;
  private readonly beta3: number;
  private readonly epsilon: number;
  private readonly weightDecay: number;
  private readonly noProx: boolean;

  constructor(config: AdanConfig = new AdanConfig()) {
    this.beta1 = config.beta1;
    this.beta2 = config.beta2;
    this.beta3 = config.beta3;
    this.epsilon = config.epsilon;
    this.weightDecay = config.weightDecay;
    this.noProx = config.noProx;
  }

  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: AdanState | undefined,
  ): SimpleStepResult<D, AdanState> {
    const { beta1: b1, beta2: b2, beta3: b3 } = this;
    const prev = state?.momentum;
    let m: AdanState['momentum'];
    if (prev === undefined) {
      m = {
        time: 1,
        expAvg: grad.mul(1 - b1),
        expAvgSq: grad.square().mul(1 - b3),
        expAvgDiff: grad.zerosLike(),
        negPreGrad: grad.neg(),
      };
    } else {
      const diff = (prev.negPreGrad as Tensor<D, Float>).add(grad);
      const diffSq = diff.mul(b2).add(grad).square();
      m = {
        time: prev.time + 1,
        expAvg: (prev.expAvg as Tensor<D, Float>).mul(b1).add(grad.mul(1 - b1)),
        expAvgDiff: (prev.expAvgDiff as Tensor<D, Float>).mul(b2).add(diff.mul(1 - b2)),
        expAvgSq: (prev.expAvgSq as Tensor<D, Float>).mul(b3).add(diffSq.mul(1 - b3)),
        negPreGrad: grad.neg(),
      };
    }
    const t = m.time;
    const denom = (m.expAvgSq as Tensor<D, Float>)
      .sqrt()
      .div(Math.sqrt(1 - b3 ** t))
      .add(this.epsilon);
    const update = (m.expAvg as Tensor<D, Float>)
      .div(1 - b1 ** t)
      .div(denom)
      .add(
        (m.expAvgDiff as Tensor<D, Float>)
          .mul(b2)
          .div(1 - b2 ** t)
          .div(denom),
      );
    const decayRate = lr * this.weightDecay;
    const delta = update.mul(lr);
    let next: Tensor<D, Float>;
    if (this.noProx) next = decayRate === 0 ? tensor.sub(delta) : tensor.mul(1 - decayRate).sub(delta);
    else next = decayRate === 0 ? tensor.sub(delta) : tensor.sub(delta).div(1 + decayRate);
    return { tensor: next, state: { momentum: m } };
  }
}
