import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Module } from '../module/module.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { LearningRate, SimpleOptimizer, SimpleStepResult } from './base.js';
import { WeightDecayConfig } from './decay.js';
import { moduleOptimizer, type ModuleOptimizer } from './module-optimizer.js';
import { Momentum, MomentumConfig, type MomentumState } from './momentum.js';
import { intAtLeast, positive } from './schema.js';

/**
 * How Muon scales the learning rate by the parameter's shape `[A, B]` (Burn's `AdjustLrFn`):
 * `'original'` (Keller Jordan) `lr·√max(1, A/B)`; `'matchRmsAdamW'` (Moonshot) `lr·0.2·√max(A, B)`.
 */
export type AdjustLrFn = 'original' | 'matchRmsAdamW';

/** The learning-rate adjustment modes. */
export const AdjustLrFn = {
  /** `lr·√max(1, A/B)`. */
  Original: 'original' as AdjustLrFn,
  /** `lr·0.2·√max(A, B)`, matching AdamW's update RMS. */
  MatchRmsAdamW: 'matchRmsAdamW' as AdjustLrFn,
} as const;

/** The factor `adjust` multiplies the learning rate by for a parameter of `shape`. */
export function adjustmentRatio(adjust: AdjustLrFn, shape: readonly number[]): number {
  if (shape.length < 2) return 1;
  const [a, b] = [shape[0]!, shape[1]!];
  return adjust === 'original' ? Math.sqrt(Math.max(1, a / b)) : 0.2 * Math.sqrt(Math.max(a, b));
}

/**
 * Configuration of {@link Muon} (Burn's `MuonConfig`): momentum 0.95 with Nesterov and no
 * dampening, 5 Newton–Schulz steps with Keller Jordan's coefficients (3.4445, −4.775, 2.0315),
 * ε 1e-7, `'original'` learning-rate adjustment.
 */
export class MuonConfig extends Config.define({
  /** Decoupled weight decay `θ ← θ·(1 − lr·penalty)` (with the unadjusted learning rate). */
  weightDecay: WeightDecayConfig.nested().optional(),
  /** Momentum applied before the orthogonalization. */
  momentum: MomentumConfig.nested().default(new MomentumConfig({ momentum: 0.95, dampening: 0, nesterov: true })),
  /** Newton–Schulz coefficients `(a, b, c)`. */
  nsCoefficients: z.tuple([z.number(), z.number(), z.number()]).default([3.4445, -4.775, 2.0315]),
  /** Lower bound of the norm the update is divided by. */
  epsilon: positive().default(1e-7),
  /** Newton–Schulz iterations. */
  nsSteps: intAtLeast(1).default(5),
  /** Learning-rate adjustment by shape. */
  adjustLrFn: z.enum(['original', 'matchRmsAdamW']).default('original'),
}) {
  /** The nesting schema typed as this class (`optimizer: MuonConfig.schema` in another config). */
  static override readonly schema = MuonConfig.nested();

  /** The per-tensor optimizer (for `ModuleOptimizer.withGroup`, e.g. with AdamW for biases). */
  build(): Muon {
    return new Muon(this);
  }

  /** An optimizer for modules whose trainable parameters are all 2-d. */
  init<M extends Module = Module>(): ModuleOptimizer<M> {
    return moduleOptimizer<M>(this.build(), undefined);
  }
}

/** The state of one parameter of {@link Muon}. */
export type MuonState = { readonly momentum: MomentumState };

/**
 * Muon (Burn's `Muon`; Keller Jordan): SGD momentum whose update is replaced by the nearest
 * orthogonal matrix (quintic Newton–Schulz iteration), for 2-d weights of hidden layers. Other
 * parameters (biases, embeddings) belong in another group (`ModuleOptimizer.withGroup`).
 */
export class Muon implements SimpleOptimizer<MuonState> {
  private readonly momentum: Momentum;
  private readonly coefficients: readonly [number, number, number];
  private readonly steps: number;
  private readonly epsilon: number;
  private readonly penalty: number | undefined;
  private readonly adjust: AdjustLrFn;

  constructor(config: MuonConfig = new MuonConfig()) {
    this.momentum = new Momentum(config.momentum);
    this.coefficients = config.nsCoefficients;
    this.steps = config.nsSteps;
    this.epsilon = config.epsilon;
    this.penalty = config.weightDecay?.penalty;
    this.adjust = config.adjustLrFn;
  }

  /** The orthogonalized `g` (Newton–Schulz on `g / max(‖g‖, ε)`, transposed when tall). */
  orthogonalize<D extends number>(g: Tensor<D, Float>): Tensor<D, Float> {
    const dims = g.dims();
    const tall = dims[dims.length - 2]! > dims[dims.length - 1]!;
    let x = tall ? g.transpose() : g;
    const norm = x.square().sum().sqrt().clampMin(this.epsilon);
    x = x.div(norm.reshape(dims.map(() => 1)) as Tensor<D, Float>);
    const [a, b, c] = this.coefficients;
    for (let i = 0; i < this.steps; i++) {
      const gram = x.matmul(x.transpose());
      const poly = gram.mul(b).add(gram.matmul(gram).mul(c));
      x = x.mul(a).add(poly.matmul(x));
    }
    return tall ? x.transpose() : x;
  }

  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: MuonState | undefined,
  ): SimpleStepResult<D, MuonState> {
    if (tensor.dims().length !== 2) {
      throw new BurnError(
        'Muon',
        `Newton–Schulz orthogonalization needs a 2-d parameter, got shape ${fmt(tensor.dims())}; optimize it in another group (ModuleOptimizer.withGroup with e.g. AdamW)`,
      );
    }
    const { grad: direction, state: momentum } = this.momentum.transform(grad, state?.momentum);
    const update = this.orthogonalize(direction);
    const adjustedLr = lr * adjustmentRatio(this.adjust, tensor.dims());
    const decayed = this.penalty === undefined ? tensor : tensor.mul(1 - lr * this.penalty);
    return { tensor: decayed.sub(update.mul(adjustedLr)), state: { momentum } };
  }
}
