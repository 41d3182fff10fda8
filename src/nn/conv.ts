import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { Param } from '../module/param.js';
import { BurnError } from '../core/errors.js';
import { conv1d, conv2d, conv3d, type ConvFnOptions } from '../tensor/functional/conv.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { Initializer, initializerSchema, initTensor } from './init.js';
import { checkPadding, displayPadding, isSymmetric, paddingSchema, resolvePadding, type Padding } from './padding.js';
import { expectSpatialInput, listOf, padSpatial, pair, perDimDisplay, triple } from './spatial.js';

const positive = z.number().int().positive();
/** Burn's default initializer of the convolutions: KaimingUniform(gain 1/√3), i.e. U(-1/√fanIn, 1/√fanIn). */
const convInit = (): Initializer => Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false });

type AnyConv = (
  x: Tensor<number, Float>,
  w: Tensor<number, Float>,
  b: Tensor<1, Float> | undefined,
  o: ConvFnOptions,
) => Tensor<number, Float>;
const CONV_FNS = [undefined, conv1d, conv2d, conv3d] as unknown as readonly AnyConv[];

/** @internal What the N-d convolution needs from a config, with per-dim values as lists. */
export interface ConvSpec {
  readonly channelsIn: number;
  readonly channelsOut: number;
  readonly kernelSize: readonly number[];
  readonly stride: readonly number[];
  readonly dilation: readonly number[];
  readonly groups: number;
  readonly padding: Padding;
  readonly bias: boolean;
  readonly initializer: Initializer;
}

/** Checks Burn's `checks_channels_div_groups`. */
export function checkGroups(channelsIn: number, channelsOut: number, groups: number, op: string): void {
  if (channelsIn % groups !== 0 || channelsOut % groups !== 0) {
    throw new BurnError(op, `channels [${channelsIn}, ${channelsOut}] must both be divisible by groups ${groups}`);
  }
}

/**
 * The N-d convolution shared by {@link Conv1d}, {@link Conv2d} and {@link Conv3d} (`D` is the
 * input rank, `S` the per-dim tuple type). Per-dim fields hold one entry per spatial dim.
 */
export abstract class ConvNd<D extends number, S extends readonly number[]> extends Module {
  /** `[channelsOut, channelsIn / groups, ...kernelSize]`. */
  weight: Param<Tensor<D, Float>>;
  /** `[channelsOut]`, when the layer has a bias. */
  bias: Param<Tensor<1, Float>> | undefined;
  /** Step between windows. */
  readonly stride: S;
  /** Window size. */
  readonly kernelSize: S;
  /** Spacing between kernel taps. */
  readonly dilation: S;
  /** Channel groups (`groups = channelsIn` is a depthwise convolution). */
  readonly groups: number;
  /** Padding, resolved against each input's size. */
  readonly padding: Padding;

  protected constructor(spec: ConvSpec, device: Device, op: string) {
    super();
    const { channelsIn: cIn, channelsOut: cOut, groups } = spec;
    checkGroups(cIn, cOut, groups, op);
    checkPadding(spec.padding, spec.kernelSize.length, op);
    const k = spec.kernelSize.reduce((a, b) => a * b, 1);
    // Burn's fans: fanIn = (channelsIn / groups) · k, fanOut = (channelsOut / groups) · k.
    const fans = { fanIn: (cIn / groups) * k, fanOut: (cOut / groups) * k };
    this.weight = new Param(
      initTensor(spec.initializer, [cOut, cIn / groups, ...spec.kernelSize], fans, device) as unknown as Tensor<
        D,
        Float
      >,
    );
    this.bias = spec.bias ? new Param(initTensor(spec.initializer, [cOut], fans, device)) : undefined;
    this.stride = [...spec.stride] as unknown as S;
    this.kernelSize = [...spec.kernelSize] as unknown as S;
    this.dilation = [...spec.dilation] as unknown as S;
    this.groups = groups;
    this.padding = spec.padding;
  }

  /** `[batch, channelsIn, ...spatial]` → `[batch, channelsOut, ...spatial']`. */
  forward(input: Tensor<D, Float>): Tensor<D, Float> {
    const nd = this.kernelSize.length;
    const layer = this.constructor.name;
    const [, cInG] = this.weight.dims() as [number, number];
    const dims = expectSpatialInput(input, nd, cInG * this.groups, layer);
    const p = resolvePadding(this.padding, dims.slice(2), this.kernelSize, this.stride, this.dilation, layer);
    // Asymmetric padding ('same' with an even window, or explicit starts/ends) pads the input first, as Burn.
    const symmetric = isSymmetric(p);
    const x = symmetric ? input : padSpatial(input, p, 0);
    const options = {
      stride: this.stride,
      padding: symmetric ? p.start : 0,
      dilation: this.dilation,
      groups: this.groups,
    };
    return CONV_FNS[nd]!(x, this.weight.val(), this.bias?.val(), options) as Tensor<D, Float>;
  }

