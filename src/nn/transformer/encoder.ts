import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import type { Bool, Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { MhaCache, MhaInput, type MultiHeadAttention } from '../attention/mha.js';
import { TensorCache } from '../cache.js';
import { Dropout, DropoutConfig } from '../dropout.js';
import type { LayerNorm } from '../norm/layer-norm.js';
import {
  attendCached,
  attentionFor,
  cachedFeedForward,
  cachedNorm,
  checkCacheLayers,
  checkHeads,
  checkSequence,
  feedForwardFor,
  layerNormFor,
  residual,
  TransformerStack,
  transformerFields,
  type TransformerLayerConfig,
} from './common.js';
import type { PositionWiseFeedForward } from './pwff.js';

/** Configuration of a {@link TransformerEncoder} (Burn's `TransformerEncoderConfig`). */
export class TransformerEncoderConfig extends Config.define(transformerFields) {
  /** Creates the encoder on `device`. */
  init(device: Device): TransformerEncoder {
    checkHeads('TransformerEncoderConfig', this);
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

  constructor(config: TransformerLayerConfig, device: Device) {
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
  forwardAutoregressiveInference(
    input: Tensor<3, Float>,
    maskPad: Tensor<2, Bool> | undefined,
    maskAttn: Tensor<3, Bool> | undefined,
    cache: TransformerEncoderLayerAutoregressiveCache,
  ): Tensor<3, Float> {
    checkSequence('TransformerEncoderLayer', 'input', input, this.mha.dModel);
    return this.run(input, maskPad, maskAttn, cache);
  }

  private run(
    x: Tensor<3, Float>,
    maskPad: Tensor<2, Bool> | undefined,
    maskAttn: Tensor<3, Bool> | undefined,
    cache: TransformerEncoderLayerAutoregressiveCache | undefined,
  ): Tensor<3, Float> {
    const norm1 = cachedNorm(this.norm1, cache?.norm1);
    const norm2 = cachedNorm(this.norm2, cache?.norm2);
    const attend = (t: Tensor<3, Float>) =>
      attendCached(this.mha, new MhaInput(t, t, t, { maskPad, maskAttn }), cache?.mha);
    x = residual(x, this.normFirst, this.normFirst ? norm2 : norm1, attend, this.dropout);
    return residual(
      x,
      this.normFirst,
      this.normFirst ? norm1 : norm2,
      cachedFeedForward(this.pwff, cache?.pwff),
      this.dropout,
    );
  }
}

/** A stack of {@link TransformerEncoderLayer}s (Burn's `TransformerEncoder`, "Attention Is All You Need"). */
export class TransformerEncoder extends TransformerStack<TransformerEncoderLayer> {
  constructor(config: TransformerEncoderConfig, device: Device) {
    super(config, () => new TransformerEncoderLayer(config, device));
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
  forwardAutoregressiveInference(
    input: TransformerEncoderInput,
    cache: TransformerEncoderAutoregressiveCache,
  ): Tensor<3, Float> {
    checkSequence('TransformerEncoder', 'input', input.tensor, this.dModel);
    checkCacheLayers('TransformerEncoder', cache.layers.length, this.layers.length);
    let x = input.tensor;
    this.layers.forEach(
      (layer, i) => (x = layer.forwardAutoregressiveInference(x, input.padMask, input.attnMask, cache.layers[i]!)),
    );
    return x;
  }

  /** An empty autoregressive cache for {@link forwardAutoregressiveInference}. */
  newAutoregressiveCache(): TransformerEncoderAutoregressiveCache {
    return new TransformerEncoderAutoregressiveCache(this.layers.length);
  }
}
