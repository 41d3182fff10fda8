import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Device } from '../device/device.js';
import { Module } from '../module/module.js';
import { BurnError, fmt } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';

/** Configuration of a {@link RotaryEncoding} layer (Burn's `RotaryEncodingConfig`). */
export class RotaryEncodingConfig extends Config.define({
  /** The longest sequence (number of positions precomputed). */
  maxSequenceLength: z.number().int().positive(),
  /** The size of the encoded features (even). */
  dModel: z.number().int().positive(),
  /** The base of the frequencies `θᵢ = theta^(-2i / dModel)`. */
  theta: z.number().positive().default(10000),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): RotaryEncoding {
    return this.initWithFrequencyScaling((t) => t, device);
  }

  /**
   * Creates the layer with the base frequencies `[dModel / 2]` passed through `scaling` first
   * (for RoPE extensions), as Burn's `init_with_frequency_scaling`.
   */
  initWithFrequencyScaling(scaling: (theta: Tensor<1, Float>) => Tensor<1, Float>, device: Device): RotaryEncoding {
    if (this.dModel % 2 !== 0)
      throw new BurnError('RotaryEncodingConfig', `dModel ${this.dModel} is odd; expected an even embedding size`);
    const exponent = Tensor.arangeStep(0, this.dModel, 2, device).float().div(this.dModel);
    const theta = scaling(exponent.mul(Math.log(this.theta)).exp().recip());
    if (theta.rank() !== 1 || theta.dims()[0] !== this.dModel / 2) {
      throw new BurnError(
        'RotaryEncodingConfig',
        `the frequency scaling returned shape ${fmt(theta.dims())}; expected [${this.dModel / 2}] (dModel / 2)`,
      );
    }
    return new RotaryEncoding(computeRotaryFrequencies(0, this.maxSequenceLength, theta), theta, 0);
  }
}

/**
 * Rotary positional encoding, RoPE (Burn's `RotaryEncoding`, RoFormer): rotates each pair of
 * features `(2i, 2i + 1)` at position `p` by the angle `p·θᵢ`. Accepts `[..., seq, dModel]`,
 * e.g. `[batch, heads, seq, dModel]`.
 */
export class RotaryEncoding extends Module {
  /** `[maxSequenceLength, dModel, 2]`: `(cos, sin)` of each position and feature (a constant). */
  readonly freqComplex: Tensor<3, Float>;
  /** The base frequencies `[dModel / 2]` (a constant). */
  readonly theta: Tensor<1, Float>;
  /** The first position covered by {@link freqComplex} (moved by {@link shift}). */
  readonly startOffset: number;

  /** Builds the layer from precomputed frequencies (use {@link RotaryEncodingConfig.init}). */
  constructor(freqComplex: Tensor<3, Float>, theta: Tensor<1, Float>, startOffset: number) {
    super();
    this.freqComplex = freqComplex;
    this.theta = theta;
    this.startOffset = startOffset;
  }

  /** Encodes positions `0..seq` of `x` `[..., seq, dModel]`. */
  forward<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
    return this.apply(x, 0);
  }

  /**
   * Encodes `x` `[..., seq, dModel]` with the frequencies of window positions `start..start + seq`
   * (Burn's `apply`; e.g. the position of a new token when decoding with a key/value cache).
   */
  apply<D extends number>(x: Tensor<D, Float>, start: number): Tensor<D, Float> {
    const dims: number[] = x.dims();
    const [maxSeq, dModel] = this.freqComplex.dims() as [number, number, number];
    const seq = dims[dims.length - 2]!;
    if (dims.length < 2 || dims[dims.length - 1] !== dModel) {
      throw new BurnError(
        'RotaryEncoding',
        `input of shape ${fmt(dims)}; expected [..., seq, ${dModel}] (dModel ${dModel})`,
      );
    }
    if (!(Number.isInteger(start) && start >= 0) || start + seq > maxSeq) {
      throw new BurnError(
        'RotaryEncoding',
        `positions ${start}..${start + seq} of input ${fmt(dims)} exceed the ${maxSeq} precomputed positions (maxSequenceLength)`,
      );
    }
    const n = dims.slice(0, -2).reduce((a, b) => a * b, 1);
    // Each pair (a, b) becomes rows (a, -b) and (b, a); times (cos, sin) and summed: a·cos - b·sin, b·cos + a·sin.
    const sign = Tensor.fromFloats(
      [
        [1, 0, 0, 1],
        [0, -1, 1, 0],
      ],
      x.device(),
    ).unsqueeze<4>();
    const freqs = this.freqComplex.slice([[start, start + seq]]).unsqueeze<4>();
    const out = x
      .reshape([n, seq, dModel / 2, 2])
      .matmul(sign)
      .reshape([n, seq, dModel, 2])
      .mul(freqs);
    return out.sumDim(3).reshape(dims) as Tensor<D, Float>;
  }

  /**
   * The layer with its frequency window moved to start at position `start` (Burn's `shift`;
   * `start` must be greater than the current offset). Returns a new module.
   */
  shift(start: number): RotaryEncoding {
    const maxSeq = this.freqComplex.dims()[0]!;
    if (!Number.isInteger(start) || start <= this.startOffset) {
      throw new BurnError(
        'RotaryEncoding.shift',
        `start ${start}; expected an integer greater than the current offset ${this.startOffset}`,
      );
    }
    const end = this.startOffset + maxSeq;
    let freqs: Tensor<3, Float>;
    if (start >= end) {
      freqs = computeRotaryFrequencies(start, start + maxSeq, this.theta);
    } else {
      const kept = this.freqComplex.slice([[start - this.startOffset, maxSeq]]);
      freqs = Tensor.cat([kept, computeRotaryFrequencies(end, start + maxSeq, this.theta)], 0);
    }
    return new RotaryEncoding(freqs, this.theta, start);
  }

  /** The layer with its frequency window back at position 0 (Burn's `reset`). Returns a new module. */
  reset(): RotaryEncoding {
    if (this.startOffset === 0) return this;
    return new RotaryEncoding(computeRotaryFrequencies(0, this.freqComplex.dims()[0]!, this.theta), this.theta, 0);
  }

  override displayAttributes(): Record<string, unknown> {
    const [maxSequenceLength, dModel] = this.freqComplex.dims();
    return { dModel, maxSequenceLength };
  }
}

/** `[end - start, dModel, 2]`: `(cos(p·θᵢ), sin(p·θᵢ))` at features `2i` and `2i + 1` of position `p`. */
function computeRotaryFrequencies(start: number, end: number, theta: Tensor<1, Float>): Tensor<3, Float> {
  const half = theta.dims()[0]!;
  const n = end - start;
  const positions = Tensor.arange(start, end, theta.device()).float().reshape([n, 1]);
  const angles = positions.mul(theta.reshape([1, half]));
  return Tensor.cat([angles.cos(), angles.sin()], 1)
    .reshape([n, 2, half])
    .swapDims(1, 2)
    .unsqueezeDim(2)
    .repeatDim(2, 2)
    .reshape([n, 2 * half, 2]) as Tensor<3, Float>;
}
