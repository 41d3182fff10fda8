import { BurnError } from '../../core/errors.js';
import { NumericMetric, type MetricEntry } from './base.js';
import { readClassIndexBatch, topIndices, type ClassIndexInput } from './classification.js';

/** Options of {@link TopKAccuracyMetric}. */
export interface TopKAccuracyOptions {
  /** Targets equal to this value are padding and not counted. */
  readonly padToken?: number;
}

/**
 * The share of samples whose target is among the `k` highest scores, in percent (Burn's
 * `TopKAccuracyMetric`, named `Top-K Accuracy @ TopK(k)`). Works on `ClassificationOutput` and, with
 * token targets, on `SequenceOutput`. The epoch value weighs each batch by its counted (non-padding)
 * items, so it is the exact share over the epoch.
 */
export class TopKAccuracyMetric extends NumericMetric<ClassIndexInput> {
  readonly name: string;
  override readonly unit = '%';
  /** Options it was built with. */
  readonly options: TopKAccuracyOptions;

  constructor(
    readonly k: number,
    options: TopKAccuracyOptions = {},
  ) {
    super();
    if (!(Number.isInteger(k) && k > 0))
      throw new BurnError('TopKAccuracyMetric', `k ${k}; expected a positive integer`);
    this.name = `Top-K Accuracy @ TopK(${k})`;
    this.options = options;
  }

  /** A fresh metric with the same configuration. */
  clone(): TopKAccuracyMetric {
    return new TopKAccuracyMetric(this.k, this.options);
  }

  async update(input: ClassIndexInput): Promise<MetricEntry> {
    const { rows, c, scores, targets } = await readClassIndexBatch(input, this.name);
    const k = Math.min(this.k, c);
    let correct = 0,
      counted = 0;
    for (let i = 0; i < rows; i++) {
      const t = targets[i]!;
      if (this.options.padToken !== undefined && t === this.options.padToken) continue;
      counted++;
      if (topIndices(scores, i * c, c, k).includes(t)) correct++;
    }
    return this.record(counted === 0 ? 0 : (100 * correct) / counted, counted);
  }
}
