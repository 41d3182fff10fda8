/**
 * `burn-ts/optim`: optimizers (each an `XConfig` whose `init()` gives a `ModuleOptimizer` for any
 * module), gradients by parameter, gradient clipping and accumulation, parameter groups, and
 * learning-rate schedulers, as Burn's `burn::optim` and `burn::lr_scheduler`.
 *
 * ```ts
 * const optim = new AdamConfig({}).init();
 * const grads = GradientsParams.fromGrads(loss.backward(), model);
 * model = optim.step(1e-3, model, grads);
 * ```
 */
export {
  DEFAULT_GROUP,
  type LearningRate,
  type ModuleLearningRate,
  type Optimizer,
  type OptimizerRecord,
  type SimpleOptimizer,
  type SimpleStepResult,
} from './base.js';
export type { OptimizerState, StateValue } from './state.js';
export { GradientsParams } from './grads.js';
export { GradientsAccumulator } from './grad-accum.js';
export { GradientClipping, GradientClippingConfig, gradientClippingSchema } from './clipping.js';
export { ModuleOptimizer, matchesFilter, type GroupOptions } from './module-optimizer.js';
export { Momentum, MomentumConfig, type MomentumState } from './momentum.js';
export { WeightDecay, WeightDecayConfig } from './decay.js';
export { Sgd, SgdConfig, type SgdState } from './sgd.js';
export { Adam, AdamConfig, type AdamState, type AdaptiveMomentumState } from './adam.js';
export { AdamW, AdamWConfig, type AdamWState } from './adamw.js';
export { AdaGrad, AdaGradConfig, type AdaGradState } from './adagrad.js';
export { RmsProp, RmsPropConfig, type RmsPropState } from './rmsprop.js';
export { Adan, AdanConfig, type AdanState } from './adan.js';
export { Muon, MuonConfig, AdjustLrFn, adjustmentRatio, type MuonState } from './muon.js';
export {
  Lbfgs,
  LbfgsConfig,
  LineSearchFn,
  type LbfgsClosure,
  type LbfgsClosureResult,
  type LbfgsState,
} from './lbfgs.js';
export { cubicInterpolate, strongWolfe, type LineObjective, type LineSearchResult } from './line-search.js';
export { ConstantLr, toLrScheduler, type LrScheduler, type LrSchedulerRecord } from './lr/base.js';
export { LinearLrScheduler, LinearLrSchedulerConfig } from './lr/linear.js';
export { CosineAnnealingLrScheduler, CosineAnnealingLrSchedulerConfig } from './lr/cosine.js';
export { ExponentialLrScheduler, ExponentialLrSchedulerConfig } from './lr/exponential.js';
export { NoamLrScheduler, NoamLrSchedulerConfig } from './lr/noam.js';
export { StepLrScheduler, StepLrSchedulerConfig } from './lr/step.js';
export { ComposedLrScheduler, SchedulerReduction } from './lr/composed.js';
export { SequentialLrScheduler } from './lr/sequential.js';
export {
  ComposedLrSchedulerConfig,
  SequentialLrSchedulerConfig,
  buildLrScheduler,
  lrSchedulerConfigSchema,
  lrSchedulerConfigToJSON,
  type LrSchedulerConfig,
  type SchedulerConfigLike,
} from './lr/config.js';
export { ModuleLrScheduler, ModuleLrSchedulerConfig } from './lr/module.js';
