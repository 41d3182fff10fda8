import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { Param } from '../module/param.js';
import { BurnError, fmt } from '../tensor/errors.js';
import { linear } from '../tensor/functional/linear.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { Initializer, initializerSchema, initTensor } from './init.js';

/** Configuration of a {@link Linear} layer (Burn's `LinearConfig`). */
export class LinearConfig extends Config.define({
  /** Size of the input features. */
  dInput: z.number().int().positive(),
  /** Size of the output features. */
  dOutput: z.number().int().positive(),
  /** Whether to add a learnable bias. */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias. */
  initializer: initializerSchema.default(Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false })),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Linear {
    return new Linear(this, device);
  }
}

/**
 * Applies `y = x·W + b` to the last dim (Burn's `Linear`; the weight is `[dInput, dOutput]`, as
 * Burn stores it — transposed from PyTorch's).
 */
export class Linear extends Module {
  /** `[dInput, dOutput]`. */
  weight: Param<Tensor<2, Float>>;
  /** `[dOutput]`, when the layer has a bias. */
  bias: Param<Tensor<1, Float>> | undefined;

  constructor(config: LinearConfig, device: Device) {
    super();
    const fans = { fanIn: config.dInput, fanOut: config.dOutput };
    this.weight = new Param(initTensor(config.initializer, [config.dInput, config.dOutput], fans, device));
    this.bias = config.bias ? new Param(initTensor(config.initializer, [config.dOutput], fans, device)) : undefined;
  }

  /** `[..., dInput]` → `[..., dOutput]`. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const [dInput, dOutput] = this.weight.dims() as [number, number];
    const dims = input.dims();
    if (dims[dims.length - 1] !== dInput) {
      throw new BurnError('Linear', `input of shape ${fmt(dims)} has ${dims[dims.length - 1]} features; expected [..., ${dInput}] (dInput ${dInput}, dOutput ${dOutput})`);
    }
    return linear(input, this.weight.val(), this.bias?.val());
  }

  override displayAttributes(): Record<string, unknown> {
    const [dInput, dOutput] = this.weight.dims();
    return { dInput, dOutput, bias: this.bias !== undefined };
  }
}
