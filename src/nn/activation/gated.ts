import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import * as activation from '../../tensor/activation/index.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { Initializer, initializerSchema } from '../init.js';
import { Linear, LinearConfig } from '../linear.js';

// Gated activation layers (Burn's `GLU` and `SwiGlu`).

/**
 * Gated linear unit (Burn's `GLU`): splits the input in two halves `a`, `b` along `dim` and
 * returns `a · sigmoid(b)`, halving that dim (so it is not part of {@link Activation}).
 */
export class GLU extends Module {
  /** The dim to split (negative counts from the end). */
  readonly dim: number;

  constructor(dim: number) {
    super();
    if (!Number.isInteger(dim)) throw new BurnError('GLU', `dim = ${String(dim)}; expected an integer`);
    this.dim = dim;
  }

  /** Applies the activation; the size along `dim` must be even. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const dims = input.dims();
    const d = this.dim < 0 ? dims.length + this.dim : this.dim;
    if (d < 0 || d >= dims.length)
      throw new BurnError('GLU', `dim ${this.dim} is out of range for an input of shape ${fmt(dims)}`);
    if (dims[d]! % 2 !== 0)
      throw new BurnError(
        'GLU',
        `input of shape ${fmt(dims)} has odd size ${dims[d]} at dim ${this.dim}; expected an even size to split in two halves`,
      );
    return activation.glu(input, this.dim);
  }

  override displayAttributes(): Record<string, unknown> {
    return { dim: this.dim };
  }
}

/** Configuration of {@link SwiGlu} (Burn's `SwiGluConfig`). */
export class SwiGluConfig extends Config.define({
  /** Size of the input features. */
  dInput: z.number().int().positive(),
  /** Size of the output features. */
  dOutput: z.number().int().positive(),
  /** Whether both linear layers have a bias (Burn's default: false). */
  bias: z.boolean().default(false),
  /** Initializer of both linear layers. */
  initializer: initializerSchema.default(Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false })),
  /** Weight layout of both linear layers (`'row'`: `[dInput, dOutput]`, Burn's default; `'col'`: `[dOutput, dInput]`). */
  layout: z.enum(['row', 'col']).default('row'),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): SwiGlu {
    return new SwiGlu(this, device);
  }
}

/**
 * SwiGLU (Burn's `SwiGlu`): `silu(x·W_inner + b_inner) · (x·W_outer + b_outer)`, two
 * `dInput → dOutput` linear layers applied to the last dim.
 */
export class SwiGlu extends Module {
  /** The gated branch (passed through SiLU). */
  linearInner: Linear;
  /** The linear branch. */
  linearOuter: Linear;

  constructor(config: SwiGluConfig, device: Device) {
    super();
    const linear = new LinearConfig({
      dInput: config.dInput,
      dOutput: config.dOutput,
      bias: config.bias,
      initializer: config.initializer,
      layout: config.layout,
    });
    this.linearInner = linear.init(device);
    this.linearOuter = linear.init(device);
  }

  /** `[..., dInput]` → `[..., dOutput]`. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    const { dInput, dOutput } = this.linearInner.displayAttributes() as { dInput: number; dOutput: number };
    const dims = input.dims();
    if (dims[dims.length - 1] !== dInput) {
      throw new BurnError(
        'SwiGlu',
        `input of shape ${fmt(dims)} has ${dims[dims.length - 1]} features; expected [..., ${dInput}] (dInput ${dInput}, dOutput ${dOutput})`,
      );
    }
    return activation.silu(this.linearInner.forward(input)).mul(this.linearOuter.forward(input));
  }

  override displayAttributes(): Record<string, unknown> {
    return this.linearInner.displayAttributes();
  }
}
