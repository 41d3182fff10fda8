import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { Param } from '../../module/param.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import { Tensor } from '../../tensor/tensor.js';

/**
 * Group normalization of `[batch, channels, ...]`: statistics over each group of
 * `channels / numGroups` channels and all the other dims (biased variance), then the per-channel
 * affine map. Shared by {@link GroupNorm} and {@link InstanceNorm} (one channel per group).
 */
function groupNorm<D extends number>(
  input: Tensor<D, Float>,
  gamma: Tensor<1, Float> | undefined,
  beta: Tensor<1, Float> | undefined,
  numGroups: number,
  numChannels: number,
  epsilon: number,
  layer: string,
): Tensor<D, Float> {
  const dims = input.dims();
  if (dims.length < 2 || dims[1] !== numChannels) {
    throw new BurnError(
      layer,
      `input of shape ${fmt(dims)}; expected [batch, ${numChannels}, ...] (rank >= 2 with numChannels ${numChannels} channels in dim 1)`,
    );
  }
  const [n] = dims as [number];
  const grouped = input.reshape([n, numGroups, -1]);
  const centered = grouped.sub(grouped.meanDim(2));
  const normalized = centered.div(centered.square().meanDim(2).add(epsilon).sqrt()).reshape(dims) as unknown as Tensor<
    D,
    Float
  >;
  if (gamma === undefined || beta === undefined) return normalized;
  const perChannel = dims.map((d, i) => (i === 1 ? d : 1));
  return normalized
    .mul(gamma.reshape(perChannel) as unknown as Tensor<D, Float>)
    .add(beta.reshape(perChannel) as unknown as Tensor<D, Float>);
}

/** Configuration of a {@link GroupNorm} layer (Burn's `GroupNormConfig`). */
export class GroupNormConfig extends Config.define({
  /** Number of groups the channels are split into. */
  numGroups: z.number().int().positive(),
  /** Number of channels (dim 1 of the input), divisible by `numGroups` (0 is allowed for a policy sized later). */
  numChannels: z.number().int().nonnegative(),
  /** Added to the variance for numerical stability (default 1e-5). */
  epsilon: z.number().nonnegative().default(1e-5),
  /** Learnable per-channel γ (ones) and β (zeros) (default true). */
  affine: z.boolean().default(true),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): GroupNorm {
    return new GroupNorm(this, device);
  }
}

/** Group normalization (Burn's `GroupNorm`, PyTorch's `GroupNorm`). */
export class GroupNorm extends Module {
  /** Scale γ `[numChannels]`, when affine. */
  gamma: Param<Tensor<1, Float>> | undefined;
  /** Shift β `[numChannels]`, when affine. */
  beta: Param<Tensor<1, Float>> | undefined;
  /** Number of groups. */
  readonly numGroups: number;
  /** Number of channels. */
  readonly numChannels: number;
  /** Added to the variance. */
  readonly epsilon: number;
  /** Whether γ and β are applied. */
  readonly affine: boolean;

  constructor(config: GroupNormConfig, device: Device) {
    super();
    if (config.numChannels % config.numGroups !== 0) {
      throw new BurnError(
        'GroupNormConfig',
        `numChannels ${config.numChannels} must be divisible by numGroups ${config.numGroups}`,
      );
    }
    this.gamma = config.affine ? new Param(Tensor.ones([config.numChannels], device)) : undefined;
    this.beta = config.affine ? new Param(Tensor.zeros([config.numChannels], device)) : undefined;
    this.numGroups = config.numGroups;
    this.numChannels = config.numChannels;
    this.epsilon = config.epsilon;
    this.affine = config.affine;
  }

  /** `[batch, numChannels, ...]` → same shape. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return groupNorm(
      input,
      this.gamma?.val(),
      this.beta?.val(),
      this.numGroups,
      this.numChannels,
      this.epsilon,
      'GroupNorm',
    );
  }

  override displayAttributes(): Record<string, unknown> {
    return { numGroups: this.numGroups, numChannels: this.numChannels, epsilon: this.epsilon, affine: this.affine };
  }
}

/** Configuration of an {@link InstanceNorm} layer (Burn's `InstanceNormConfig`). */
export class InstanceNormConfig extends Config.define({
  /** Number of channels (dim 1 of the input; 0 is allowed for a policy sized later). */
  numChannels: z.number().int().nonnegative(),
  /** Added to the variance for numerical stability (default 1e-5). */
  epsilon: z.number().nonnegative().default(1e-5),
  /** Learnable per-channel γ (ones) and β (zeros) (default true, as Burn; PyTorch defaults to false). */
  affine: z.boolean().default(true),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): InstanceNorm {
    return new InstanceNorm(this, device);
  }
}

/** Instance normalization: statistics per sample and channel (Burn's `InstanceNorm`; group norm with one channel per group). */
export class InstanceNorm extends Module {
  /** Scale γ `[numChannels]`, when affine. */
  gamma: Param<Tensor<1, Float>> | undefined;
  /** Shift β `[numChannels]`, when affine. */
  beta: Param<Tensor<1, Float>> | undefined;
  /** Number of channels. */
  readonly numChannels: number;
  /** Added to the variance. */
  readonly epsilon: number;
  /** Whether γ and β are applied. */
  readonly affine: boolean;

  constructor(config: InstanceNormConfig, device: Device) {
    super();
    this.gamma = config.affine ? new Param(Tensor.ones([config.numChannels], device)) : undefined;
    this.beta = config.affine ? new Param(Tensor.zeros([config.numChannels], device)) : undefined;
    this.numChannels = config.numChannels;
    this.epsilon = config.epsilon;
    this.affine = config.affine;
  }

  /** `[batch, numChannels, ...]` → same shape. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return groupNorm(
      input,
      this.gamma?.val(),
      this.beta?.val(),
      this.numChannels,
      this.numChannels,
      this.epsilon,
      'InstanceNorm',
    );
  }

  override displayAttributes(): Record<string, unknown> {
    return { numChannels: this.numChannels, epsilon: this.epsilon, affine: this.affine };
  }
}
