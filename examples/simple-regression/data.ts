// The housing dataset read from CSV, and the batcher that min-max scales its features.
import { Device, Tensor } from 'burn-ts';
import { InMemDataset, iterDataset, type Batcher, type CsvRow, type Dataset } from 'burn-ts/data';
import { FEATURES, TARGET } from './generate.ts';

/** The typed CSV columns: every feature and the target are numbers. */
const COLUMNS = Object.fromEntries([...FEATURES, TARGET].map((name) => [name, 'number' as const])) as Record<
  (typeof FEATURES)[number] | typeof TARGET,
  'number'
>;

/** One district: a row of the CSV. */
export type HousingItem = CsvRow<typeof COLUMNS>;

/** Reads one split's CSV file into memory, each value checked to be a number. */
export function housingDataset(path: string): InMemDataset<HousingItem> {
  return InMemDataset.fromCsv(path, { columns: COLUMNS });
}

/** A batch: features `[batch, 8]`, scaled to [0, 1], and targets `[batch]`. */
export interface HousingBatch {
  inputs: Tensor<2>;
  targets: Tensor<1>;
}

/** Per-feature minimum and maximum, measured on a dataset (the training split). */
export interface FeatureRange {
  min: number[];
  max: number[];
}

/** The per-feature range of `dataset` (Burn's example hard-codes it for its data). */
export function featureRange(dataset: Dataset<HousingItem>): FeatureRange {
  const min = FEATURES.map(() => Infinity),
    max = FEATURES.map(() => -Infinity);
  for (const item of iterDataset(dataset)) {
    FEATURES.forEach((name, j) => {
      min[j] = Math.min(min[j]!, item[name]);
      max[j] = Math.max(max[j]!, item[name]);
    });
  }
  return { min, max };
}

/** Turns items into a normalized batch: (x - min) / (max - min), on the device. */
export class HousingBatcher implements Batcher<HousingItem, HousingBatch> {
  constructor(private readonly range: FeatureRange) {}

  batch(items: HousingItem[], device: Device): HousingBatch {
    const values = new Float32Array(items.length * FEATURES.length);
    items.forEach((item, i) => FEATURES.forEach((name, j) => (values[i * FEATURES.length + j] = item[name])));
    const min = Tensor.fromFloats([this.range.min], device);
    const max = Tensor.fromFloats([this.range.max], device);
    const inputs = Tensor.fromFloats(values, device)
      .reshape([items.length, FEATURES.length])
      .sub(min)
      .div(max.sub(min));
    const targets = Tensor.fromFloats(
      Float32Array.from(items, (item) => item[TARGET]),
      device,
    );
    return { inputs, targets };
  }
}
