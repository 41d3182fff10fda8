// Burn's WGAN models: an MLP generator (noise → 28×28 image in [-1, 1]) with BatchNorm blocks, and
// an MLP critic (image → unbounded score) whose weights are clipped after each update.
import { Config, Device, Module, Param, Tensor, z } from 'burn-ts';
import { BatchNorm, BatchNormConfig, LeakyRelu, LeakyReluConfig, Linear, LinearConfig, Tanh } from 'burn-ts/nn';

/** Linear → BatchNorm (ε 0.8, as Burn's and the PyTorch original) → LeakyReLU(0.2). */
export class LayerBlock extends Module {
  fc: Linear;
  bn: BatchNorm;
  leakyRelu: LeakyRelu;

  constructor(input: number, output: number, device: Device) {
    super();
    this.fc = new LinearConfig({ dInput: input, dOutput: output }).init(device);
    this.bn = new BatchNormConfig({ numFeatures: output, epsilon: 0.8 }).init(device);
    this.leakyRelu = new LeakyReluConfig({ negativeSlope: 0.2 }).init();
  }

  forward(input: Tensor<2>): Tensor<2> {
    return this.leakyRelu.forward(this.bn.forward(this.fc.forward(input)));
  }
}

export class Generator extends Module {
  layers: LayerBlock[];
  fc: Linear;
  tanh = new Tanh();

  constructor(latentDim: number, pixels: number, device: Device) {
    super();
    const sizes = [latentDim, 128, 256, 512, 1024];
    this.layers = sizes.slice(1).map((size, i) => new LayerBlock(sizes[i]!, size, device));
    this.fc = new LinearConfig({ dInput: 1024, dOutput: pixels }).init(device);
  }

  /** Noise `[batch, latent]` → images `[batch, pixels]` in [-1, 1]. */
  forward(noise: Tensor<2>): Tensor<2> {
    return this.tanh.forward(this.fc.forward(this.layers.reduce((x, layer) => layer.forward(x), noise)));
  }
}

export class Discriminator extends Module {
  fc1: Linear;
  fc2: Linear;
  fc3: Linear;
  leakyRelu: LeakyRelu;

  constructor(pixels: number, device: Device) {
    super();
    this.fc1 = new LinearConfig({ dInput: pixels, dOutput: 512 }).init(device);
    this.fc2 = new LinearConfig({ dInput: 512, dOutput: 256 }).init(device);
    this.fc3 = new LinearConfig({ dInput: 256, dOutput: 1 }).init(device);
    this.leakyRelu = new LeakyReluConfig({ negativeSlope: 0.2 }).init();
  }

  /** Images `[batch, 1, h, w]` → scores `[batch, 1]`. */
  forward(images: Tensor<4>): Tensor<2> {
    const x = images.flatten(1, 3);
    return this.fc3.forward(this.leakyRelu.forward(this.fc2.forward(this.leakyRelu.forward(this.fc1.forward(x)))));
  }

  /** The critic with every weight clipped to [min, max] (the same parameter ids, so optimizer state follows). */
  clip(min: number, max: number): Discriminator {
    return this.map((param) => new Param((param.val() as Tensor<number>).detach().clamp(min, max), { id: param.id }));
  }
}

export class ModelConfig extends Config.define({
  latentDim: z.number().int().positive().default(100),
  imageSize: z.number().int().positive().default(28),
  channels: z.number().int().positive().default(1),
}) {
  static override readonly schema = ModelConfig.nested();

  /** The generator and the critic on `device`. */
  init(device: Device): [Generator, Discriminator] {
    const pixels = this.channels * this.imageSize * this.imageSize;
    return [new Generator(this.latentDim, pixels, device), new Discriminator(pixels, device)];
  }
}
