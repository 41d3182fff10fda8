import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { Param } from '../module/param.js';
import { BurnError } from '../core/errors.js';
import { deformConv2d } from '../tensor/functional/deform-conv.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { checkGroups } from './conv.js';
import { Initializer, initializerSchema, initTensor } from './init.js';
import { checkPadding, displayPadding, isSymmetric, paddingSchema, resolvePadding, type Padding } from './padding.js';
import { expectSpatialInput, pair } from './spatial.js';

const positive = z.number().int().positive();

/** Configuration of a {@link DeformConv2d} layer (Burn's `DeformConv2dConfig`). */
export class DeformConv2dConfig extends Config.define({
  /** `[channelsIn, channelsOut]`. */
  channels: pair,
  /** `[kernelHeight, kernelWidth]`. */
  kernelSize: pair,
  /** Step between windows (default [1, 1]). */
  stride: pair.default([1, 1]),
  /** Spacing between kernel taps (default [1, 1]). */
  dilation: pair.default([1, 1]),
  /** Channel groups of the weight (default 1). */
  weightGroups: positive.default(1),
  /** Channel groups sharing one set of offsets (default 1). */
  offsetGroups: positive.default(1),
  /** Padding (default `'valid'`); only symmetric padding, so `'same'` needs odd kernels (as Burn). */
  padding: paddingSchema.default('valid'),
  /** Whether to add a learnable bias (default true). */
  bias: z.boolean().default(true),
  /** Initializer of the weight and bias (default KaimingUniform(gain 1/√3)). */
  initializer: initializerSchema.default(Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false })),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): DeformConv2d {
    return new DeformConv2d(this, device);
  }
}

/**
 * Deformable 2-d convolution (Burn's `DeformConv2d`, torchvision's `deform_conv2d`): every kernel
 * tap samples the input at its regular position shifted by a learned offset, optionally
 * modulated by a mask (DCNv2). Weight `[channelsOut, channelsIn / weightGroups, kh, kw]`.
 */
export class DeformConv2d extends Module {
  /** `[channelsOut, channelsIn / weightGroups, kh, kw]`. */
  weight: Param<Tensor<4, Float>>;
  /** `[channelsOut]`, when the layer has a bias. */
  bias: Param<Tensor<1, Float>> | undefined;
  /** Step between windows. */
  readonly stride: [number, number];
  /** Window size. */
  readonly kernelSize: [number, number];
  /** Spacing between kernel taps. */
  readonly dilation: [number, number];
  /** Channel groups of the weight. */
  readonly weightGroups: number;
  /** Channel groups sharing one set of offsets. */
  readonly offsetGroups: number;
  /** Padding (symmetric). */
  readonly padding: Padding;

  constructor(config: DeformConv2dConfig, device: Device) {
    super();
    const op = 'DeformConv2dConfig';
    const [cIn, cOut] = config.channels;
    checkGroups(cIn, cOut, config.weightGroups, op);
    if (cIn % config.offsetGroups !== 0)
      throw new BurnError(op, `channelsIn ${cIn} must be divisible by offsetGroups ${config.offsetGroups}`);
    checkPadding(config.padding, 2, op, false);
    if (config.padding === 'same' && config.kernelSize.some((k) => k % 2 === 0)) {
      throw new BurnError(
        op,
        `'same' padding needs odd kernel sizes (only symmetric padding is supported); got kernelSize [${config.kernelSize.join(', ')}]`,
      );
    }
    const k = config.kernelSize[0] * config.kernelSize[1];
    const fans = { fanIn: (cIn / config.weightGroups) * k, fanOut: (cOut / config.weightGroups) * k };
    this.weight = new Param(
      initTensor(config.initializer, [cOut, cIn / config.weightGroups, ...config.kernelSize], fans, device),
    );
    this.bias = config.bias ? new Param(initTensor(config.initializer, [cOut], fans, device)) : undefined;
    this.stride = [...config.stride];
    this.kernelSize = [...config.kernelSize];
    this.dilation = [...config.dilation];
    this.weightGroups = config.weightGroups;
    this.offsetGroups = config.offsetGroups;
    this.padding = config.padding;
  }

  /**
   * @param input `[batch, channelsIn, height, width]`
   * @param offset `[batch, 2 · offsetGroups · kh · kw, heightOut, widthOut]`: `(dy, dx)` per group and tap
   * @param mask optional `[batch, offsetGroups · kh · kw, heightOut, widthOut]`
   * @returns `[batch, channelsOut, heightOut, widthOut]`
   */
  forward(input: Tensor<4, Float>, offset: Tensor<4, Float>, mask?: Tensor<4, Float>): Tensor<4, Float> {
    const [, cInG] = this.weight.dims() as [number, number];
    const dims = expectSpatialInput(input, 2, cInG * this.weightGroups, 'DeformConv2d');
    const p = resolvePadding(this.padding, dims.slice(2), this.kernelSize, this.stride, this.dilation, 'DeformConv2d');
    if (!isSymmetric(p))
      throw new BurnError(
        'DeformConv2d',
        `padding [${p.start.join(', ')}] before and [${p.end.join(', ')}] after; only symmetric padding is supported`,
      );
    return deformConv2d(input, offset, this.weight.val(), mask, this.bias?.val(), {
      stride: this.stride,
      padding: p.start,
      dilation: this.dilation,
      weightGroups: this.weightGroups,
      offsetGroups: this.offsetGroups,
    });
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      stride: this.stride,
      kernelSize: this.kernelSize,
      dilation: this.dilation,
      weightGroups: this.weightGroups,
      offsetGroups: this.offsetGroups,
      padding: displayPadding(this.padding),
    };
  }
}
