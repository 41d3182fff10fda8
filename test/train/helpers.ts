// Shared setup of the training tests: a tiny synthetic 3-class problem, a linear classifier with
// train/inference steps, and a hand-written loader (an async iterable with numItems()).
import { Device, Module, Tensor, type Int } from '../../src/index.js';
import { CrossEntropyLossConfig, Linear, LinearConfig } from '../../src/nn/index.js';
import {
  ClassificationOutput,
  TrainOutput,
  type InferenceStep,
  type TrainingLoader,
  type TrainStep,
} from '../../src/train/index.js';

/** One batch: features [b, 4] and class targets [b]. */
export interface TinyBatch {
  readonly x: Tensor<2>;
  readonly y: Tensor<1, Int>;
}

/** A deterministic pseudo-random sequence in [0, 1) (LCG), so data never depends on a device RNG. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `n` samples of 4 features whose class is the argmax of a fixed linear map (learnable). */
export function tinyData(n: number, seed: number): { x: number[][]; y: number[] } {
  const rand = lcg(seed);
  const w = [
    [1, -1, 0.5],
    [-0.5, 1, 0.2],
    [0.3, 0.4, -1],
    [0.8, -0.2, 0.6],
  ];
  const x: number[][] = [],
    y: number[] = [];
  for (let i = 0; i < n; i++) {
    const f = [0, 1, 2, 3].map(() => rand() * 2 - 1);
    const scores = [0, 1, 2].map((c) => f.reduce((a, v, k) => a + v * w[k]![c]!, 0));
    x.push(f);
    y.push(scores.indexOf(Math.max(...scores)));
  }
  return { x, y };
}

/** Batches of `tinyData` on a device, in a fixed order; `delayMs` sleeps before each batch (for the dashboard test). */
export class TinyLoader implements TrainingLoader<TinyBatch> {
  constructor(
    private readonly data: { x: number[][]; y: number[] },
    private readonly batchSize: number,
    private readonly device: Device,
    private readonly delayMs = 0,
  ) {}

  numItems(): number {
    return this.data.y.length;
  }

  toDevice(device: Device): TinyLoader {
    return new TinyLoader(this.data, this.batchSize, device, this.delayMs);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TinyBatch> {
    for (let i = 0; i < this.data.y.length; i += this.batchSize) {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      const x = this.data.x.slice(i, i + this.batchSize);
      const y = this.data.y.slice(i, i + this.batchSize);
      yield {
        x: Tensor.fromData<2>(x, this.device),
        y: Tensor.fromData<1, Int>(y, { device: this.device, dtype: 'i32' }),
      };
    }
  }
}

/** A linear 4 → 3 classifier trained with cross-entropy. */
export class TinyClassifier
  extends Module
  implements TrainStep<TinyBatch, ClassificationOutput>, InferenceStep<TinyBatch, ClassificationOutput>
{
  linear: Linear;

  constructor(device: Device) {
    super();
    this.linear = new LinearConfig({ dInput: 4, dOutput: 3 }).init(device);
  }

  forward(x: Tensor<2>): Tensor<2> {
    return this.linear.forward(x);
  }

  private classify(batch: TinyBatch): ClassificationOutput {
    const output = this.forward(batch.x);
    const loss = new CrossEntropyLossConfig().init(output.device()).forward(output, batch.y);
    return new ClassificationOutput(loss, output, batch.y);
  }

  trainStep(batch: TinyBatch): TrainOutput<ClassificationOutput> {
    const item = this.classify(batch);
    return new TrainOutput(this, item.loss.backward(), item);
  }

  inferenceStep(batch: TinyBatch): ClassificationOutput {
    return this.classify(batch);
  }
}

/** Every parameter's values, by path (to compare two trained models exactly). */
export async function parameters(model: Module): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  const tensors: [string, Tensor<number>][] = [];
  model.visit((param, path) => void tensors.push([path, param.val() as Tensor<number>]));
  for (const [path, t] of tensors) out[path] = Array.from((await t.toData()).toArray());
  return out;
}
