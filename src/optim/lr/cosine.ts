import { BurnError } from '../../core/errors.js';
import { Config } from '../../config/config.js';
import type { LearningRate } from '../base.js';
import { intAtLeast, lrInUnit, unitClosed } from '../schema.js';
import { recordScalar, type LrScheduler, type LrSchedulerRecord } from './base.js';

/**
 * Configuration of a {@link CosineAnnealingLrScheduler} (Burn's `CosineAnnealingLrSchedulerConfig`):
 * from `initialLr` down to `minLr` along a half cosine over `numIters` steps, continuing along the
 * cosine afterwards (no restarts), as PyTorch's `CosineAnnealingLR`.
 */
export class CosineAnnealingLrSchedulerConfig extends Config.define({
  /** The first learning rate, in (0, 1]. */
  initialLr: lrInUnit(),
  /** The lowest learning rate, in [0, initialLr]. */
  minLr: unitClosed().default(0),
  /** Steps from the initial to the minimum rate. */
  numIters: intAtLeast(1),
}) {
  /** The nesting schema typed as this class (`scheduler: CosineAnnealingLrSchedulerConfig.schema` in another config). */
  static override readonly schema = CosineAnnealingLrSchedulerConfig.nested();

  /** The scheduler; `minLr` above `initialLr` is a BurnError. */
  init(): CosineAnnealingLrScheduler {
    if (this.minLr > this.initialLr) {
      throw new BurnError(
        'CosineAnnealingLrSchedulerConfig',
        `minLr ${this.minLr} must be at most initialLr ${this.initialLr}`,
      );
    }
    return new CosineAnnealingLrScheduler(this);
  }
}

/** Cosine annealing without restarts (Burn's `CosineAnnealingLrScheduler`). */
export class CosineAnnealingLrScheduler implements LrScheduler {
  private readonly minLr: number;
  private readonly maxLr: number;
  private readonly numIters: number;
  /** −1 before the first step. */
  private currentIter = -1;

  constructor(config: CosineAnnealingLrSchedulerConfig) {
    this.minLr = config.minLr;
    this.maxLr = config.initialLr;
    this.numIters = config.numIters;
  }

  step(): LearningRate {
    this.currentIter++;
    return this.minLr + 0.5 * (this.maxLr - this.minLr) * (1 + Math.cos((this.currentIter / this.numIters) * Math.PI));
  }

  toRecord(): LrSchedulerRecord {
    return { currentIter: this.currentIter };
  }

  loadRecord(record: LrSchedulerRecord): this {
    this.currentIter = recordScalar(record, 'currentIter', 'CosineAnnealingLrScheduler.loadRecord');
    return this;
  }
}
