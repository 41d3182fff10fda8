import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { quietSoftmax } from '../../tensor/activation/softmax.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Bool, Float } from '../../tensor/kind.js';
import { sameShape } from '../../core/shape.js';
import type { Tensor } from '../../tensor/tensor.js';
import { TensorCache } from '../cache.js';
import { Dropout, DropoutConfig } from '../dropout.js';
import { Initializer, initializerSchema } from '../init.js';
import { Linear, LinearConfig } from '../linear.js';

/** Configuration of a {@link MultiHeadAttention} layer (Burn's `MultiHeadAttentionConfig`). */
export class MultiHeadAttentionConfig extends Config.define({
  /** The size of each linear layer (the model size). */
  dModel: z.number().int().positive(),
  /** The number of heads (`dModel` must be divisible by it). */
  nHeads: z.number().int().positive(),
  /** The dropout rate (applied to the attention scores, as Burn does). */
  dropout: z.number().min(0).max(1).default(0.1),
  /** The value masked scores are set to (too low a value may give NaN in half precision). */
  minFloat: z.number().default(-1.0e4),
  /** Use "quiet softmax" (softmax1) instead of the regular softmax. */
  quietSoftmax: z.boolean().default(false),
  /** Initializer of the four linear layers. */
  initializer: initializerSchema.default(Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false })),
  /** Bias of the key projection. */
  keyBias: z.boolean().default(true),
  /** Bias of the value projection. */
  valueBias: z.boolean().default(true),
  /** Bias of the query projection. */
  queryBias: z.boolean().default(true),
  /** Bias of the output projection. */
  outputBias: z.boolean().default(true),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): MultiHeadAttention {
    return new MultiHeadAttention(this, device);
  }
}

/**
 * The input of {@link MultiHeadAttention.forward} (Burn's `MhaInput`): query `[batch, seqQ, dModel]`,
 * key and value `[batch, seqK, dModel]`, and optional masks (`true` = masked out).
 */
export class MhaInput {
  /** `[batch, seqQ, dModel]`. */
  readonly query: Tensor<3, Float>;
  /** `[batch, seqK, dModel]`. */
  readonly key: Tensor<3, Float>;
  /** `[batch, seqK, dModel]`. */
  readonly value: Tensor<3, Float>;
  /** Padding mask `[batch, seqK]`. */
  readonly padMask: Tensor<2, Bool> | undefined;
  /** Attention mask `[batch, seqQ, seqK]`. */
  readonly attnMask: Tensor<3, Bool> | undefined;

  /** An input with separate query, key and value. */
  constructor(
    query: Tensor<3, Float>,
    key: Tensor<3, Float>,
    value: Tensor<3, Float>,
    masks: { maskPad?: Tensor<2, Bool>; maskAttn?: Tensor<3, Bool> } = {},
  ) {
    this.query = query;
    this.key = key;
    this.value = value;
    this.padMask = masks.maskPad;
    this.attnMask = masks.maskAttn;
  }

  /** Self-attention: query, key and value are all `tensor` (`[batch, seq, dModel]`). */
  static selfAttn(tensor: Tensor<3, Float>): MhaInput {
    return new MhaInput(tensor, tensor, tensor);
  }

  /** The same input with the padding mask `[batch, seqK]` (`true` = padding, not attended to). */
  maskPad(mask: Tensor<2, Bool>): MhaInput {
    return new MhaInput(this.query, this.key, this.value, { maskPad: mask, maskAttn: this.attnMask });
  }

  /** The same input with the attention mask `[batch, seqQ, seqK]` (`true` = not attended to). */
  maskAttn(mask: Tensor<3, Bool>): MhaInput {
    return new MhaInput(this.query, this.key, this.value, { maskPad: this.padMask, maskAttn: mask });
  }
}

/** The output of {@link MultiHeadAttention.forward} (Burn's `MhaOutput`). */
export interface MhaOutput {
  /** The attention weights `[batch, nHeads, seqQ, seqK]`. */
  readonly weights: Tensor<4, Float>;
  /** The context `[batch, seqQ, dModel]`. */
  readonly context: Tensor<3, Float>;
}

/**
 * The cache of {@link MultiHeadAttention.forwardCache} for autoregressive decoding (Burn's
 * `MhaCache`). Mutable; use one per decoding run.
 */
