import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { Param } from '../module/param.js';
import { BurnError, fmt } from '../core/errors.js';
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
  /** How the weight is stored (default `'row'`: `[dInput, dOutput]`; `'col'`: `[dOutput, dInput]`). */
  layout: z.enum(['row', 'col']).default('row'),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Linear {
    return new Linear(this, device);
  }
}

/** The storage layouts of a {@link Linear} weight (Burn's `LinearLayout`). */
export const LinearLayout = {
  /** `[dInput, dOutput]` (Burn's default). */
  Row: 'row',
  /** `[dOutput, dInput]` (PyTorch's layout; records hold it the same way). */
  Col: 'col',
} as const;
/** A {@link Linear} weight layout: `'row'` or `'col'`. */
export type LinearLayout = (typeof LinearLayout)[keyof typeof LinearLayout];

/**
 * Applies `y = x·W + b` to the last dim (Burn's `Linear`). With the default `'row'` layout the
 * weight is `[dInput, dOutput]`, as Burn stores it (transposed from PyTorch's); with `'col'` it
 * is `[dOutput, dInput]` and the forward multiplies by its transpose.
 */
export class Linear extends Module {
  /** `[dInput, dOutput]` (`'row'` layout) or `[dOutput, dInput]` (`'col'` layout). */
  weight: Param<Tensor<2, Float>>;
  /** `[dOutput]`, when the layer has a bias. */
  bias: Param<Tensor<1, Float>> | undefined;
  /** How the weight is stored. */
  readonly layout: LinearLayout;

  constructor(config: LinearConfig, device: Device) {
    super();
    const { dInput, dOutput } = config;
    const fans = { fanIn: dInput, fanOut: dOutput };
    const shape = config.layout === 'col' ? ([dOutput, dInput] as const) : ([dInput, dOutput] as const);
    this.weight = new Param(initTensor(config.initializer, shape, fans, device));
    this.bias = config.bias ? new Param(initTensor(config.initializer, [dOutput], fans, device)) : undefined;
    this.layout = config.layout;
  }

  /** `[dInput, dOutput]` of the layer, whatever its layout. */
  private sizes(): [number, number] {
    const [a, b] = this.weight.dims() as [number, number];
    return this.layout === 'col' ? [b, a] : [a, b];
  }

  /** `[..., dInput]` → `[..., dOutput]`. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const [dInput, dOutput] = this.sizes();
    const dims = input.dims();
    if (dims.length === 0 || dims[dims.length - 1] !== dInput) {
      throw new BurnError(
        'Linear',
        `input of shape ${fmt(dims)} has ${dims[dims.length - 1]} features; expected [..., ${dInput}] (dInput ${dInput}, dOutput ${dOutput})`,
      );
    }
    const weight = this.layout === 'col' ? this.weight.val().transpose() : this.weight.val();
    return linear(input, weight, this.bias?.val());
  }

  override displayAttributes(): Record<string, unknown> {
    const [dInput, dOutput] = this.sizes();
    return { dInput, dOutput, bias: this.bias !== undefined };
  }
}
