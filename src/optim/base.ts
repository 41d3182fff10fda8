import type { Module } from '../module/module.js';
import type { TensorData } from '../core/data.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import type { GradientsParams } from './grads.js';
import type { OptimizerState } from './state.js';

/** A learning rate (Burn's `LearningRate = f64`); a plain number also works as a constant scheduler. */
export type LearningRate = number;

/** The name of the parameter group every parameter belongs to unless a named group claims it. */
export const DEFAULT_GROUP = 'default';

/**
 * The learning rate(s) of one optimizer step (Burn's `ModuleLearningRate`): one number for every
 * parameter, or one per parameter group by name (`{ default: 1e-3, encoder: 1e-4 }`; `default`
 * is required and covers the groups not listed). A name that is not a group of the optimizer is a
 * BurnError.
 */
export type ModuleLearningRate = LearningRate | { readonly [group: string]: LearningRate };

/**
 * The serialized state of an optimizer (Burn's `OptimizerRecord`): tensors and scalars named
 * `<paramId>.<field path>` (e.g. `3fa2….momentum.moment1`), and the module path of each parameter
 * holding state (`paths[paramId]`), used to find its group again when the record is loaded.
 * Optimizers with one global state (L-BFGS) name their entries without an id.
 */
export interface OptimizerRecord {
  readonly tensors: { readonly [name: string]: TensorData };
  readonly scalars: { readonly [name: string]: number };
  readonly paths: { readonly [paramId: string]: string };
}

/**
 * An optimizer of whole modules (Burn's `ModuleOptimizer` API): `step` returns the updated module
 * (parameters keep their ids; frozen parameters and parameters without a gradient are untouched).
 */
export interface Optimizer<M extends Module = Module> {
  /** Applies one update with the learning rate(s) `lr` and the gradients `grads`; returns the new module. */
  step(lr: ModuleLearningRate, module: M, grads: GradientsParams): M;
  /** The optimizer state (reads every state tensor). */
  toRecord(): Promise<OptimizerRecord>;
  /** Replaces the state with `record` (exact resume: the next steps are those the saved optimizer would take). */
  loadRecord(record: OptimizerRecord): this;
}

/** What a {@link SimpleOptimizer} step returns: the new tensor and the parameter's new state. */
export interface SimpleStepResult<D extends number, S extends OptimizerState> {
  readonly tensor: Tensor<D, Float>;
  readonly state: S | undefined;
}

/**
 * An optimizer of one tensor at a time (Burn's per-parameter `Optimizer` trait): it never sees
 * modules, missing gradients, records or autodiff — {@link ModuleOptimizer} handles those. Tensors
 * and gradients live on the inner (non-autodiff) device; the state is `undefined` on the first step.
 */
export interface SimpleOptimizer<S extends OptimizerState = OptimizerState> {
  /** One update of `tensor` with its gradient and state. */
  step<D extends number>(
    lr: LearningRate,
    tensor: Tensor<D, Float>,
    grad: Tensor<D, Float>,
    state: S | undefined,
  ): SimpleStepResult<D, S>;
}
