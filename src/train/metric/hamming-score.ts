import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { NumericMetric, type MetricEntry } from './base.js';
import { thresholdFor } from './classification.js';

/** What the Hamming score reads: scores `[batch, labels]` and 0/1 targets of the same shape (`MultiLabelClassificationOutput`). */
export interface HammingScoreInput {
  readonly output: Tensor<2, Float>;
  readonly targets: Tensor<2, Int>;
}

/** Options of {@link HammingScore}. */
export interface HammingScoreOptions {
  /** A label is predicted when its (activated) score is greater than this (default 0.5). */
  readonly threshold?: number;
  /** Apply a sigmoid to the scores first (for logits; default false). */
  readonly sigmoid?: boolean;
}

/**
 * The Hamming score (label-based accuracy) in percent: the share of labels predicted correctly
 * (Burn's `HammingScore`, named `Hamming Score @ Threshold(0.5)`). Every sample has the same number
 * of labels, so the batch-size weighted epoch mean is the exact share over the epoch.
 */
export class HammingScore extends NumericMetric<HammingScoreInput> {
  readonly name: string;
  override readonly unit = '%';
  /** The decision threshold. */
  readonly threshold: number;
  /** Whether scores pass through a sigmoid. */
  readonly sigmoid: boolean;

  constructor(options: HammingScoreOptions = {}) {
    super();
    this.threshold = options.threshold ?? 0.5;
    if (!Number.isFinite(this.threshold))
      throw new BurnError('HammingScore', `threshold ${this.threshold}; expected a finite number`);
    this.sigmoid = options.sigmoid ?? false;
    this.name = `Hamming Score @ Threshold(${this.threshold})`;
  }

  /** A fresh metric with the same configuration. */
  clone(): HammingScore {
    return new HammingScore({ threshold: this.threshold, sigmoid: this.sigmoid });
  }

  async update(input: HammingScoreInput): Promise<MetricEntry> {
    const dims = input.output.dims(),
      tdims = input.targets.dims();
    if (dims.length !== 2 || tdims.length !== 2 || dims[0] !== tdims[0] || dims[1] !== tdims[1]) {
      throw new BurnError(
        'HammingScore',
        `outputs ${fmt(dims)} and targets ${fmt(tdims)}; expected the same shape [batch, labels]`,
      );
    }
    const scores = (await input.output.toData()).toArray();
    const targets = (await input.targets.toData()).toArray();
    const threshold = thresholdFor(scores, this.threshold);
    let equal = 0;
    for (let i = 0; i < scores.length; i++) {
      const x = scores[i]!;
      const s = this.sigmoid
        ? scores instanceof Float32Array
          ? Math.fround(1 / (1 + Math.exp(-x)))
          : 1 / (1 + Math.exp(-x))
        : x;
      if (s > threshold === (targets[i] !== 0)) equal++;
    }
    return this.record(scores.length === 0 ? 0 : (100 * equal) / scores.length, dims[0]!);
  }
}
