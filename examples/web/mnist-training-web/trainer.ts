// Training of the MNIST model in the page, written as Burn's custom training loop: forward, loss,
// backward, the gradients by parameter, an Adam step. It runs step by step on the page's event
// loop (a macrotask between steps keeps the page responsive and lets Stop land), keeps its
// position (epoch, batch, shuffled order, optimizer state) when stopped, and resumes from there.
import { Tensor, type Device } from 'burn-ts';
import { CrossEntropyLossConfig, type CrossEntropyLoss } from 'burn-ts/nn';
import { AdamConfig, GradientsParams, type Optimizer } from 'burn-ts/optim';
import { mnistInput, MnistModel } from '../shared/model.ts';
import type { DigitSplit, Digits } from './digits.ts';

/** Settings of a run. */
export interface TrainOptions {
  readonly epochs: number;
  readonly batchSize: number;
  /** Peak learning rate, decayed along a cosine to 5% of it by the last step. */
  readonly learningRate: number;
  readonly seed: number;
  /** Ends the run after this many steps (quick checks); default the whole run. */
  readonly maxSteps?: number;
}

/** One training step's numbers. */
export interface StepReport {
  readonly step: number;
  readonly totalSteps: number;
  readonly epoch: number;
  readonly loss: number;
  /** Accuracy (%) on the step's batch. */
  readonly accuracy: number;
  readonly learningRate: number;
}

/** A validation pass's numbers. */
export interface ValidReport {
  readonly epoch: number;
  readonly step: number;
  readonly loss: number;
  /** Accuracy (%) on the test split. */
  readonly accuracy: number;
}

/** A seeded permutation of 0..n-1 (xorshift32, Fisher–Yates). */
function shuffled(n: number, seed: number): Uint32Array {
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let i = n - 1; i > 0; i--) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    const j = s % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** Pixels and labels of the digits `indices` of `split`. */
function gather(split: DigitSplit, indices: ArrayLike<number>): { pixels: Uint8Array; labels: Int32Array } {
  const pixels = new Uint8Array(indices.length * 784),
    labels = new Int32Array(indices.length);
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k]!;
    pixels.set(split.images.subarray(i * 784, (i + 1) * 784), k * 784);
    labels[k] = split.labels[i]!;
  }
  return { pixels, labels };
}

/** A training run of {@link MnistModel} on the page's digits. */
export class Trainer {
  /** The model being trained (on the autodiff device). */
  model: MnistModel;
  private readonly optimizer: Optimizer<MnistModel>;
  private readonly lossFn: CrossEntropyLoss;
  private order: Uint32Array;
  /** Epoch (0-based) and batch within it of the next step. */
  epoch = 0;
  batch = 0;
  /** Steps done. */
  step = 0;
  readonly stepsPerEpoch: number;
  readonly totalSteps: number;
  private stopping = false;
  private running = false;

  constructor(
    readonly device: Device,
    readonly digits: Digits,
    readonly options: TrainOptions,
  ) {
    device.seed(options.seed);
    this.model = new MnistModel(device);
    this.optimizer = new AdamConfig({}).init<MnistModel>();
    this.lossFn = new CrossEntropyLossConfig().init(device);
    this.stepsPerEpoch = Math.floor(digits.train.count / options.batchSize);
    this.totalSteps = Math.min(options.maxSteps ?? Infinity, options.epochs * this.stepsPerEpoch);
    this.order = shuffled(digits.train.count, options.seed);
  }

  /** Whether every step has run. */
  get done(): boolean {
    return this.step >= this.totalSteps;
  }

  /** The learning rate of step `step`: cosine decay from the peak to 5% of it. */
  learningRate(step: number): number {
    const progress = this.totalSteps <= 1 ? 0 : step / (this.totalSteps - 1);
    return this.options.learningRate * (0.05 + 0.95 * 0.5 * (1 + Math.cos(Math.PI * progress)));
  }

  /** Asks a running {@link run} to pause after its current step. */
  stop(): void {
    if (this.running) this.stopping = true;
  }

  /**
   * Runs (or resumes) the steps until the end or {@link stop}; validates at the end of each epoch
   * and of the run. Resolves with how it ended.
   */
  async run(onStep: (r: StepReport) => void, onValid: (r: ValidReport) => void): Promise<'stopped' | 'done'> {
    if (this.running) throw new Error('the trainer is already running');
    this.running = true;
    this.stopping = false;
    try {
      while (!this.done) {
        if (this.stopping) return 'stopped';
        const { batchSize } = this.options;
        const { pixels, labels } = gather(
          this.digits.train,
          this.order.subarray(this.batch * batchSize, (this.batch + 1) * batchSize),
        );
        const learningRate = this.learningRate(this.step);
        const output = this.model.forward(mnistInput(pixels, this.device, batchSize));
        const targets = Tensor.fromInts(labels, this.device);
        const loss = this.lossFn.forward(output, targets);
        const correct = output.argmax(1).flatten(0, 1).equal(targets).int().sum();
        const grads = GradientsParams.fromGrads(loss.backward(), this.model);
        this.model = this.optimizer.step(learningRate, this.model, grads);
        const [lossValue, correctValue] = await Promise.all([loss.intoScalar(), correct.intoScalar()]);
        this.step++;
        onStep({
          step: this.step,
          totalSteps: this.totalSteps,
          epoch: this.epoch,
          loss: lossValue,
          accuracy: (100 * correctValue) / batchSize,
          learningRate,
        });
        if (++this.batch === this.stepsPerEpoch || this.done) {
          onValid(await this.validate());
          this.batch = 0;
          this.epoch++;
          this.order = shuffled(this.digits.train.count, this.options.seed + this.epoch);
        }
        // A macrotask between steps: the page repaints and handles clicks (Stop).
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      return 'done';
    } finally {
      this.running = false;
      this.stopping = false;
    }
  }

  /** The model for inference: without autodiff, dropout off, on the inner device. */
  inferenceModel(): MnistModel {
    return this.model.valid();
  }

  /** Loss and accuracy on the test split, in batches of 256. */
  async validate(): Promise<ValidReport> {
    const model = this.inferenceModel(),
      device = this.device.inner(),
      test = this.digits.test;
    const lossFn = new CrossEntropyLossConfig().init(device);
    let correct = 0,
      lossSum = 0;
    for (let start = 0; start < test.count; start += 256) {
      const n = Math.min(256, test.count - start);
      const { pixels, labels } = gather(
        test,
        Uint32Array.from({ length: n }, (_, k) => start + k),
      );
      const output = model.forward(mnistInput(pixels, device, n));
      const targets = Tensor.fromInts(labels, device);
      const [l, c] = await Promise.all([
        lossFn.forward(output, targets).intoScalar(),
        output.argmax(1).flatten(0, 1).equal(targets).int().sum().intoScalar(),
      ]);
      lossSum += l * n;
      correct += c;
    }
    return {
      epoch: this.epoch + 1,
      step: this.step,
      loss: lossSum / test.count,
      accuracy: (100 * correct) / test.count,
    };
  }
}
