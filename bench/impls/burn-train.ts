/**
 * burn-ts's training-throughput case (cases/train.ts) on `device.autodiff()` for the column's CPU
 * engine: Burn's MNIST ConvNet built from burn-ts's own layers (`nn`: Conv2d, MaxPool2d,
 * Linear, Relu, CrossEntropyLoss) and trained with `optim`'s Adam, exactly as an application
 * would. The timed body is one step: forward, `loss.backward()` and `GradientsParams.fromGrads` in
 * a `Tensor.scope` (as the Learner runs its steps), `await loss.intoScalar()` (the loss on the
 * host) and `optimizer.step`; the model and the
 * optimizer state carry over from run to run. The checksum covers the losses of the first three
 * steps of a fresh model and optimizer, followed by the first layer's weight change over those
 * steps in units of the learning rate (it depends on every op of the step and on Adam's moments).
 */
import { Module, Tensor, TensorData, type Device, type Float, type Int } from '../../src/index.js';
import {
  Conv2d,
  Conv2dConfig,
  CrossEntropyLoss,
  CrossEntropyLossConfig,
  Linear,
  LinearConfig,
  MaxPool2d,
  MaxPool2dConfig,
  Relu,
} from '../../src/nn/index.js';
import { AdamConfig, GradientsParams } from '../../src/optim/index.js';
import type { Param } from '../../src/module/param.js';
import { TRAIN_LR } from '../cases/train.js';
import { labelValues } from '../lib/data.js';
import { NotAvailable, type BenchCase, type Prepared } from '../lib/types.js';

/** Steps of the checksum's fresh training run. */
const CHECK_STEPS = 3;

/** The parameter tensors of the case, in layer order (see cases/train.ts). */
type Weights = readonly Tensor<number, Float>[];

/** A parameter with its values replaced by `t` (same id and requireGrad). */
function withValues<D extends number>(p: Param<Tensor<D, Float>>, t: Tensor<number, Float>): Param<Tensor<D, Float>> {
  return p.withTensor(t as Tensor<D, Float>);
}

/** Burn's MNIST ConvNet (`Model` of the MNIST example), with given initial parameters. */
class MnistConvNet extends Module {
  conv1: Conv2d;
  conv2: Conv2d;
  pool: MaxPool2d;
  linear1: Linear;
  linear2: Linear;
  activation = new Relu();

  constructor(device: Device, w: Weights) {
    super();
    this.conv1 = new Conv2dConfig({ channels: [1, 8], kernelSize: [3, 3] }).init(device);
    this.conv2 = new Conv2dConfig({ channels: [8, 16], kernelSize: [3, 3] }).init(device);
    this.pool = new MaxPool2dConfig({ kernelSize: [2, 2], strides: [2, 2] }).init();
    this.linear1 = new LinearConfig({ dInput: 16 * 12 * 12, dOutput: w[4]!.dims()[1]! }).init(device);
    this.linear2 = new LinearConfig({ dInput: w[6]!.dims()[0]!, dOutput: w[6]!.dims()[1]! }).init(device);
    const layers = [this.conv1, this.conv2, this.linear1, this.linear2];
    layers.forEach((layer, k) => {
      layer.weight = withValues(layer.weight, w[2 * k]!);
      layer.bias = withValues(layer.bias!, w[2 * k + 1]!);
    });
  }

  /** Logits `[batch, classes]` of images `[batch, 28, 28]`. */
  forward(images: Tensor<3>): Tensor<2> {
    const [batch, height, width] = images.dims();
    let x = images.reshape([batch, 1, height, width]);
    x = this.activation.forward(this.conv1.forward(x)); // [b, 8, 26, 26]
    x = this.activation.forward(this.conv2.forward(x)); // [b, 16, 24, 24]
    x = this.pool.forward(x); // [b, 16, 12, 12]
    const h = this.activation.forward(this.linear1.forward(x.reshape([batch, 16 * 12 * 12])));
    return this.linear2.forward(h);
  }
}

/** A training run: a model and its Adam optimizer, stepped on a fixed batch. */
function trainer(device: Device, weights: Weights, images: Tensor<3>, targets: Tensor<1, Int>, loss: CrossEntropyLoss) {
  let model = new MnistConvNet(device, weights);
  const optim = new AdamConfig({}).init<MnistConvNet>();
  return {
    /** One step; resolves to the loss before the update. */
    async step(): Promise<number> {
      // Forward and backward in a scope, as the Learner runs a step: the activations and graph
      // values go back to the device's pool when it ends.
      const { l, grads } = Tensor.scope(() => {
        const l = loss.forward(model.forward(images), targets);
        return { l, grads: GradientsParams.fromGrads(l.backward(), model) };
      });
      const value = await l.intoScalar();
      model = optim.step(TRAIN_LR, model, grads);
      return value;
    },
    model: () => model,
  };
}

/** The training case on `device` (its autodiff device is used). */
export function prepareTrain(c: BenchCase, inputs: readonly Float32Array[], device: Device): Prepared {
  if (c.op !== 'mnistTrainStep') throw new NotAvailable(`${c.op} is not a training-throughput case`);
  const ad = device.autodiff();
  const [images, ...weights] = inputs.map((values, k) =>
    Tensor.fromData<number>(new TensorData(values, c.inputs[k]!.shape, 'f32'), ad),
  );
  const batch = c.inputs[0]!.shape[0]!;
  const targets = Tensor.fromInts(labelValues(batch, c.attrs?.classes ?? 10), ad);
  const loss = new CrossEntropyLossConfig().init(ad);
  const timed = trainer(ad, weights, images as Tensor<3>, targets, loss);
  return {
    run: () => timed.step(),
    isAsync: true,
    async output() {
      const fresh = trainer(ad, weights, images as Tensor<3>, targets, loss);
      const losses: number[] = [];
      for (let i = 0; i < CHECK_STEPS; i++) losses.push(await fresh.step());
      const after = fresh.model().conv1.weight.val().toDataSync().values as Float32Array;
      const before = inputs[1]!;
      return Float32Array.from([...losses, ...Array.from(after, (v, i) => (v - before[i]!) / TRAIN_LR)]);
    },
    dispose() {},
  };
}
