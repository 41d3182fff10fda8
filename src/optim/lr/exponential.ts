import { Config } from '../../config/config.js';
import type { LearningRate } from '../base.js';
import { lrInUnit } from '../schema.js';
import { recordScalar, type LrScheduler, type LrSchedulerRecord } from './base.js';

/**
 * Configuration of an {@link ExponentialLrScheduler} (Burn's `ExponentialLrSchedulerConfig`): step
 * `i` (from 0) gives `initialLr·gammaⁱ`, as PyTorch's `ExponentialLR`.
 */
export class ExponentialLrSchedulerConfig extends Config.define({
  /** The first learning rate, in (0, 1]. */
  initialLr: lrInUnit(),
  /** The factor applied at every step, in (0, 1]. */
  gamma: lrInUnit(),
}) {
  /** The nesting schema typed as this class (`scheduler: ExponentialLrSchedulerConfig.schema` in another config). */
  static override readonly schema = ExponentialLrSchedulerConfig.nested();

  /** The scheduler. */
  init(): ExponentialLrScheduler {
    return new ExponentialLrScheduler(this);
  }
}

/** An exponential learning-rate decay (Burn's `ExponentialLrScheduler`). */
export class ExponentialLrScheduler implements LrScheduler {
  private previousLr: number;
  private readonly gamma: number;

  constructor(config: ExponentialLrSchedulerConfig) {
    // Starting from initialLr / gamma makes the first step return initialLr.
    this.previousLr = config.initialLr / config.gamma;
    this.gamma = config.gamma;
  }

  step(): LearningRate {
    this.previousLr *= this.gamma;
    return this.previousLr;
  }

  toRecord(): LrSchedulerRecord {
    return { previousLr: this.previousLr };
  }

  loadRecord(record: LrSchedulerRecord): this {
    this.previousLr = recordScalar(record, 'previousLr', 'ExponentialLrScheduler.loadRecord');
    return this;
  }
}
