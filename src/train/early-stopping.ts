import { BurnError } from '../core/errors.js';
import { checkOptions } from '../core/options.js';
import type { Split } from './logger.js';
import type { Metric } from './metric/base.js';
import type { MetricHistory } from './renderer/base.js';

/** Decides after each epoch whether training should stop (Burn's `EarlyStoppingStrategy`). */
export interface EarlyStoppingStrategy {
  /** True when training should stop after `epoch`. */
  shouldStop(epoch: number, history: MetricHistory): boolean;
}

/** Options of {@link MetricEarlyStoppingStrategy}. */
export interface MetricEarlyStoppingOptions {
  /** The split whose metric is watched (default `valid`). */
  readonly split?: Split;
  /** `lowest` or `highest` is better (default: from the metric). */
  readonly direction?: 'lowest' | 'highest';
  /** Stop when the best value is this many epochs old (Burn's `NoImprovementSince { n_epochs }`). */
  readonly noImprovementSince: number;
}

/** Stops when a metric has not improved for `noImprovementSince` epochs (Burn's `MetricEarlyStoppingStrategy`). */
export class MetricEarlyStoppingStrategy implements EarlyStoppingStrategy {
  private readonly name: string;
  private readonly split: Split;
  private readonly higher: boolean;
  private readonly patience: number;

  constructor(metric: Pick<Metric, 'name' | 'higherIsBetter'>, options: MetricEarlyStoppingOptions) {
    checkOptions(options, ['split', 'direction', 'noImprovementSince'], 'MetricEarlyStoppingStrategy');
    if (!(Number.isInteger(options.noImprovementSince) && options.noImprovementSince > 0)) {
      throw new BurnError(
        'MetricEarlyStoppingStrategy',
        `noImprovementSince ${options.noImprovementSince}; expected a positive integer`,
      );
    }
    this.name = metric.name;
    this.split = options.split ?? 'valid';
    this.higher = options.direction === undefined ? metric.higherIsBetter : options.direction === 'highest';
    this.patience = options.noImprovementSince;
  }

  shouldStop(epoch: number, history: MetricHistory): boolean {
    const values = history[this.split].get(this.name);
    if (!values || values.length === 0) return false;
    let bestEpoch = 1;
    values.forEach((v, i) => {
      if (this.higher ? v > values[bestEpoch - 1]! : v < values[bestEpoch - 1]!) bestEpoch = i + 1;
    });
    return epoch - bestEpoch >= this.patience;
  }
}
