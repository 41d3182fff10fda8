// Burn's regression model: one hidden ReLU layer, trained on the mean squared error.
import { Config, Device, Module, Tensor, z } from 'burn-ts';
import { Linear, LinearConfig, MseLoss, Reduction, Relu } from 'burn-ts/nn';
import { RegressionOutput, TrainOutput, type InferenceStep, type TrainStep } from 'burn-ts/train';
import type { HousingBatch } from './data.ts';
import { FEATURES } from './generate.ts';

export class RegressionModelConfig extends Config.define({
  hiddenSize: z.number().int().positive().default(64),
}) {
  /** Creates the model on `device`. */
  init(device: Device): RegressionModel {
    return new RegressionModel(this, device);
  }
}

export class RegressionModel
  extends Module
  implements TrainStep<HousingBatch, RegressionOutput>, InferenceStep<HousingBatch, RegressionOutput>
{
  inputLayer: Linear;
  outputLayer: Linear;
  activation = new Relu();

  constructor(config: RegressionModelConfig, device: Device) {
    super();
    this.inputLayer = new LinearConfig({ dInput: FEATURES.length, dOutput: config.hiddenSize, bias: true }).init(
      device,
    );
    this.outputLayer = new LinearConfig({ dInput: config.hiddenSize, dOutput: 1, bias: true }).init(device);
  }

  /** Scaled features `[batch, 8]` → predicted values `[batch, 1]`. */
  forward(inputs: Tensor<2>): Tensor<2> {
    return this.outputLayer.forward(this.activation.forward(this.inputLayer.forward(inputs)));
  }

  /** The forward pass and its MSE loss; the targets become `[batch, 1]` like the output. */
  forwardStep(batch: HousingBatch): RegressionOutput {
    const targets = batch.targets.unsqueezeDim(1);
    const output = this.forward(batch.inputs);
    const loss = new MseLoss().forward(output, targets, Reduction.Mean);
    return new RegressionOutput(loss, output, targets);
  }

  trainStep(batch: HousingBatch): TrainOutput<RegressionOutput> {
    const item = this.forwardStep(batch);
    return new TrainOutput(this, item.loss.backward(), item);
  }

  inferenceStep(batch: HousingBatch): RegressionOutput {
    return this.forwardStep(batch);
  }
}
