import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { NumericMetric, type MetricEntry } from './base.js';

/** What the loss metric reads from an output item. */
export interface LossInput {
  readonly loss: Tensor<1, Float>;
  /** Batch size, read from the outputs when present (weights the epoch mean). */
  readonly output?: { dims(): number[] };
}

/** The mean loss (Burn's `LossMetric`). */
export class LossMetric extends NumericMetric<LossInput> {
  readonly name = 'Loss';
  override readonly higherIsBetter = false;

  async update(input: LossInput): Promise<MetricEntry> {
    const value = (await input.loss.toData()).toArray()[0]!;
    return this.record(value, input.output?.dims()[0] ?? 1);
  }
}
