// The model whose weights weights/export.py trains and exports from PyTorch: the same layers under
// the same names (conv1, conv2, norm1, fc1, fc2, norm2), so the PyTorch keys map onto its fields.
import { Device, Module, Tensor, activation, functional } from 'burn-ts';
import { BatchNorm, BatchNormConfig, Conv2d, Conv2dConfig, Linear, LinearConfig } from 'burn-ts/nn';

export class Model extends Module {
  conv1: Conv2d;
  conv2: Conv2d;
  norm1: BatchNorm;
  fc1: Linear;
  fc2: Linear;
  norm2: BatchNorm;

  constructor(device: Device) {
    super();
    this.conv1 = new Conv2dConfig({ channels: [1, 8], kernelSize: [3, 3] }).init(device);
    this.conv2 = new Conv2dConfig({ channels: [8, 16], kernelSize: [3, 3] }).init(device);
    this.norm1 = new BatchNormConfig({ numFeatures: 16 }).init(device);
    this.fc1 = new LinearConfig({ dInput: 16 * 5 * 5, dOutput: 32 }).init(device);
    this.fc2 = new LinearConfig({ dInput: 32, dOutput: 10 }).init(device);
    this.norm2 = new BatchNormConfig({ numFeatures: 10 }).init(device);
  }

  /** Normalized images `[batch, 1, 28, 28]` → log-probabilities `[batch, 10]` (PyTorch's `Net.forward`, in eval mode). */
  forward(images: Tensor<4>): Tensor<2> {
    let x = functional.maxPool2d(activation.relu(this.conv1.forward(images)), [2, 2]);
    x = functional.maxPool2d(activation.relu(this.conv2.forward(x)), [2, 2]);
    x = this.norm1.forward(x);
    const h = activation.relu(this.fc1.forward(x.flatten(1, 3)));
    return activation.logSoftmax(this.norm2.forward(this.fc2.forward(h)), 1);
  }
}

/** Fashion-MNIST pixels (0–255, row-major 28×28 per image) → the normalized input PyTorch was trained on. */
export function toInput(images: readonly (readonly number[][])[], device: Device): Tensor<4> {
  const pixels = Float32Array.from(images.flatMap((image) => image.flat()));
  return Tensor.fromFloats(pixels, device).reshape([images.length, 1, 28, 28]).div(255).sub(0.286).div(0.353);
}
