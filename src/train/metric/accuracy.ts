import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../../tensor/kind.js';
import { checkOptions } from '../../core/options.js';
import type { Tensor } from '../../tensor/tensor.js';
import { NumericMetric, type MetricEntry } from './base.js';

/** What accuracy reads: logits `[batch, classes]` and class targets `[batch]`. */
export interface AccuracyInput {
  readonly output: Tensor<2, Float>;
  readonly targets: Tensor<1, Int>;
}

/** Options of {@link AccuracyMetric}. */
export interface AccuracyOptions {
  /** Targets equal to this value are ignored (padding). */
  readonly padToken?: number;
}

/** Classification accuracy in percent (Burn's `AccuracyMetric`). */
export class AccuracyMetric extends NumericMetric<AccuracyInput> {
  readonly name = 'Accuracy';
  override readonly unit = '%';
  private readonly padToken: number | undefined;

  constructor(options: AccuracyOptions = {}) {
    super();
    checkOptions(options, ['padToken'], 'AccuracyMetric');
    this.padToken = options.padToken;
  }

  async update(input: AccuracyInput): Promise<MetricEntry> {
    const [batch] = input.output.dims();
    if (input.targets.dims()[0] !== batch) {
      throw new BurnError(
        'AccuracyMetric',
        `outputs ${fmt(input.output.dims())} and targets ${fmt(input.targets.dims())}; expected [batch, classes] and [batch]`,
      );
    }
    const predicted = (await input.output.argmax(1).toData()).toArray();
    const targets = (await input.targets.toData()).toArray();
    let correct = 0,
      counted = 0;
    for (let i = 0; i < targets.length; i++) {
      if (this.padToken !== undefined && targets[i] === this.padToken) continue;
      counted++;
      if (predicted[i] === targets[i]) correct++;
    }
    return this.record(counted === 0 ? 0 : (100 * correct) / counted, counted);
  }
}
