import { BurnError } from '../../core/errors.js';
import type { LearningRate } from '../base.js';
import { nestRecord, subRecord, toLrScheduler, type LrScheduler, type LrSchedulerRecord } from './base.js';

/** How a {@link ComposedLrScheduler} combines its schedulers' rates (Burn's `SchedulerReduction`). */
export type SchedulerReduction = 'avg' | 'sum' | 'prod';

/** The reductions. */
export const SchedulerReduction = {
  /** The mean of the rates. */
  Avg: 'avg' as SchedulerReduction,
  /** The sum of the rates. */
  Sum: 'sum' as SchedulerReduction,
  /** The product of the rates (e.g. a warm-up factor times a decay). */
  Prod: 'prod' as SchedulerReduction,
} as const;

/**
 * Several schedulers stepped together, their rates combined by a reduction (Burn's
 * `ComposedLrScheduler`; build it with `ComposedLrSchedulerConfig` or directly).
 */
export class ComposedLrScheduler implements LrScheduler {
  private readonly schedulers: LrScheduler[];

  constructor(
    schedulers: readonly (LearningRate | LrScheduler)[],
    readonly reduction: SchedulerReduction = 'prod',
  ) {
    if (!['avg', 'sum', 'prod'].includes(reduction))
      throw new BurnError(
        'ComposedLrScheduler',
        `unknown reduction '${String(reduction)}'; expected 'avg', 'sum' or 'prod'`,
      );
    this.schedulers = schedulers.map(toLrScheduler);
  }

  /** Adds a scheduler (Burn's `with_custom_scheduler`). */
  withScheduler(scheduler: LearningRate | LrScheduler): this {
    this.schedulers.push(toLrScheduler(scheduler));
    return this;
  }

  step(): LearningRate {
    const n = this.schedulers.length;
    let out = this.reduction === 'prod' ? 1 : 0;
    for (const s of this.schedulers) {
      const lr = s.step();
      out = this.reduction === 'avg' ? out + lr / n : this.reduction === 'sum' ? out + lr : out * lr;
    }
    return out;
  }

  toRecord(): LrSchedulerRecord {
    const out: Record<string, number> = {};
    this.schedulers.forEach((s, i) => nestRecord(out, String(i), s.toRecord()));
    return out;
  }

  loadRecord(record: LrSchedulerRecord): this {
    this.schedulers.forEach((s, i) => s.loadRecord(subRecord(record, String(i))));
    return this;
  }
}
