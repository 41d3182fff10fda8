import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { Param } from '../module/param.js';
import {
  convTranspose1d,
  convTranspose2d,
  convTranspose3d,
  type ConvTransposeFnOptions,
} from '../tensor/functional/conv.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkGroups } from './conv.js';
import { Initializer, initializerSchema, initTensor } from './init.js';
import { expectSpatialInput, listOf, pair, pair0, perDimDisplay, triple, triple0 } from './spatial.js';

const positive = z.number().int().positive();
const nonNegative = z.number().int().nonnegative();
const convInit = (): Initializer => Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false });

type AnyConvT = (
  x: Tensor<number, Float>,
  w: Tensor<number, Float>,
  b: Tensor<1, Float> | undefined,
  o: ConvTransposeFnOptions,
) => Tensor<number, Float>;
const CONVT_FNS = [undefined, convTranspose1d, convTranspose2d, convTranspose3d] as unknown as readonly AnyConvT[];

/** @internal What the N-d transposed convolution needs from a config, per-dim values as lists. */
interface ConvTransposeSpec {
  readonly channels: readonly [number, number];
  readonly kernelSize: readonly number[];
  readonly stride: readonly number[];
  readonly dilation: readonly number[];
  readonly groups: number;
  readonly padding: readonly number[];
  readonly paddingOut: readonly number[];
  readonly bias: boolean;
  readonly initializer: Initializer;
}

/**
 * The N-d transposed convolution shared by {@link ConvTranspose1d}, {@link ConvTranspose2d} and
 * {@link ConvTranspose3d} (`D` is the input rank, `S` the per-dim tuple type).
 */
export abstract class ConvTransposeNd<D extends number, S extends readonly number[]> extends Module {
  /** `[channelsIn, channelsOut / groups, ...kernelSize]` (PyTorch's layout). */
  weight: Param<Tensor<D, Float>>;
  /** `[channelsOut]`, when the layer has a bias. */
  bias: Param<Tensor<1, Float>> | undefined;
  /** Step between input positions in the output. */
  readonly stride: S;
  /** Window size. */
  readonly kernelSize: S;
  /** Spacing between kernel taps. */
  readonly dilation: S;
  /** Channel groups. */
  readonly groups: number;
  /** Removed from both sides of each output dim. */
  readonly padding: S;
  /** Added to the far side of each output dim. */
  readonly paddingOut: S;
  /** `[channelsIn, channelsOut]`. */
  readonly channels: [number, number];

  protected constructor(spec: ConvTransposeSpec, device: Device, op: string) {
    super();
    const [cIn, cOut] = spec.channels;
    checkGroups(cIn, cOut, spec.groups, op);
    // Any paddingOut, as Burn (functional.convTranspose* says why).
    const k = spec.kernelSize.reduce((a, b) => a * b, 1);
    // Burn's fans: fanIn = (channelsOut / groups) · k; Burn gives no fanOut, burn-ts the mirror (channelsIn / groups) · k.
    const fans = { fanIn: (cOut / spec.groups) * k, fanOut: (cIn / spec.groups) * k };
    this.weight = new Param(
      initTensor(spec.initializer, [cIn, cOut / spec.groups, ...spec.kernelSize], fans, device) as unknown as Tensor<
        D,
        Float
      >,
    );
    this.bias = spec.bias ? new Param(initTensor(spec.initializer, [cOut], fans, device)) : undefined;
    this.stride = [...spec.stride] as unknown as S;
    this.kernelSize = [...spec.kernelSize] as unknown as S;
    this.dilation = [...spec.dilation] as unknown as S;
    this.groups = spec.groups;
    this.padding = [...spec.padding] as unknown as S;
    this.paddingOut = [...spec.paddingOut] as unknown as S;
    this.channels = [cIn, cOut];
  }

  /**
   * `[batch, channelsIn, ...spatial]` → `[batch, channelsOut, ...spatial']` with
   * `out = (in - 1)·stride - 2·padding + dilation·(k - 1) + paddingOut + 1`.
   */
  forward(input: Tensor<D, Float>): Tensor<D, Float> {
    const nd = this.kernelSize.length;
    expectSpatialInput(input, nd, this.channels[0], this.constructor.name);
    const options = {
      stride: this.stride,
      padding: this.padding,
      paddingOut: this.paddingOut,
      dilation: this.dilation,
      groups: this.groups,
    };
    return CONVT_FNS[nd]!(input, this.weight.val(), this.bias?.val(), options) as Tensor<D, Float>;
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      channels: this.channels,
      stride: perDimDisplay(this.stride),
      kernelSize: perDimDisplay(this.kernelSize),
      dilation: perDimDisplay(this.dilation),
      groups: this.groups,
      padding: perDimDisplay(this.padding),
      paddingOut: perDimDisplay(this.paddingOut),
    };
  }
}

