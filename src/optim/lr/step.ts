import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { LearningRate } from '../base.js';
import { intAtLeast } from '../schema.js';
import { recordScalar, type LrScheduler, type LrSchedulerRecord } from './base.js';

const finite = () =>
  z.number().refine(Number.isFinite, { error: (iss) => `must be a finite number, got ${String(iss.input)}` });

/**
 * Configuration of a {@link StepLrScheduler} (Burn's `StepLrSchedulerConfig`): `initialLr` for
 * `stepSize` steps, then multiplied by `gamma` every `stepSize` steps, as PyTorch's `StepLR`. As in
 * Burn, atypical `initialLr` and `gamma` values are accepted (an optimizer step still rejects a
 * negative rate).
 */
export class StepLrSchedulerConfig extends Config.define({
  /** The first learning rate. */
  initialLr: finite(),
  /** Steps between two decays. */
  stepSize: intAtLeast(1),
  /** The decay factor. */
  gamma: finite().default(0.1),
}) {
  /** The nesting schema typed as this class (`scheduler: StepLrSchedulerConfig.schema` in another config). */
  static override readonly schema = StepLrSchedulerConfig.nested();

  /** The scheduler. */
  init(): StepLrScheduler {
    return new StepLrScheduler(this);
  }
}

/** A step-decay learning-rate schedule (Burn's `StepLrScheduler`). */
export class StepLrScheduler implements LrScheduler {
  private readonly initLr: number;
  private readonly stepSize: number;
  private readonly gamma: number;
  /** The index of the current step (−1 before the first). */
  private iterIdx = -1;

  constructor(config: StepLrSchedulerConfig) {
    this.initLr = config.initialLr;
    this.stepSize = config.stepSize;
    this.gamma = config.gamma;
  }

  step(): LearningRate {
    this.iterIdx++;
    return this.initLr * this.gamma ** Math.floor(this.iterIdx / this.stepSize);
  }

  toRecord(): LrSchedulerRecord {
    return { iterIdx: this.iterIdx };
  }

  loadRecord(record: LrSchedulerRecord): this {
    this.iterIdx = recordScalar(record, 'iterIdx', 'StepLrScheduler.loadRecord');
    return this;
  }
}
