import { NumericMetric, type MetricEntry, type MetricMetadata } from './base.js';

/**
 * The learning rate of each step (Burn's `LearningRateMetric`): a setting, not a measure of the
 * model, so it is tracked on the training split only and has no best epoch in the summary.
 */
export class LearningRateMetric extends NumericMetric<unknown> {
  readonly name = 'Learning Rate';
  readonly trainOnly = true;

  async update(_input: unknown, meta: MetricMetadata): Promise<MetricEntry> {
    return this.record(meta.lr ?? Number.NaN, 1);
  }
}
