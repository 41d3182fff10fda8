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
import { Initializer } from '../init.js';
import { Linear, LinearConfig } from '../linear.js';

const positive = z.number().int().positive();

/** Configuration of a {@link CrossAttention} layer (Burn's `CrossAttentionConfig`). */
export class CrossAttentionConfig extends Config.define({
  /** Size of the query features (e.g. the decoder state). */
  dModel: positive,
  /** Size of the context features (e.g. encoder embeddings). */
  dContext: positive,
  /** Number of query heads. */
  nHeads: positive,
  /** Number of key/value heads: 1 for multi-query attention, `nHeads` for plain multi-head, a divisor of `nHeads` for grouped-query. */
  nHeadsKv: positive,
  /** Size of one head. */
  dHead: positive,
  /** Dropout rate (on the attention weights). */
  dropout: z.number().min(0).max(1).default(0.1),
  /** The value masked scores are set to. */
  minFloat: z.number().default(-1.0e4),
  /** Use quiet softmax (softmax1), which lets a head attend to nothing. */
  quietSoftmax: z.boolean().default(false),
}) {
  /** Creates the layer on `device`. */
  init(device: Device): CrossAttention {
    return new CrossAttention(this, device);
  }
}

/**
 * The cache of {@link CrossAttention.forwardCache} (Burn's `CrossAttentionCache`): the projected
 * keys and values of a context that stays the same across calls. Mutable; one per context.
 */
export class CrossAttentionCache {
  /** Cached keys `[batch, nHeadsKv, seqContext, dHead]`. */
  readonly k = TensorCache.empty<4>();
  /** Cached values `[batch, nHeadsKv, seqContext, dHead]`. */
  readonly v = TensorCache.empty<4>();
}

/**
 * Cross-attention with separate query and context sizes, and multi-query / grouped-query
 * attention (Burn's `CrossAttention`): query `dModel → nHeads·dHead`, key and value
 * `dContext → nHeadsKv·dHead` (each key/value head serves `nHeads / nHeadsKv` consecutive query
 * heads), output `nHeads·dHead → dModel`. Dropout is applied to the weights after the softmax.
 */
export class CrossAttention extends Module {
  /** Query projection `[dModel, nHeads·dHead]`. */
  query: Linear;
  /** Key projection `[dContext, nHeadsKv·dHead]`. */
  key: Linear;
  /** Value projection `[dContext, nHeadsKv·dHead]`. */
  value: Linear;
  /** Output projection `[nHeads·dHead, dModel]`. */
  output: Linear;
  /** Dropout on the attention weights. */
  dropout: Dropout;
  /** Number of query heads. */
  readonly nHeads: number;
  /** Number of key/value heads. */
  readonly nHeadsKv: number;
  /** Size of one head. */
  readonly dHead: number;
  /** `1 / √dHead`. */
  readonly scale: number;
  /** The value masked scores are set to. */
  readonly minFloat: number;
  /** Whether quiet softmax is used. */
  readonly quietSoftmax: boolean;

  constructor(config: CrossAttentionConfig, device: Device) {
    super();
    if (config.nHeads % config.nHeadsKv !== 0) {
      throw new BurnError(
        'CrossAttentionConfig',
        `nHeads ${config.nHeads} is not divisible by nHeadsKv ${config.nHeadsKv}; query heads must be divisible by key/value heads`,
      );
    }
    const initializer = Initializer.KaimingUniform({ gain: 1 / Math.sqrt(config.dHead), fanOutOnly: false });
    const linear = (dInput: number, dOutput: number) => new LinearConfig({ dInput, dOutput, initializer }).init(device);
    this.query = linear(config.dModel, config.nHeads * config.dHead);
    this.key = linear(config.dContext, config.nHeadsKv * config.dHead);
    this.value = linear(config.dContext, config.nHeadsKv * config.dHead);
    this.output = linear(config.nHeads * config.dHead, config.dModel);
    this.dropout = new DropoutConfig({ prob: config.dropout }).init();
    this.nHeads = config.nHeads;
    this.nHeadsKv = config.nHeadsKv;
    this.dHead = config.dHead;
    this.scale = 1 / Math.sqrt(config.dHead);
    this.minFloat = config.minFloat;
    this.quietSoftmax = config.quietSoftmax;
  }