  override displayAttributes(): Record<string, unknown> {
    const [chOut, cInG] = this.weight.dims() as [number, number];
    return {
      chIn: cInG * this.groups,
      chOut,
      stride: perDimDisplay(this.stride),
      kernelSize: perDimDisplay(this.kernelSize),
      dilation: perDimDisplay(this.dilation),
      groups: this.groups,
      padding: displayPadding(this.padding),
    };
  }
}

/** Configuration of a {@link Conv1d} layer (Burn's `Conv1dConfig`). */
export class Conv1dConfig extends Config.define({
  /** Number of input channels. */
  channelsIn: positive,
  /** Number of output channels. */
  channelsOut: positive,
  /** Window size. */
  kernelSize: positive,
  /** Step between windows (default 1). */
  stride: positive.default(1),
  /** Spacing between kernel taps (default 1). */
  dilation: positive.default(1),
  /** Channel groups (default 1). */
  groups: positive.default(1),
  /** Padding (default `'valid'`; `PaddingConfig1d`). */
  padding: paddingSchema.default('valid'),
  /** Whether to add a learnable bias (default true). */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias (default KaimingUniform(gain 1/√3)). */
  initializer: initializerSchema.default(convInit()),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Conv1d {
    return new Conv1d(this, device);
  }
}

/** 1-d convolution over `[batch, channelsIn, length]` (Burn's `Conv1d`; weight `[out, in / groups, k]`). */
export class Conv1d extends ConvNd<3, [number]> {
  constructor(config: Conv1dConfig, device: Device) {
    const { kernelSize, stride, dilation } = config;
    super(
      { ...config, kernelSize: listOf(kernelSize), stride: listOf(stride), dilation: listOf(dilation) },
      device,
      'Conv1dConfig',
    );
  }
}

/** Configuration of a {@link Conv2d} layer (Burn's `Conv2dConfig`). */
export class Conv2dConfig extends Config.define({
  /** `[channelsIn, channelsOut]`. */
  channels: pair,
  /** `[kernelHeight, kernelWidth]`. */
  kernelSize: pair,
  /** Step between windows (default [1, 1]). */
  stride: pair.default([1, 1]),
  /** Spacing between kernel taps (default [1, 1]). */
  dilation: pair.default([1, 1]),
  /** Channel groups (default 1). */
  groups: positive.default(1),
  /** Padding (default `'valid'`; `PaddingConfig2d`). */
  padding: paddingSchema.default('valid'),
  /** Whether to add a learnable bias (default true). */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias (default KaimingUniform(gain 1/√3)). */
  initializer: initializerSchema.default(convInit()),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Conv2d {
    return new Conv2d(this, device);
  }
}

/** 2-d convolution over `[batch, channelsIn, height, width]` (Burn's `Conv2d`; weight `[out, in / groups, kh, kw]`). */
export class Conv2d extends ConvNd<4, [number, number]> {
  constructor(config: Conv2dConfig, device: Device) {
    super({ ...config, channelsIn: config.channels[0], channelsOut: config.channels[1] }, device, 'Conv2dConfig');
  }
}

/** Configuration of a {@link Conv3d} layer (Burn's `Conv3dConfig`). */
export class Conv3dConfig extends Config.define({
  /** `[channelsIn, channelsOut]`. */
  channels: pair,
  /** `[kernelDepth, kernelHeight, kernelWidth]`. */
  kernelSize: triple,
  /** Step between windows (default [1, 1, 1]). */
  stride: triple.default([1, 1, 1]),
  /** Spacing between kernel taps (default [1, 1, 1]). */
  dilation: triple.default([1, 1, 1]),
  /** Channel groups (default 1). */
  groups: positive.default(1),
  /** Padding (default `'valid'`; `PaddingConfig3d`). */
  padding: paddingSchema.default('valid'),
  /** Whether to add a learnable bias (default true). */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias (default KaimingUniform(gain 1/√3)). */
  initializer: initializerSchema.default(convInit()),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Conv3d {
    return new Conv3d(this, device);
  }
}

/** 3-d convolution over `[batch, channelsIn, depth, height, width]` (Burn's `Conv3d`). */
export class Conv3d extends ConvNd<5, [number, number, number]> {
  constructor(config: Conv3dConfig, device: Device) {
    super({ ...config, channelsIn: config.channels[0], channelsOut: config.channels[1] }, device, 'Conv3dConfig');
  }
}
