import { Config } from '../../config/config.js';
import type { LearningRate } from '../base.js';
import { intAtLeast, lrInUnit, unitClosed } from '../schema.js';
import { recordScalar, type LrScheduler, type LrSchedulerRecord } from './base.js';

/**
 * Configuration of a {@link LinearLrScheduler} (Burn's `LinearLrSchedulerConfig`): `initialLr` at
 * the first step, then a constant change per step reaching `finalLr` after `numIters` steps.
 */
export class LinearLrSchedulerConfig extends Config.define({
  /** The first learning rate, in (0, 1]. */
  initialLr: lrInUnit(),
  /** The learning rate from step `numIters + 1` on, in [0, 1]. */
  finalLr: unitClosed(),
  /** Steps from the initial to the final rate. */
  numIters: intAtLeast(1),
}) {
  /** The nesting schema typed as this class (`scheduler: LinearLrSchedulerConfig.schema` in another config). */
  static override readonly schema = LinearLrSchedulerConfig.nested();

  /** The scheduler. */
  init(): LinearLrScheduler {
    return new LinearLrScheduler(this);
  }
}

/** A linear learning-rate schedule (Burn's `LinearLrScheduler`; PyTorch's `LinearLR`). */
export class LinearLrScheduler implements LrScheduler {
  private readonly finalLr: number;
  private readonly stepSize: number;
  private remainingIters: number;

  constructor(config: LinearLrSchedulerConfig) {
    this.finalLr = config.finalLr;
    this.stepSize = (config.finalLr - config.initialLr) / config.numIters;
    this.remainingIters = config.numIters + 1;
  }

  step(): LearningRate {
    if (this.remainingIters !== 0) this.remainingIters--;
    return this.finalLr - this.stepSize * this.remainingIters;
  }

  toRecord(): LrSchedulerRecord {
    return { remainingIters: this.remainingIters };
  }

  loadRecord(record: LrSchedulerRecord): this {
    this.remainingIters = recordScalar(record, 'remainingIters', 'LinearLrScheduler.loadRecord');
    return this;
  }
}