export class MhaCache {
  /** A cache from one cache per projection (see {@link autoregressive}). */
  constructor(
    /** The query projection's cache. */ readonly query: MhaLinearCache<4>,
    /** The key projection's cache. */ readonly key: MhaLinearCache<4>,
    /** The value projection's cache. */ readonly value: MhaLinearCache<4>,
    /** The output projection's cache. */ readonly output: MhaLinearCache<3>,
  ) {}

  /** A cache for self-attention: each step projects only the newest token. */
  static autoregressive(): MhaCache {
    return new MhaCache(new MhaLinearCache(2), new MhaLinearCache(2), new MhaLinearCache(2), new MhaLinearCache(1));
  }

  /** A cache for cross-attention: keys and values come from a fixed memory, computed once. */
  static autoregressiveCrossAttention(): MhaCache {
    return new MhaCache(
      new MhaLinearCache(2),
      new MhaLinearCache('full'),
      new MhaLinearCache('full'),
      new MhaLinearCache(1),
    );
  }
}

/** One projection's cache in an {@link MhaCache}: autoregressive along a dim, or `'full'` (computed once). */
export class MhaLinearCache<D extends number> {
  /** The cached tensor. */
  readonly cache = TensorCache.empty<D>();
  constructor(/** The dim new tokens are appended along, or `'full'`. */ readonly mode: number | 'full') {}

  /** Applies `fn` through the cache. */
  forward(tensor: Tensor<3, Float>, fn: (t: Tensor<3, Float>) => Tensor<D, Float>): Tensor<D, Float> {
    return this.mode === 'full'
      ? this.cache.forwardFull(tensor, fn)
      : this.cache.forwardAutoregressive(tensor, this.mode, fn);
  }
}

/**
 * Multi-head attention (Burn's `MultiHeadAttention`, "Attention Is All You Need"): separate
 * `query`, `key`, `value` and `output` linear layers of `dModel → dModel` (weights `[dIn, dOut]`),
 * `softmax(QKᵀ / √dK)·V` per head. As in Burn, dropout is applied to the scaled scores before the
 * softmax, and masked scores are set to `minFloat` (not -∞).
 */
export class MultiHeadAttention extends Module {
  /** Query projection. */
  query: Linear;
  /** Key projection. */
  key: Linear;
  /** Value projection. */
  value: Linear;
  /** Output projection. */
  output: Linear;
  /** Dropout on the attention scores. */
  dropout: Dropout;
  /** The model size. */
  readonly dModel: number;
  /** The number of heads. */
  readonly nHeads: number;
  /** The size of each head (`dModel / nHeads`). */
  readonly dK: number;
  /** The value masked scores are set to. */
  readonly minFloat: number;
  /** Whether quiet softmax is used. */
  readonly quietSoftmax: boolean;

  constructor(config: MultiHeadAttentionConfig, device: Device) {
    super();
    if (config.dModel % config.nHeads !== 0) {
      throw new BurnError(
        'MultiHeadAttentionConfig',
        `dModel ${config.dModel} is not divisible by nHeads ${config.nHeads}; expected dModel = nHeads * dK`,
      );
    }
    const linear = new LinearConfig({ dInput: config.dModel, dOutput: config.dModel, initializer: config.initializer });
    this.query = linear.withBias(config.queryBias).init(device);
    this.key = linear.withBias(config.keyBias).init(device);
    this.value = linear.withBias(config.valueBias).init(device);
    this.output = linear.withBias(config.outputBias).init(device);
    this.dropout = new DropoutConfig({ prob: config.dropout }).init();
    this.dModel = config.dModel;
    this.nHeads = config.nHeads;
    this.dK = config.dModel / config.nHeads;
    this.minFloat = config.minFloat;
    this.quietSoftmax = config.quietSoftmax;
  }

