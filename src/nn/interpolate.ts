import { z } from 'zod';
import { Config } from '../config/config.js';
import { Module } from '../module/module.js';
import type { InterpolateMode as OpsInterpolateMode } from '../backend/options.js';
import { BurnError, fmt } from '../core/errors.js';
import { interpolate } from '../tensor/functional/interpolate.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { pair } from './spatial.js';

/**
 * Interpolation modes of the resize layers (Burn's `nn::interpolate::InterpolateMode`). Burn's
 * `Lanczos` is not offered: no burn-ts backend implements it yet.
 */
export const InterpolateMode = {
  /** Nearest neighbour, floor mapping. */
  Nearest: 'nearest',
  /** Nearest neighbour, half-pixel mapping (PyTorch's `nearest-exact`). */
  NearestExact: 'nearestExact',
  /** Linear (bilinear in 2-d). */
  Linear: 'linear',
  /** Cubic (bicubic in 2-d, A = -0.75). */
  Cubic: 'cubic',
} as const;
/** A resize layer's interpolation mode. */
export type InterpolateMode = (typeof InterpolateMode)[keyof typeof InterpolateMode];

const modeSchema = z.enum(['nearest', 'nearestExact', 'linear', 'cubic']);
const OPS_MODE: Record<InterpolateMode, OpsInterpolateMode> = {
  nearest: 'nearest',
  nearestExact: 'nearest-exact',
  linear: 'bilinear',
  cubic: 'bicubic',
};
const DISPLAY: Record<InterpolateMode, string> = {
  nearest: 'Nearest',
  nearestExact: 'NearestExact',
  linear: 'Linear',
  cubic: 'Cubic',
};
const positive = z.number().int().positive();

/** The output size from `outputSize` (preferred) or `floor(size · scaleFactor)`, as Burn. */
function outputSizeOf(
  sizes: readonly number[],
  outputSize: readonly number[] | undefined,
  scaleFactor: readonly number[] | undefined,
  layer: string,
): number[] {
  if (outputSize !== undefined) return [...outputSize];
  if (scaleFactor === undefined)
    throw new BurnError(layer, 'neither outputSize nor scaleFactor is set; expected one of them');
  const out = sizes.map((s, i) => Math.floor(s * scaleFactor[i]!));
  if (out.some((o) => o < 1))
    throw new BurnError(
      layer,
      `scaleFactor [${scaleFactor.join(', ')}] on spatial size ${fmt(sizes)} gives ${fmt(out)}; expected every size >= 1`,
    );
  return out;
}

/** Configuration of {@link Interpolate1d} (Burn's `Interpolate1dConfig`); give `outputSize` or `scaleFactor`. */
export class Interpolate1dConfig extends Config.define({
  /** Output length (takes precedence over `scaleFactor`). */
  outputSize: positive.optional(),
  /** Output length = floor(length · scaleFactor). */
  scaleFactor: z.number().positive().optional(),
  /** Interpolation mode (default `'nearest'`). */
  mode: modeSchema.default('nearest'),
  /** Align the corner samples of input and output (default true, as Burn; PyTorch defaults to false). */
  alignCorners: z.boolean().default(true),
}) {
  /** Creates the layer. */
  init(): Interpolate1d {
    return new Interpolate1d(this);
  }
}

/** Resizes `[batch, channels, length]` (Burn's `Interpolate1d`). */
export class Interpolate1d extends Module {
  /** Output length, if fixed. */
  readonly outputSize: number | undefined;
  /** Scale of the length, when `outputSize` is not set. */
  readonly scaleFactor: number | undefined;
  /** Interpolation mode. */
  readonly mode: InterpolateMode;
  /** Whether corner samples are aligned. */
  readonly alignCorners: boolean;

  constructor(config: Interpolate1dConfig) {
    super();
    this.outputSize = config.outputSize;
    this.scaleFactor = config.scaleFactor;
    this.mode = config.mode;
    this.alignCorners = config.alignCorners;
  }

  /** `[batch, channels, length]` → `[batch, channels, length']`. */
  forward(input: Tensor<3, Float>): Tensor<3, Float> {
    const dims = input.dims();
    if (dims.length !== 3)
      throw new BurnError(
        'Interpolate1d',
        `input of shape ${fmt(dims)} has rank ${dims.length}; expected [batch, channels, length]`,
      );
    const [out] = outputSizeOf(
      dims.slice(2),
      this.outputSize === undefined ? undefined : [this.outputSize],
      this.scaleFactor === undefined ? undefined : [this.scaleFactor],
      'Interpolate1d',
    );
    const y = interpolate(input.unsqueezeDim(2) as Tensor<4, Float>, [1, out!], {
      mode: OPS_MODE[this.mode],
      alignCorners: this.alignCorners,
    });
    return y.squeezeDim(2) as Tensor<3, Float>;
  }

  override displayAttributes(): Record<string, unknown> {
    return { mode: DISPLAY[this.mode], outputSize: this.outputSize, scaleFactor: this.scaleFactor };
  }
}

/** Configuration of {@link Interpolate2d} (Burn's `Interpolate2dConfig`); give `outputSize` or `scaleFactor`. */
export class Interpolate2dConfig extends Config.define({
  /** `[heightOut, widthOut]` (takes precedence over `scaleFactor`). */
  outputSize: pair.optional(),
  /** `[scaleHeight, scaleWidth]`: sizes are floor(size · scale). */
  scaleFactor: z.tuple([z.number().positive(), z.number().positive()]).optional(),
  /** Interpolation mode (default `'nearest'`). */
  mode: modeSchema.default('nearest'),
  /** Align the corner pixels of input and output (default true, as Burn; PyTorch defaults to false). */
  alignCorners: z.boolean().default(true),
}) {
  /** Creates the layer. */
  init(): Interpolate2d {
    return new Interpolate2d(this);
  }
}

/** Resizes `[batch, channels, height, width]` (Burn's `Interpolate2d`). */
export class Interpolate2d extends Module {
  /** Output size, if fixed. */
  readonly outputSize: [number, number] | undefined;
  /** Scale of each spatial dim, when `outputSize` is not set. */
  readonly scaleFactor: [number, number] | undefined;
  /** Interpolation mode. */
  readonly mode: InterpolateMode;
  /** Whether corner pixels are aligned. */
  readonly alignCorners: boolean;

  constructor(config: Interpolate2dConfig) {
    super();
    this.outputSize = config.outputSize && [...config.outputSize];
    this.scaleFactor = config.scaleFactor && [...config.scaleFactor];
    this.mode = config.mode;
    this.alignCorners = config.alignCorners;
  }

  /** `[batch, channels, height, width]` → `[batch, channels, height', width']`. */
  forward(input: Tensor<4, Float>): Tensor<4, Float> {
    const dims = input.dims();
    if (dims.length !== 4)
      throw new BurnError(
        'Interpolate2d',
        `input of shape ${fmt(dims)} has rank ${dims.length}; expected [batch, channels, height, width]`,
      );
    const out = outputSizeOf(dims.slice(2), this.outputSize, this.scaleFactor, 'Interpolate2d');
    return interpolate(input, out, { mode: OPS_MODE[this.mode], alignCorners: this.alignCorners });
  }

  override displayAttributes(): Record<string, unknown> {
    return { mode: DISPLAY[this.mode], outputSize: this.outputSize, scaleFactor: this.scaleFactor };
  }
}
