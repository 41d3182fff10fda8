import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { type Activation, ActivationConfig } from '../activation/activation-config.js';
import { Dropout, DropoutConfig } from '../dropout.js';
import { Initializer, initializerSchema } from '../init.js';
import { Linear, LinearConfig } from '../linear.js';

/** Configuration of a {@link PositionWiseFeedForward} layer (Burn's `PositionWiseFeedForwardConfig`). */
export class PositionWiseFeedForwardConfig extends Config.define({
  /** Size of the input and output features. */
  dModel: z.number().int().positive(),
  /** Size of the hidden features. */
  dFf: z.number().int().positive(),
  /** Dropout rate (after the activation). */
  dropout: z.number().min(0).max(1).default(0.1),
  /** Initializer of both linear layers. */
  initializer: initializerSchema.default(Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false })),
  /** Activation between the two linear layers. */
  activation: ActivationConfig.schema.default(ActivationConfig.Gelu),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): PositionWiseFeedForward {
    return new PositionWiseFeedForward(this, device);
  }
}

/**
 * The position-wise feed-forward network of a transformer (Burn's `PositionWiseFeedForward`):
 * `linearOuter(dropout(activation(linearInner(x))))`, GELU by default.
 */
export class PositionWiseFeedForward extends Module {
  /** `[dModel, dFf]`. */
  linearInner: Linear;
  /** `[dFf, dModel]`. */
  linearOuter: Linear;
  /** Dropout after the activation. */
  dropout: Dropout;
  /** The activation. */
  activation: Activation;

  constructor(config: PositionWiseFeedForwardConfig, device: Device) {
    super();
    this.linearInner = new LinearConfig({
      dInput: config.dModel,
      dOutput: config.dFf,
      initializer: config.initializer,
    }).init(device);
    this.linearOuter = new LinearConfig({
      dInput: config.dFf,
      dOutput: config.dModel,
      initializer: config.initializer,
    }).init(device);
    this.dropout = new DropoutConfig({ prob: config.dropout }).init();
    this.activation = config.activation.init(device);
  }

  /** `[..., dModel]` → `[..., dModel]`. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const [dModel, dFf] = this.linearInner.weight.dims() as [number, number];
    const dims = input.dims();
    if (dims[dims.length - 1] !== dModel) {
      throw new BurnError(
        'PositionWiseFeedForward',
        `input of shape ${fmt(dims)}; expected [..., ${dModel}] (dModel ${dModel}, dFf ${dFf})`,
      );
    }
    const x = this.activation.forward(this.linearInner.forward(input));
    return this.linearOuter.forward(this.dropout.forward(x));
  }

  override displayAttributes(): Record<string, unknown> {
    const [dModel, dFf] = this.linearInner.weight.dims();
    return { dModel, dFf, prob: this.dropout.prob };
  }
}