  /**
   * Attends `query` `[batch, seqQ, dModel]` to `context` `[batch, seqContext, dContext]`; `mask`
   * `[batch, seqContext]` is `true` at context positions to ignore. Returns `[batch, seqQ, dModel]`.
   */
  forward(query: Tensor<3, Float>, context: Tensor<3, Float>, mask?: Tensor<2, Bool>): Tensor<3, Float> {
    this.check(query, context, mask);
    return this.attend(query, this.heads(this.key, context), this.heads(this.value, context), mask);
  }

  /**
   * {@link forward} with the context's keys and values cached: the first call projects `context`,
   * later calls with the same cache reuse them (the `context` argument is then ignored).
   */
  forwardCache(
    query: Tensor<3, Float>,
    context: Tensor<3, Float>,
    mask: Tensor<2, Bool> | undefined,
    cache: CrossAttentionCache,
  ): Tensor<3, Float> {
    const k = cache.k.forwardFull(context, (c) => {
      this.check(query, c, undefined);
      return this.heads(this.key, c);
    });
    const v = cache.v.forwardFull(context, (c) => this.heads(this.value, c));
    const [batch, , seqK] = k.dims() as [number, number, number, number];
    const dQ = this.query.weight.dims()[0]!;
    const q = query.dims();
    if (q.length !== 3 || q[0] !== batch || q[2] !== dQ) {
      throw new BurnError(
        'CrossAttention',
        `query of shape ${fmt(q)}; expected [${batch}, seqQ, ${dQ}] (the cached context has batch ${batch})`,
      );
    }
    if (mask && !sameShape(mask.dims(), [batch, seqK])) {
      throw new BurnError(
        'CrossAttention',
        `mask of shape ${fmt(mask.dims())}; expected [batch, seqContext] = [${batch}, ${seqK}]`,
      );
    }
    return this.attend(query, k, v, mask);
  }

  private check(query: Tensor<3, Float>, context: Tensor<3, Float>, mask: Tensor<2, Bool> | undefined): void {
    const q = query.dims(),
      c = context.dims();
    const dModel = this.query.weight.dims()[0]!,
      dContext = this.key.weight.dims()[0]!;
    if (q.length !== 3 || c.length !== 3 || q[2] !== dModel || c[2] !== dContext || q[0] !== c[0]) {
      throw new BurnError(
        'CrossAttention',
        `query ${fmt(q)} and context ${fmt(c)}; expected query [batch, seqQ, ${dModel}] and context [batch, seqContext, ${dContext}]`,
      );
    }
    if (mask && !sameShape(mask.dims(), [c[0]!, c[1]!])) {
      throw new BurnError(
        'CrossAttention',
        `mask of shape ${fmt(mask.dims())}; expected [batch, seqContext] = [${c[0]}, ${c[1]}]`,
      );
    }
  }

  /** `[batch, seq, d]` → `[batch, nHeadsKv, seq, dHead]`. */
  private heads(linear: Linear, context: Tensor<3, Float>): Tensor<4, Float> {
    const [batch, seq] = context.dims() as [number, number, number];
    return linear.forward(context).reshape([batch, seq, this.nHeadsKv, this.dHead]).swapDims(1, 2);
  }

  private attend(
    query: Tensor<3, Float>,
    k: Tensor<4, Float>,
    v: Tensor<4, Float>,
    mask: Tensor<2, Bool> | undefined,
  ): Tensor<3, Float> {
    const [batch, seqQ] = query.dims() as [number, number, number];
    const seqK = k.dims()[2]!;
    const q = this.query.forward(query).reshape([batch, seqQ, this.nHeads, this.dHead]).swapDims(1, 2);
    if (this.nHeads !== this.nHeadsKv) {
      const rep = this.nHeads / this.nHeadsKv;
      k = repeatKv(k, rep);
      v = repeatKv(v, rep);
    }
    let scores = q.matmul(k.transpose()).mul(this.scale);
    if (mask) scores = scores.maskFill(mask.reshape([batch, 1, 1, seqK]), this.minFloat);
    const weights = this.dropout.forward(this.quietSoftmax ? quietSoftmax(scores, 3) : scores.softmax(3));
    const out = weights
      .matmul(v)
      .swapDims(1, 2)
      .reshape([batch, seqQ, this.nHeads * this.dHead]);
    return this.output.forward(out);
  }
}

/** `[b, h, l, d]` → `[b, h·rep, l, d]`, each head repeated `rep` times in place (grouped-query attention). */
function repeatKv(x: Tensor<4, Float>, rep: number): Tensor<4, Float> {
  const [b, h, l, d] = x.dims() as [number, number, number, number];
  return x
    .reshape([b, h, 1, l, d])
    .expand([b, h, rep, l, d])
    .reshape([b, h * rep, l, d]);
}
