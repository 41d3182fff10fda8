import type { Module } from '../module/module.js';
import type { Optimizer } from '../optim/base.js';
import { BurnError } from '../core/errors.js';

/** A learning-rate schedule the loop steps once per optimizer step (a plain number is constant). */
export interface TrainingScheduler {
  /** The learning rate of the next step. */
  step(): number;
  /** The scheduler state, for checkpoints. */
  toRecord?(): unknown;
  /** Restores a saved state. */
  loadRecord?(record: never): unknown;
}

/**
 * The model, optimizer and learning rate (or scheduler) being trained (Burn's `Learner`
 * components). `SupervisedTraining.launch(learner)` runs it.
 */
export class Learner<M extends Module> {
  /** The learning-rate schedule. */
  readonly scheduler: TrainingScheduler;

  constructor(
    /** The model (on an autodiff device). */
    readonly model: M,
    /** The optimizer. */
    readonly optimizer: Optimizer<NoInfer<M>>,
    lr: number | TrainingScheduler,
  ) {
    if (typeof lr === 'number') {
      if (!(lr > 0) || !Number.isFinite(lr))
        throw new BurnError('Learner', `learning rate ${lr}; expected a positive finite number`);
      this.scheduler = { step: () => lr };
    } else {
      this.scheduler = lr;
    }
  }
}
