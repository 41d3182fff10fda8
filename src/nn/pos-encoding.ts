import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { TensorData } from '../core/data.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';

/** Configuration of a {@link PositionalEncoding} layer (Burn's `PositionalEncodingConfig`). */
export class PositionalEncodingConfig extends Config.define({
  /** The longest sequence the layer accepts. */
  maxSequenceSize: z.number().int().positive().default(5000),
  /** The size of each vector (even). */
  dModel: z.number().int().positive(),
  /** The maximum time scale (at least `maxSequenceSize`). */
  maxTimescale: z.number().int().positive().default(10000),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): PositionalEncoding {
    return new PositionalEncoding(this, device);
  }
}

/**
 * Adds sinusoidal positional encodings to `[batch, seq, dModel]` inputs (Burn's
 * `PositionalEncoding`, "Attention Is All You Need"): pairs `(sin(p·ωₖ), cos(p·ωₖ))` at features
 * `(k, k + 1)`, `ωₖ = maxTimescale^(-k / dModel)`.
 */
export class PositionalEncoding extends Module {
  /** The precomputed sinusoids `[1, maxSequenceSize, dModel]` (a constant, not a parameter). */
  readonly sinusoids: Tensor<3, Float>;
  /** The longest sequence accepted. */
  readonly maxSequenceSize: number;
  /** The maximum time scale. */
  readonly maxTimescale: number;

  constructor(config: PositionalEncodingConfig, device: Device) {
    super();
    this.sinusoids = generateSinusoids(
      config.maxSequenceSize,
      config.dModel,
      config.maxTimescale,
      device,
    ).unsqueeze<3>();
    this.maxSequenceSize = config.maxSequenceSize;
    this.maxTimescale = config.maxTimescale;
  }

  /** `[batch, seq, dModel]` → the same plus the encodings of positions `0..seq`. */
  forward(input: Tensor<3, Float>): Tensor<3, Float> {
    const dims = input.dims();
    const [, maxSeq, dModel] = this.sinusoids.dims() as [number, number, number];
    if (dims.length !== 3 || dims[2] !== dModel || dims[1]! > maxSeq) {
      throw new BurnError(
        'PositionalEncoding',
        `input of shape ${fmt(dims)}; expected [batch, seq <= ${maxSeq} (maxSequenceSize), ${dModel} (dModel)]`,
      );
    }
    return input.add(this.sinusoids.slice([null, [0, dims[1]!]]));
  }

  override displayAttributes(): Record<string, unknown> {
    return { dModel: this.sinusoids.dims()[2], maxSequenceSize: this.maxSequenceSize, maxTimescale: this.maxTimescale };
  }
}

/**
 * The sinusoids `[length, dModel]` of {@link PositionalEncoding} (Burn's `generate_sinusoids`),
 * computed in f32 arithmetic like Burn: `[i, k] = sin(i·e^(k·(-ln(maxTimescale)/dModel)))` and
 * `[i, k + 1]` the cosine, for even `k`.
 */
export function generateSinusoids(
  length: number,
  dModel: number,
  maxTimescale: number,
  device?: Device,
): Tensor<2, Float> {
  if (dModel % 2 !== 0) throw new BurnError('generateSinusoids', `dModel ${dModel} is odd; expected an even size`);
  if (maxTimescale < length) {
    throw new BurnError(
      'generateSinusoids',
      `maxTimescale ${maxTimescale} is less than the length ${length}; expected maxTimescale >= length`,
    );
  }
  const f = Math.fround;
  const increment = f(-f(Math.log(maxTimescale)) / dModel);
  const values = new Float32Array(length * dModel);
  for (let k = 0; k < dModel; k += 2) {
    const divTerm = f(Math.exp(f(k * increment)));
    for (let i = 0; i < length; i++) {
      const arg = f(divTerm * i);
      values[i * dModel + k] = Math.sin(arg);
      values[i * dModel + k + 1] = Math.cos(arg);
    }
  }
  return Tensor.fromData<2, Float>(new TensorData(values, [length, dModel], 'f32'), device);
}
