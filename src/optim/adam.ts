import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { LearningRate, SimpleOptimizer, SimpleStepResult } from './base.js';
import { gradientClippingSchema } from './clipping.js';
import { WeightDecay, WeightDecayConfig } from './decay.js';
import { moduleOptimizer, type ModuleOptimizer } from './module-optimizer.js';
import { positive, unitOpen } from './schema.js';

type AnyFloat = Tensor<number, Float>;

/**
 * Configuration of {@link Adam} (Burn's `AdamConfig`). Burn's defaults: β₁ 0.9, β₂ 0.999 and
 * **ε 1e-5** (PyTorch uses 1e-8); weight decay is L2 (added to the gradient).
 */
export class AdamConfig extends Config.define({
  /** Decay of the first moment. */
  beta1: unitOpen().default(0.9),
  /** Decay of the second moment. */
  beta2: unitOpen().default(0.999),
  /** Added to the denominator for numerical stability. */
  epsilon: positive().default(1e-5),
  /** Use the maximum of past second moments (AMSGrad). */
  amsgrad: z.boolean().default(false),
  /** L2 weight decay added to the gradient. */
  weightDecay: WeightDecayConfig.nested().optional(),
  /** Gradient clipping. */
  gradClipping: gradientClippingSchema.optional(),
}) {
  /** The nesting schema typed as this class (`optimizer: AdamConfig.schema` in another config). */
  static override readonly schema = AdamConfig.nested();

  /** The per-tensor optimizer (for `ModuleOptimizer.withGroup`); {@link init} also applies the clipping. */
  build(): Adam {
    return new Adam(this);
  }

  /** An optimizer for any module. */
  init<M extends Module = Module>(): ModuleOptimizer<M> {
    return moduleOptimizer<M>(this.build(), this.gradClipping);
  }
}

/** Adam's moments of one parameter (Burn's `AdaptiveMomentumState`). */
export type AdaptiveMomentumState = {
  /** Steps taken. */
  readonly time: number;
  readonly moment1: AnyFloat;
  readonly moment2: AnyFloat;
  /** Running maximum of `moment2` (AMSGrad only). */
  readonly maxMoment2: AnyFloat | undefined;
};

/** The moment settings shared by Adam and AdamW. */
export interface MomentSettings {
  readonly beta1: number;
  readonly beta2: number;
  readonly epsilon: number;
  readonly amsgrad: boolean;
}

/** Updates the moments with `grad` (the first step starts from zero moments). */
export function updateMoments(
  s: MomentSettings,
  grad: AnyFloat,
  state: AdaptiveMomentumState | undefined,
): AdaptiveMomentumState {
  if (state === undefined) {
    const moment2 = grad.square().mul(1 - s.beta2);
    return { time: 1, moment1: grad.mul(1 - s.beta1), moment2, maxMoment2: s.amsgrad ? moment2 : undefined };
  }
  const moment1 = state.moment1.mul(s.beta1).add(grad.mul(1 - s.beta1));
  const moment2 = state.moment2.mul(s.beta2).add(grad.square().mul(1 - s.beta2));
  const maxMoment2 = s.amsgrad ? (state.maxMoment2 ?? state.moment2).maxPair(moment2) : undefined;
  return { time: state.time + 1, moment1, moment2, maxMoment2 };
}

/**
 * Adam's update `lr·m̂ / (√v̂ + ε)` (Burn's `AdaptiveMomentum`), written as
 * `m·lr·√(1−β₂ᵗ)/(1−β₁ᵗ) / (√v + ε·√(1−β₂ᵗ))`.
 */
function adamDelta<D extends number>(
  s: MomentSettings,
  state: AdaptiveMomentumState,
  lr: LearningRate,
): Tensor<D, Float> {
  const t = state.time;
  const bc2Sqrt = Math.sqrt(1 - s.beta2 ** t);
  // The learning rate joins the scalar factor (one pass over the tensor less than Burn's `·lr` at the end).
  const factor = (bc2Sqrt / (1 - s.beta1 ** t)) * lr;
  const v = s.amsgrad ? (state.maxMoment2 ?? state.moment2) : state.moment2;
  return state.moment1.mul(factor).div(v.sqrt().add(s.epsilon * bc2Sqrt)) as Tensor<D, Float>;
}

/**
 * The whole step through the backend's fused kernel (`Backend.adamStep`: one pass, the same
 * values as the op-by-op update), or undefined where it has none (or for AMSGrad).
 */
function fusedAdamStep<D extends number>(
  s: MomentSettings,
  tensor: Tensor<D, Float>,
  grad: Tensor<D, Float>,
  state: AdaptiveMomentumState | undefined,
  lr: LearningRate,
): SimpleStepResult<D, AdamState> | undefined {
  const backend = tensor.backend;
  if (!backend.adamStep || s.amsgrad) return undefined;
  const time = (state?.time ?? 0) + 1;
  const bc2Sqrt = Math.sqrt(1 - s.beta2 ** time);
  const options = {
    beta1: s.beta1,
    beta2: s.beta2,
    factor: (bc2Sqrt / (1 - s.beta1 ** time)) * lr,
    epsilon: s.epsilon * bc2Sqrt,
  };
  const out = backend.adamStep(
    tensor.primitive,
    grad.primitive,
    state?.moment1.primitive,
    state?.moment2.primitive,
    options,
  );
  if (out === undefined) return undefined;
  const [param, moment1, moment2] = out.map((p) => tensor.wrap<D, Float>(p));
  return { tensor: param!, state: { momentum: { time, moment1: moment1!, moment2: moment2!, maxMoment2: undefined } } };
}

/** The state of one parameter of {@link Adam}. */
export type AdamState = { readonly momentum: AdaptiveMomentumState };

/** Adam (Burn's `Adam`; Kingma & Ba), with optional AMSGrad and L2 weight decay. */
export class Adam implements SimpleOptimizer<AdamState> {
  private readonly settings: MomentSettings;
  private readonly weightDecay: WeightDecay | undefined;

  constructor(config: AdamConfig = new AdamConfig()) {
    this.settings = { beta1: config.beta1, beta2: config.beta2, epsilon: config.epsilon, amsgrad: config.amsgrad };
    this.weightDecay = config.weightDecay && new WeightDecay(config.weightDecay);
  }

  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: AdamState | undefined,
  ): SimpleStepResult<D, AdamState> {
    const g = this.weightDecay ? this.weightDecay.transform(grad, tensor) : grad;
    const fused = fusedAdamStep(this.settings, tensor, g, state?.momentum, lr);
    if (fused !== undefined) return fused;
    const momentum = updateMoments(this.settings, g, state?.momentum);
    const delta = adamDelta<D>(this.settings, momentum, lr);
    return { tensor: tensor.sub(delta), state: { momentum } };
  }
}
