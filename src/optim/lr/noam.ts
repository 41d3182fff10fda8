import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { LearningRate } from '../base.js';
import { intAtLeast } from '../schema.js';
import { recordScalar, type LrScheduler, type LrSchedulerRecord } from './base.js';

/**
 * Configuration of a {@link NoamLrScheduler} (Burn's `NoamLrSchedulerConfig`, "Attention Is All You
 * Need"): step `s` (from 1) gives `factor·modelSize^−½·min(s^−½, s·warmupSteps^−³⁄₂)`.
 */
export class NoamLrSchedulerConfig extends Config.define({
  /** Overall scale. */
  factor: z.number().refine(Number.isFinite, { error: (iss) => `must be a finite number, got ${String(iss.input)}` }),
  /** Steps of linear warm-up before the inverse-square-root decay. */
  warmupSteps: intAtLeast(1).default(4000),
  /** The model size (embedding dimension). */
  modelSize: intAtLeast(1).default(512),
}) {
  /** The nesting schema typed as this class (`scheduler: NoamLrSchedulerConfig.schema` in another config). */
  static override readonly schema = NoamLrSchedulerConfig.nested();

  /** The scheduler. */
  init(): NoamLrScheduler {
    return new NoamLrScheduler(this);
  }
}

/** The Noam learning-rate schedule (Burn's `NoamLrScheduler`). */
export class NoamLrScheduler implements LrScheduler {
  private readonly warmupSteps: number;
  private readonly embeddingSize: number;
  private readonly factor: number;
  private stepCount = 0;

  constructor(config: NoamLrSchedulerConfig) {
    this.warmupSteps = config.warmupSteps;
    this.embeddingSize = config.modelSize;
    this.factor = config.factor;
  }

  step(): LearningRate {
    this.stepCount += 1;
    const arg1 = this.stepCount ** -0.5;
    const arg2 = this.stepCount * this.warmupSteps ** -1.5;
    return this.factor * this.embeddingSize ** -0.5 * Math.min(arg1, arg2);
  }

  toRecord(): LrSchedulerRecord {
    return { step: this.stepCount };
  }

  loadRecord(record: LrSchedulerRecord): this {
    this.stepCount = recordScalar(record, 'step', 'NoamLrScheduler.loadRecord');
    return this;
  }
}