/** Configuration of a {@link ConvTranspose1d} layer (Burn's `ConvTranspose1dConfig`). */
export class ConvTranspose1dConfig extends Config.define({
  /** `[channelsIn, channelsOut]`. */
  channels: pair,
  /** Window size. */
  kernelSize: positive,
  /** Stride (default 1). */
  stride: positive.default(1),
  /** Spacing between kernel taps (default 1). */
  dilation: positive.default(1),
  /** Channel groups (default 1). */
  groups: positive.default(1),
  /** Removed from both ends of the output (default 0). */
  padding: nonNegative.default(0),
  /** Added to the end of the output (default 0; below max(stride, dilation)). */
  paddingOut: nonNegative.default(0),
  /** Whether to add a learnable bias (default true). */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias (default KaimingUniform(gain 1/√3)). */
  initializer: initializerSchema.default(convInit()),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): ConvTranspose1d {
    return new ConvTranspose1d(this, device);
  }
}

/** 1-d transposed convolution over `[batch, channelsIn, length]` (Burn's `ConvTranspose1d`). */
export class ConvTranspose1d extends ConvTransposeNd<3, [number]> {
  constructor(config: ConvTranspose1dConfig, device: Device) {
    const c = config;
    super(
      {
        ...c,
        kernelSize: listOf(c.kernelSize),
        stride: listOf(c.stride),
        dilation: listOf(c.dilation),
        padding: listOf(c.padding),
        paddingOut: listOf(c.paddingOut),
      },
      device,
      'ConvTranspose1dConfig',
    );
  }
}

/** Configuration of a {@link ConvTranspose2d} layer (Burn's `ConvTranspose2dConfig`). */
export class ConvTranspose2dConfig extends Config.define({
  /** `[channelsIn, channelsOut]`. */
  channels: pair,
  /** `[kernelHeight, kernelWidth]`. */
  kernelSize: pair,
  /** Stride (default [1, 1]). */
  stride: pair.default([1, 1]),
  /** Spacing between kernel taps (default [1, 1]). */
  dilation: pair.default([1, 1]),
  /** Channel groups (default 1). */
  groups: positive.default(1),
  /** Removed from both sides of each output dim (default [0, 0]). */
  padding: pair0.default([0, 0]),
  /** Added to the far side of each output dim (default [0, 0]). */
  paddingOut: pair0.default([0, 0]),
  /** Whether to add a learnable bias (default true). */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias (default KaimingUniform(gain 1/√3)). */
  initializer: initializerSchema.default(convInit()),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): ConvTranspose2d {
    return new ConvTranspose2d(this, device);
  }
}

/** 2-d transposed convolution over `[batch, channelsIn, height, width]` (Burn's `ConvTranspose2d`). */
export class ConvTranspose2d extends ConvTransposeNd<4, [number, number]> {
  constructor(config: ConvTranspose2dConfig, device: Device) {
    super(config, device, 'ConvTranspose2dConfig');
  }
}

/** Configuration of a {@link ConvTranspose3d} layer (Burn's `ConvTranspose3dConfig`). */
export class ConvTranspose3dConfig extends Config.define({
  /** `[channelsIn, channelsOut]`. */
  channels: pair,
  /** `[kernelDepth, kernelHeight, kernelWidth]`. */
  kernelSize: triple,
  /** Stride (default [1, 1, 1]). */
  stride: triple.default([1, 1, 1]),
  /** Spacing between kernel taps (default [1, 1, 1]). */
  dilation: triple.default([1, 1, 1]),
  /** Channel groups (default 1). */
  groups: positive.default(1),
  /** Removed from both sides of each output dim (default [0, 0, 0]). */
  padding: triple0.default([0, 0, 0]),
  /** Added to the far side of each output dim (default [0, 0, 0]). */
  paddingOut: triple0.default([0, 0, 0]),
  /** Whether to add a learnable bias (default true). */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias (default KaimingUniform(gain 1/√3)). */
  initializer: initializerSchema.default(convInit()),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): ConvTranspose3d {
    return new ConvTranspose3d(this, device);
  }
}

/** 3-d transposed convolution over `[batch, channelsIn, depth, height, width]` (Burn's `ConvTranspose3d`). */
export class ConvTranspose3d extends ConvTransposeNd<5, [number, number, number]> {
  constructor(config: ConvTranspose3dConfig, device: Device) {
    super(config, device, 'ConvTranspose3dConfig');
  }
}
