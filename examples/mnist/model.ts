// The model of Burn's MNIST guide: two convolutions, adaptive average pooling, dropout and two
// linear layers, with the training and validation steps the Learner calls.
import { Config, Device, Module, Tensor, z, type Int } from 'burn-ts';
import {
  AdaptiveAvgPool2d,
  AdaptiveAvgPool2dConfig,
  Conv2d,
  Conv2dConfig,
  CrossEntropyLossConfig,
  Dropout,
  DropoutConfig,
  Linear,
  LinearConfig,
  Relu,
} from 'burn-ts/nn';
import { ClassificationOutput, TrainOutput, type InferenceStep, type TrainStep } from 'burn-ts/train';
import type { MnistBatch } from './data.ts';

export class ModelConfig extends Config.define({
  numClasses: z.number().int().positive().default(10),
  hiddenSize: z.number().int().positive().default(512),
  dropout: z.number().min(0).max(1).default(0.5),
}) {
  static override readonly schema = ModelConfig.nested();

  /** Creates the model on `device`. */
  init(device: Device): Model {
    return new Model(this, device);
  }
}

export class Model
  extends Module
  implements TrainStep<MnistBatch, ClassificationOutput>, InferenceStep<MnistBatch, ClassificationOutput>
{
  conv1: Conv2d;
  conv2: Conv2d;
  pool: AdaptiveAvgPool2d;
  dropout: Dropout;
  linear1: Linear;
  linear2: Linear;
  activation = new Relu();

  constructor(config: ModelConfig, device: Device) {
    super();
    this.conv1 = new Conv2dConfig({ channels: [1, 8], kernelSize: [3, 3] }).init(device);
    this.conv2 = new Conv2dConfig({ channels: [8, 16], kernelSize: [3, 3] }).init(device);
    this.pool = new AdaptiveAvgPool2dConfig({ outputSize: [8, 8] }).init();
    this.dropout = new DropoutConfig({ prob: config.dropout }).init();
    this.linear1 = new LinearConfig({ dInput: 16 * 8 * 8, dOutput: config.hiddenSize }).init(device);
    this.linear2 = new LinearConfig({ dInput: config.hiddenSize, dOutput: config.numClasses }).init(device);
  }

  /** Images `[batch, height, width]` → logits `[batch, numClasses]`. */
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

  forwardClassification(images: Tensor<3>, targets: Tensor<1, Int>): ClassificationOutput {
    const output = this.forward(images);
    const loss = new CrossEntropyLossConfig().init(output.device()).forward(output, targets);
    return new ClassificationOutput(loss, output, targets);
  }

  trainStep(batch: MnistBatch): TrainOutput<ClassificationOutput> {
    const item = this.forwardClassification(batch.images, batch.targets);
    return new TrainOutput(this, item.loss.backward(), item);
  }

  inferenceStep(batch: MnistBatch): ClassificationOutput {
    return this.forwardClassification(batch.images, batch.targets);
  }
}
