import { NumericMetric, type MetricEntry, type MetricMetadata } from './base.js';

/** The learning rate of each step (Burn's `LearningRateMetric`). */
export class LearningRateMetric extends NumericMetric<unknown> {
  readonly name = 'Learning Rate';

  async update(_input: unknown, meta: MetricMetadata): Promise<MetricEntry> {
    return this.record(meta.lr ?? Number.NaN, 1);
  }
}
