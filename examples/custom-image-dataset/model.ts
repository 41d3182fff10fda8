// Burn's example CNN, VGG-style blocks (3x3 conv → ReLU → 3x3 conv → ReLU → 2x2 max pool), sized
// for 28x28 gray images: two blocks instead of three and half the channels.
import { Config, Device, Module, Tensor, z, type Int } from 'burn-ts';
import {
  Conv2d,
  Conv2dConfig,
  CrossEntropyLossConfig,
  Dropout,
  DropoutConfig,
  Linear,
  LinearConfig,
  MaxPool2d,
  MaxPool2dConfig,
  PaddingConfig2d,
  Relu,
} from 'burn-ts/nn';
import { ClassificationOutput, TrainOutput, type InferenceStep, type TrainStep } from 'burn-ts/train';
import type { ImageBatch } from './data.ts';

export class CnnConfig extends Config.define({
  numClasses: z.number().int().positive().default(10),
  dropout: z.number().min(0).max(1).default(0.3),
}) {
  /** Creates the model on `device`. */
  init(device: Device): Cnn {
    return new Cnn(this, device);
  }
}

export class Cnn
  extends Module
  implements TrainStep<ImageBatch, ClassificationOutput>, InferenceStep<ImageBatch, ClassificationOutput>
{
  activation = new Relu();
  dropout: Dropout;
  pool: MaxPool2d;
  conv1: Conv2d;
  conv2: Conv2d;
  conv3: Conv2d;
  conv4: Conv2d;
  fc1: Linear;
  fc2: Linear;

  constructor(config: CnnConfig, device: Device) {
    super();
    const conv = (cIn: number, cOut: number): Conv2d =>
      new Conv2dConfig({ channels: [cIn, cOut], kernelSize: [3, 3], padding: PaddingConfig2d.Same }).init(device);
    this.conv1 = conv(1, 16);
    this.conv2 = conv(16, 16);
    this.conv3 = conv(16, 32);
    this.conv4 = conv(32, 32);
    this.pool = new MaxPool2dConfig({ kernelSize: [2, 2], strides: [2, 2] }).init();
    this.fc1 = new LinearConfig({ dInput: 32 * 7 * 7, dOutput: 128 }).init(device);
    this.fc2 = new LinearConfig({ dInput: 128, dOutput: config.numClasses }).init(device);
    this.dropout = new DropoutConfig({ prob: config.dropout }).init();
  }

  /** Images `[batch, 1, 28, 28]` → logits `[batch, numClasses]`. */
  forward(images: Tensor<4>): Tensor<2> {
    const block = (x: Tensor<4>, a: Conv2d, b: Conv2d): Tensor<4> =>
      this.dropout.forward(
        this.pool.forward(this.activation.forward(b.forward(this.activation.forward(a.forward(x))))),
      );
    let x = block(images, this.conv1, this.conv2);
    x = block(x, this.conv3, this.conv4);
    const flat = x.flatten(1, 3);
    return this.fc2.forward(this.dropout.forward(this.activation.forward(this.fc1.forward(flat))));
  }

  forwardClassification(images: Tensor<4>, targets: Tensor<1, Int>): ClassificationOutput {
    const output = this.forward(images);
    const loss = new CrossEntropyLossConfig().init(output.device()).forward(output, targets);
    return new ClassificationOutput(loss, output, targets);
  }

  trainStep(batch: ImageBatch): TrainOutput<ClassificationOutput> {
    const item = this.forwardClassification(batch.images, batch.targets);
    return new TrainOutput(this, item.loss.backward(), item);
  }

  inferenceStep(batch: ImageBatch): ClassificationOutput {
    return this.forwardClassification(batch.images, batch.targets);
  }
}
