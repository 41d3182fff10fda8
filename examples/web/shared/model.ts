// The model of Burn's MNIST guide, as examples/mnist/model.ts builds it (same layers, same field
// names, so the same burnpack loads into either), without the Learner's training-step plumbing:
// that lives in burn-ts/train, which a page does not need. A test loads the shipped weights into
// both models in Node and compares their outputs.
import { BurnError, Module, Tensor, type Device } from 'burn-ts';
import {
  AdaptiveAvgPool2d,
  AdaptiveAvgPool2dConfig,
  Conv2d,
  Conv2dConfig,
  Dropout,
  DropoutConfig,
  Linear,
  LinearConfig,
  Relu,
} from 'burn-ts/nn';

/** MNIST's mean and standard deviation, the normalization examples/mnist/data.ts applies. */
export const MNIST_MEAN = 0.1307;
export const MNIST_STD = 0.3081;

/** Settings of {@link MnistModel}; the defaults are examples/mnist's `ModelConfig` (with `npm run mnist`'s dropout). */
export interface MnistModelOptions {
  readonly numClasses?: number;
  readonly hiddenSize?: number;
  readonly dropout?: number;
}

/** Two convolutions, adaptive average pooling, dropout and two linear layers (Burn's guide). */
export class MnistModel extends Module {
  conv1: Conv2d;
  conv2: Conv2d;
  pool: AdaptiveAvgPool2d;
  dropout: Dropout;
  linear1: Linear;
  linear2: Linear;
  activation = new Relu();

  constructor(device: Device, options: MnistModelOptions = {}) {
    super();
    const hidden = options.hiddenSize ?? 512;
    this.conv1 = new Conv2dConfig({ channels: [1, 8], kernelSize: [3, 3] }).init(device);
    this.conv2 = new Conv2dConfig({ channels: [8, 16], kernelSize: [3, 3] }).init(device);
    this.pool = new AdaptiveAvgPool2dConfig({ outputSize: [8, 8] }).init();
    this.dropout = new DropoutConfig({ prob: options.dropout ?? 0.15 }).init();
    this.linear1 = new LinearConfig({ dInput: 16 * 8 * 8, dOutput: hidden }).init(device);
    this.linear2 = new LinearConfig({ dInput: hidden, dOutput: options.numClasses ?? 10 }).init(device);
  }

  /** Normalized images `[batch, 28, 28]` → logits `[batch, numClasses]`. */
  forward(images: Tensor<3>): Tensor<2> {
    const [batchSize, height, width] = images.dims();
    let x = images.reshape([batchSize, 1, height, width]);
    x = this.conv1.forward(x);
    x = this.dropout.forward(x);
    x = this.conv2.forward(x);
    x = this.dropout.forward(x);
    x = this.activation.forward(x);
    x = this.pool.forward(x);
    let y = x.reshape([batchSize, 16 * 8 * 8]);
    y = this.linear1.forward(y);
    y = this.dropout.forward(y);
    y = this.activation.forward(y);
    return this.linear2.forward(y);
  }
}

/** Grayscale pixels (0–255, `count` images of 28×28, row-major) → the normalized `[count, 28, 28]` input. */
export function mnistInput(pixels: Uint8Array | Uint8ClampedArray, device: Device, count = 1): Tensor<3> {
  const values = new Float32Array(count * 28 * 28);
  if (pixels.length !== values.length)
    throw new BurnError(
      'mnistInput',
      `${pixels.length} pixels for ${count} image(s); expected ${values.length} (28×28 each)`,
    );
  for (let i = 0; i < values.length; i++) values[i] = (pixels[i]! / 255 - MNIST_MEAN) / MNIST_STD;
  return Tensor.fromFloats(values, device).reshape([count, 28, 28]);
}

/** Class probabilities of one 28×28 image (softmax of the logits), read back from the device. */
export async function classify(
  model: MnistModel,
  pixels: Uint8Array | Uint8ClampedArray,
  device: Device,
): Promise<Float32Array> {
  const probabilities = model.forward(mnistInput(pixels, device)).softmax(1);
  return Float32Array.from((await probabilities.toData()).values as ArrayLike<number>);
}
