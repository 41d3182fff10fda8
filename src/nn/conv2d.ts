import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { Param } from '../module/param.js';
import { BurnError, fmt } from '../tensor/errors.js';
import { conv2d } from '../tensor/functional/conv.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { Initializer, initializerSchema, initTensor } from './init.js';
import { displayPadding, paddingSchema, resolvePadding, type Padding } from './padding.js';

const pair = z.tuple([z.number().int().positive(), z.number().int().positive()]);

/** Configuration of a {@link Conv2d} layer (Burn's `Conv2dConfig`). */
export class Conv2dConfig extends Config.define({
  /** `[inputChannels, outputChannels]`. */
  channels: pair,
  /** `[kernelHeight, kernelWidth]`. */
  kernelSize: pair,
  stride: pair.default([1, 1]),
  dilation: pair.default([1, 1]),
  groups: z.number().int().positive().default(1),
  padding: paddingSchema.default('valid'),
  bias: z.boolean().default(true),
  initializer: initializerSchema.default(Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false })),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): Conv2d {
    return new Conv2d(this, device);
  }
}

/** 2-d convolution over `[N, C, H, W]` (Burn's `Conv2d`; weight `[out, in / groups, kh, kw]`). */
export class Conv2d extends Module {
  weight: Param<Tensor<4, Float>>;
  bias: Param<Tensor<1, Float>> | undefined;
  readonly stride: [number, number];
  readonly kernelSize: [number, number];
  readonly dilation: [number, number];
  readonly groups: number;
  readonly padding: Padding;

  constructor(config: Conv2dConfig, device: Device) {
    super();
    const [cIn, cOut] = config.channels;
    if (cIn % config.groups !== 0 || cOut % config.groups !== 0) {
      throw new BurnError('Conv2dConfig', `channels [${cIn}, ${cOut}] are not divisible by groups ${config.groups}`);
    }
    const k = config.kernelSize[0] * config.kernelSize[1];
    const fans = { fanIn: (cIn / config.groups) * k, fanOut: (cOut / config.groups) * k };
    this.weight = new Param(initTensor(config.initializer, [cOut, cIn / config.groups, ...config.kernelSize], fans, device));
    this.bias = config.bias ? new Param(initTensor(config.initializer, [cOut], fans, device)) : undefined;
    this.stride = [...config.stride];
    this.kernelSize = [...config.kernelSize];
    this.dilation = [...config.dilation];
    this.groups = config.groups;
    this.padding = config.padding;
    resolvePadding(this.padding, this.kernelSize, this.stride, this.dilation, 'Conv2dConfig');
  }

  /** `[N, inputChannels, H, W]` → `[N, outputChannels, H', W']`. */
  forward(input: Tensor<4, Float>): Tensor<4, Float> {
    const dims = input.dims();
    const cIn = this.weight.dims()[1]! * this.groups;
    if (dims.length !== 4 || dims[1] !== cIn) {
      throw new BurnError('Conv2d', `input of shape ${fmt(dims)}; expected [batch, ${cIn}, height, width]`);
    }
    const padding = resolvePadding(this.padding, this.kernelSize, this.stride, this.dilation, 'Conv2d');
    return conv2d(input, this.weight.val(), this.bias?.val(), { stride: this.stride, padding, dilation: this.dilation, groups: this.groups });
  }

  override displayAttributes(): Record<string, unknown> {
    const [cOut, cInG] = this.weight.dims() as [number, number];
    return {
      chIn: cInG * this.groups, chOut: cOut, stride: this.stride, kernelSize: this.kernelSize,
      dilation: this.dilation, groups: this.groups, padding: displayPadding(this.padding),
    };
  }
}