  /**
   * Attends the query to the key/value.
   *
   * Shapes: query `[batch, seqQ, dModel]`, key and value `[batch, seqK, dModel]` → context
   * `[batch, seqQ, dModel]`, weights `[batch, nHeads, seqQ, seqK]`.
   */
  forward(input: MhaInput): MhaOutput {
    const [batch, seqQ] = this.check(input);
    const query = this.attentionLinear(input.query, this.query);
    const key = this.attentionLinear(input.key, this.key);
    const value = this.attentionLinear(input.value, this.value);
    const weights = this.attnWeights(this.attnScores(query, key), input);
    const context = weights.matmul(value).swapDims(1, 2).reshape([batch, seqQ, this.dModel]);
    return { weights, context: this.output.forward(context) };
  }

  /**
   * {@link forward} with a cache for autoregressive decoding: call it with the whole sequence so
   * far at each step (`[batch, step, dModel]`); only the newest token is projected (keys and
   * values of a cross-attention cache are projected once). Equals the full forward.
   */
  forwardCache(input: MhaInput, cache: MhaCache): MhaOutput {
    const [batch, seqQ] = this.check(input);
    const query = cache.query.forward(input.query, (t) => this.attentionLinear(t, this.query));
    const key = cache.key.forward(input.key, (t) => this.attentionLinear(t, this.key));
    const value = cache.value.forward(input.value, (t) => this.attentionLinear(t, this.value));
    const weights = this.attnWeights(this.attnScores(query, key), input);
    const context = weights.matmul(value).swapDims(1, 2).reshape([batch, seqQ, this.dModel]);
    return { weights, context: cache.output.forward(context, (t) => this.output.forward(t)) };
  }

  /** Validates the input shapes; returns `[batch, seqQ, seqK]`. */
  private check(input: MhaInput): [number, number, number] {
    const q = input.query.dims(),
      k = input.key.dims(),
      v = input.value.dims();
    const d = this.dModel;
    const ok3 = (s: number[]) => s.length === 3 && s[2] === d;
    if (!ok3(q) || !ok3(k) || !ok3(v) || k[0] !== q[0] || v[0] !== q[0] || k[1] !== v[1]) {
      throw new BurnError(
        'MultiHeadAttention',
        `query ${fmt(q)}, key ${fmt(k)}, value ${fmt(v)}; expected query [batch, seqQ, ${d}] and key, value [batch, seqK, ${d}]`,
      );
    }
    const [batch, seqQ] = q as [number, number, number];
    const seqK = k[1]!;
    if (input.padMask && !sameShape(input.padMask.dims(), [batch, seqK])) {
      throw new BurnError(
        'MultiHeadAttention',
        `padding mask of shape ${fmt(input.padMask.dims())}; expected [batch, seqK] = [${batch}, ${seqK}]`,
      );
    }
    if (input.attnMask && !sameShape(input.attnMask.dims(), [batch, seqQ, seqK])) {
      throw new BurnError(
        'MultiHeadAttention',
        `attention mask of shape ${fmt(input.attnMask.dims())}; expected [batch, seqQ, seqK] = [${batch}, ${seqQ}, ${seqK}]`,
      );
    }
    return [batch, seqQ, seqK];
  }

  private attnScores(query: Tensor<4, Float>, key: Tensor<4, Float>): Tensor<4, Float> {
    return this.dropout.forward(query.matmul(key.transpose()).div(Math.sqrt(this.dK)));
  }

  private attnWeights(scores: Tensor<4, Float>, input: MhaInput): Tensor<4, Float> {
    if (input.padMask) {
      const [batch, seq] = input.padMask.dims() as [number, number];
      scores = scores.maskFill(input.padMask.reshape([batch, 1, 1, seq]), this.minFloat);
    }
    if (input.attnMask) {
      const [batch, s1, s2] = input.attnMask.dims() as [number, number, number];
      scores = scores.maskFill(input.attnMask.reshape([batch, 1, s1, s2]), this.minFloat);
    }
    return this.quietSoftmax ? quietSoftmax(scores, 3) : scores.softmax(3);
  }

  private attentionLinear(x: Tensor<3, Float>, linear: Linear): Tensor<4, Float> {
    const [batch, seq] = x.dims() as [number, number, number];
    return linear.forward(x).reshape([batch, seq, this.nHeads, this.dK]).swapDims(1, 2);
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      dModel: this.dModel,
      nHeads: this.nHeads,
      dK: this.dK,
      dropout: this.dropout.prob,
      minFloat: this.minFloat,
      quietSoftmax: this.quietSoftmax,
    };
  }
}
