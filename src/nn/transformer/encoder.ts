import { z } from 'zod';
import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../tensor/errors.js';
import type { Bool, Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { ActivationConfig } from '../activation/activation-config.js';
import { MhaCache, MhaInput, MultiHeadAttention, MultiHeadAttentionConfig } from '../attention/mha.js';
import { TensorCache } from '../cache.js';
import { Dropout, DropoutConfig } from '../dropout.js';
import { Initializer, initializerSchema } from '../init.js';
import { LayerNorm, LayerNormConfig } from '../norm/layer-norm.js';
import { PositionWiseFeedForward, PositionWiseFeedForwardConfig } from './pwff.js';

/** The fields shared by the encoder and decoder configs (Burn's defaults). */
export const transformerFields = {
  /** The model size. */
  dModel: z.number().int().positive(),
  /** The hidden size of the position-wise feed-forward network. */
  dFf: z.number().int().positive(),
  /** The number of attention heads. */
  nHeads: z.number().int().positive(),
  /** The number of layers. */
  nLayers: z.number().int().nonnegative(),
  /** The dropout rate (attention scores, feed-forward, residual paths). */
  dropout: z.number().min(0).max(1).default(0.1),
  /** Apply layer norm before each sub-layer (pre-norm) instead of after (post-norm). */
  normFirst: z.boolean().default(false),
  /** Use quiet softmax in the attention. */
  quietSoftmax: z.boolean().default(false),
  /** Initializer of the attention and feed-forward linear layers. */
  initializer: initializerSchema.default(Initializer.KaimingUniform({ gain: 1 / Math.sqrt(3), fanOutOnly: false })),
  /** Activation of the feed-forward network. */
  activation: ActivationConfig.schema.default(ActivationConfig.Gelu),
  /** Epsilon of the layer norms. */
  layerNormEps: z.number().positive().default(1e-5),
};

/** The config values a transformer layer is built from. */
type LayerConfig = Pick<TransformerEncoderConfig, keyof typeof transformerFields>;

/** @internal The sub-layers shared by encoder and decoder layers. */
export function attentionFor(config: LayerConfig, device: Device): MultiHeadAttention {
  return new MultiHeadAttentionConfig({ dModel: config.dModel, nHeads: config.nHeads, initializer: config.initializer, dropout: config.dropout, quietSoftmax: config.quietSoftmax }).init(device);
}
/** @internal */
export function feedForwardFor(config: LayerConfig, device: Device): PositionWiseFeedForward {
  return new PositionWiseFeedForwardConfig({ dModel: config.dModel, dFf: config.dFf, initializer: config.initializer, dropout: config.dropout, activation: config.activation }).init(device);
}
/** @internal */
export function layerNormFor(config: LayerConfig, device: Device): LayerNorm {
  return new LayerNormConfig({ dModel: config.dModel, epsilon: config.layerNormEps }).init(device);
}

/** @internal Checks a `[batch, seq, dModel]` input. */
export function checkSequence(layer: string, what: string, x: Tensor<3, Float>, dModel: number): void {
  const dims = x.dims();
  if (dims.length !== 3 || dims[2] !== dModel) throw new BurnError(layer, `${what} of shape ${fmt(dims)}; expected [batch, seq, ${dModel}] (dModel ${dModel})`);
}

/** Configuration of a {@link TransformerEncoder} (Burn's `TransformerEncoderConfig`). */
export class TransformerEncoderConfig extends Config.define(transformerFields) {
  /** Creates the encoder on `device`. */
  init(device: Device): TransformerEncoder {
    if (this.dModel % this.nHeads !== 0) {
      throw new BurnError('TransformerEncoderConfig', `dModel ${this.dModel} is not divisible by nHeads ${this.nHeads}`);
    }
    return new TransformerEncoder(this, device);
  }
}

/** The input of {@link TransformerEncoder.forward} (Burn's `TransformerEncoderInput`). */
export class TransformerEncoderInput {
  /** `[batch, seq, dModel]`. */
  readonly tensor: Tensor<3, Float>;
  /** Padding mask `[batch, seq]` (`true` = padding). */
  readonly padMask: Tensor<2, Bool> | undefined;
  /** Attention mask `[batch, seq, seq]` (`true` = not attended to). */
  readonly attnMask: Tensor<3, Bool> | undefined;

  /** An input without masks. */
  constructor(tensor: Tensor<3, Float>, masks: { maskPad?: Tensor<2, Bool>; maskAttn?: Tensor<3, Bool> } = {}) {
    this.tensor = tensor;
    this.padMask = masks.maskPad;
    this.attnMask = masks.maskAttn;
  }

  /** The same input with a padding mask `[batch, seq]`. */
  maskPad(mask: Tensor<2, Bool>): TransformerEncoderInput {
    return new TransformerEncoderInput(this.tensor, { maskPad: mask, maskAttn: this.attnMask });
  }

  /** The same input with an attention mask `[batch, seq, seq]` (e.g. {@link generateAutoregressiveMask}). */
  maskAttn(mask: Tensor<3, Bool>): TransformerEncoderInput {
    return new TransformerEncoderInput(this.tensor, { maskPad: this.padMask, maskAttn: mask });
  }
}

/** The autoregressive cache of one {@link TransformerEncoderLayer} (Burn's `TransformerEncoderLayerAutoregressiveCache`). */
export class TransformerEncoderLayerAutoregressiveCache {
  /** Self-attention cache. */
  readonly mha = MhaCache.autoregressive();
  /** Feed-forward cache. */
  readonly pwff = TensorCache.empty<3>();
  /** First layer norm cache. */
  readonly norm1 = TensorCache.empty<3>();
  /** Second layer norm cache. */
  readonly norm2 = TensorCache.empty<3>();
}

/** The autoregressive cache of a {@link TransformerEncoder} (Burn's `TransformerEncoderAutoregressiveCache`). */
export class TransformerEncoderAutoregressiveCache {
  /** One cache per layer. */
  readonly layers: TransformerEncoderLayerAutoregressiveCache[];

  constructor(numLayers: number) {
    this.layers = Array.from({ length: numLayers }, () => new TransformerEncoderLayerAutoregressiveCache());
  }
}

/**
 * One encoder layer (Burn's `TransformerEncoderLayer`): self-attention and feed-forward, each with
 * a residual connection. Post-norm: `x = norm1(x + mha(x))`, `x = norm2(x + pwff(x))`. Pre-norm
 * (`normFirst`): `x = x + mha(norm2(x))`, `x = x + pwff(norm1(x))` — Burn's naming of the norms.
 */
export class TransformerEncoderLayer extends Module {
  /** Self-attention. */
  mha: MultiHeadAttention;
  /** Feed-forward network. */
  pwff: PositionWiseFeedForward;
  /** Layer norm around the feed-forward (pre-norm) or after the attention (post-norm). */
  norm1: LayerNorm;
  /** Layer norm around the attention (pre-norm) or after the feed-forward (post-norm). */
  norm2: LayerNorm;
  /** Dropout on the residual paths. */
  dropout: Dropout;
  /** Pre-norm (true) or post-norm. */
  readonly normFirst: boolean;

  constructor(config: LayerConfig, device: Device) {
    super();
    this.mha = attentionFor(config, device);
    this.pwff = feedForwardFor(config, device);
    this.norm1 = layerNormFor(config, device);
    this.norm2 = layerNormFor(config, device);
    this.dropout = new DropoutConfig({ prob: config.dropout }).init();
    this.normFirst = config.normFirst;
  }

  /** `[batch, seq, dModel]` → `[batch, seq, dModel]`. */
  forward(input: Tensor<3, Float>, maskPad?: Tensor<2, Bool>, maskAttn?: Tensor<3, Bool>): Tensor<3, Float> {
    checkSequence('TransformerEncoderLayer', 'input', input, this.mha.dModel);
    return this.run(input, maskPad, maskAttn, undefined);
  }

  /** {@link forward} with an autoregressive cache: call it with the whole sequence so far at each step. */
  forwardAutoregressiveInference(input: Tensor<3, Float>, maskPad: Tensor<2, Bool> | undefined, maskAttn: Tensor<3, Bool> | undefined, cache: TransformerEncoderLayerAutoregressiveCache): Tensor<3, Float> {
    checkSequence('TransformerEncoderLayer', 'input', input, this.mha.dModel);
    return this.run(input, maskPad, maskAttn, cache);
  }

  private run(x: Tensor<3, Float>, maskPad: Tensor<2, Bool> | undefined, maskAttn: Tensor<3, Bool> | undefined, cache: TransformerEncoderLayerAutoregressiveCache | undefined): Tensor<3, Float> {
    const norm = (layer: LayerNorm, c: TensorCache<3> | undefined, t: Tensor<3, Float>) =>
      c ? c.forwardAutoregressive(t, 1, (u) => layer.forward(u)) : layer.forward(t);
    // Attention residual path.
    let residual = this.normFirst ? norm(this.norm2, cache?.norm2, x) : x;
    const input = new MhaInput(residual, residual, residual, { maskPad, maskAttn });
    residual = (cache ? this.mha.forwardCache(input, cache.mha) : this.mha.forward(input)).context;
    x = x.add(this.dropout.forward(residual));
    // Feed-forward residual path.
    if (this.normFirst) {
      residual = norm(this.norm1, cache?.norm1, x);
    } else {
      x = norm(this.norm1, cache?.norm1, x);
      residual = x;
    }
    residual = cache ? cache.pwff.forwardAutoregressive(residual, 1, (u) => this.pwff.forward(u)) : this.pwff.forward(residual);
    x = x.add(this.dropout.forward(residual));
    return this.normFirst ? x : norm(this.norm2, cache?.norm2, x);
  }
}

/** A stack of {@link TransformerEncoderLayer}s (Burn's `TransformerEncoder`, "Attention Is All You Need"). */
export class TransformerEncoder extends Module {
  /** The layers. */
  layers: TransformerEncoderLayer[];
  /** The model size. */
  readonly dModel: number;
  /** The feed-forward size. */
  readonly dFf: number;
  /** The number of heads. */
  readonly nHeads: number;
  /** The number of layers. */
  readonly nLayers: number;
  /** The dropout rate. */
  readonly dropout: number;
  /** Pre-norm (true) or post-norm. */
  readonly normFirst: boolean;
  /** Whether quiet softmax is used. */
  readonly quietSoftmax: boolean;

  constructor(config: TransformerEncoderConfig, device: Device) {
    super();
    this.layers = Array.from({ length: config.nLayers }, () => new TransformerEncoderLayer(config, device));
    this.dModel = config.dModel;
    this.dFf = config.dFf;
    this.nHeads = config.nHeads;
    this.nLayers = config.nLayers;
    this.dropout = config.dropout;
    this.normFirst = config.normFirst;
    this.quietSoftmax = config.quietSoftmax;
  }

  /** `[batch, seq, dModel]` (with optional masks) → `[batch, seq, dModel]`. */
  forward(input: TransformerEncoderInput): Tensor<3, Float> {
    checkSequence('TransformerEncoder', 'input', input.tensor, this.dModel);
    let x = input.tensor;
    for (const layer of this.layers) x = layer.forward(x, input.padMask, input.attnMask);
    return x;
  }

  /**
   * {@link forward} with an autoregressive cache (from {@link newAutoregressiveCache}): call it
   * with the whole sequence so far at each step, with a causal attention mask; only the newest
   * position is computed. Equals the full forward.
   */
  forwardAutoregressiveInference(input: TransformerEncoderInput, cache: TransformerEncoderAutoregressiveCache): Tensor<3, Float> {
    checkSequence('TransformerEncoder', 'input', input.tensor, this.dModel);
    if (cache.layers.length !== this.layers.length) {
      throw new BurnError('TransformerEncoder', `cache for ${cache.layers.length} layers; expected ${this.layers.length} (use newAutoregressiveCache())`);
    }
    let x = input.tensor;
    this.layers.forEach((layer, i) => (x = layer.forwardAutoregressiveInference(x, input.padMask, input.attnMask, cache.layers[i]!)));
    return x;
  }

  /** An empty autoregressive cache for {@link forwardAutoregressiveInference}. */
  newAutoregressiveCache(): TransformerEncoderAutoregressiveCache {
    return new TransformerEncoderAutoregressiveCache(this.layers.length);
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      dModel: this.dModel, dFf: this.dFf, nHeads: this.nHeads, nLayers: this.nLayers,
      dropout: this.dropout, normFirst: this.normFirst, quietSoftmax: this.quietSoftmax,
    };
  }
}
