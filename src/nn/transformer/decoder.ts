import { Config } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
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
} from './common.js';
import type { PositionWiseFeedForward } from './pwff.js';

/** Configuration of a {@link TransformerDecoder} (Burn's `TransformerDecoderConfig`; same fields as the encoder's). */
export class TransformerDecoderConfig extends Config.define(transformerFields) {
  /** Creates the decoder on `device`. */
  init(device: Device): TransformerDecoder {
    checkHeads('TransformerDecoderConfig', this);
    return new TransformerDecoder(this, device);
  }
}

/** The masks of a {@link TransformerDecoderInput}. */
export interface TransformerDecoderMasks {
  /** Target padding mask `[batch, seqTarget]`. */
  readonly targetPadMask?: Tensor<2, Bool> | undefined;
  /** Target attention mask `[batch, seqTarget, seqTarget]` (usually causal). */
  readonly targetAttnMask?: Tensor<3, Bool> | undefined;
  /** Memory padding mask `[batch, seqMemory]`. */
  readonly memoryPadMask?: Tensor<2, Bool> | undefined;
  /** Memory attention mask `[batch, seqTarget, seqMemory]`. */
  readonly memoryAttnMask?: Tensor<3, Bool> | undefined;
}

/**
 * The input of {@link TransformerDecoder.forward} (Burn's `TransformerDecoderInput`): the target
 * `[batch, seqTarget, dModel]`, the encoder memory `[batch, seqMemory, dModel]`, and masks
 * (`true` = not attended to).
 */
export class TransformerDecoderInput implements TransformerDecoderMasks {
  /** `[batch, seqTarget, dModel]`. */
  readonly target: Tensor<3, Float>;
  /** `[batch, seqMemory, dModel]`. */
  readonly memory: Tensor<3, Float>;
  /** Target padding mask `[batch, seqTarget]`. */
  readonly targetPadMask: Tensor<2, Bool> | undefined;
  /** Target attention mask `[batch, seqTarget, seqTarget]`. */
  readonly targetAttnMask: Tensor<3, Bool> | undefined;
  /** Memory padding mask `[batch, seqMemory]`. */
  readonly memoryPadMask: Tensor<2, Bool> | undefined;
  /** Memory attention mask `[batch, seqTarget, seqMemory]`. */
  readonly memoryAttnMask: Tensor<3, Bool> | undefined;

  /** An input without masks (or with `masks`). */
  constructor(target: Tensor<3, Float>, memory: Tensor<3, Float>, masks: TransformerDecoderMasks = {}) {
    this.target = target;
    this.memory = memory;
    this.targetPadMask = masks.targetPadMask;
    this.targetAttnMask = masks.targetAttnMask;
    this.memoryPadMask = masks.memoryPadMask;
    this.memoryAttnMask = masks.memoryAttnMask;
  }

  private with(changes: Partial<TransformerDecoderMasks> & { target?: Tensor<3, Float> }): TransformerDecoderInput {
    return new TransformerDecoderInput(changes.target ?? this.target, this.memory, { ...this.masks(), ...changes });
  }

  private masks(): TransformerDecoderMasks {
    return {
      targetPadMask: this.targetPadMask,
      targetAttnMask: this.targetAttnMask,
      memoryPadMask: this.memoryPadMask,
      memoryAttnMask: this.memoryAttnMask,
    };
  }

  /** The same input with a memory padding mask `[batch, seqMemory]`. */
  memoryMaskPad(mask: Tensor<2, Bool>): TransformerDecoderInput {
    return this.with({ memoryPadMask: mask });
  }
  /** The same input with a memory attention mask `[batch, seqTarget, seqMemory]`. */
  memoryMaskAttn(mask: Tensor<3, Bool>): TransformerDecoderInput {
    return this.with({ memoryAttnMask: mask });
  }
  /** The same input with a target padding mask `[batch, seqTarget]`. */
  targetMaskPad(mask: Tensor<2, Bool>): TransformerDecoderInput {
    return this.with({ targetPadMask: mask });
  }
  /** The same input with a target attention mask `[batch, seqTarget, seqTarget]`. */
  targetMaskAttn(mask: Tensor<3, Bool>): TransformerDecoderInput {
    return this.with({ targetAttnMask: mask });
  }
  /** The same input with another target (what each decoder layer passes on). */
  withTarget(target: Tensor<3, Float>): TransformerDecoderInput {
    return this.with({ target });
  }
}

/** The autoregressive cache of one {@link TransformerDecoderLayer} (Burn's `TransformerDecoderLayerAutoregressiveCache`). */
export class TransformerDecoderLayerAutoregressiveCache {
  /** Cross-attention cache (memory keys and values computed once). */
  readonly crossAttn = MhaCache.autoregressiveCrossAttention();
  /** Self-attention cache. */
  readonly selfAttn = MhaCache.autoregressive();
  /** Feed-forward cache. */
  readonly pwff = TensorCache.empty<3>();
  /** First layer norm cache. */
  readonly norm1 = TensorCache.empty<3>();
  /** Second layer norm cache. */
  readonly norm2 = TensorCache.empty<3>();
  /** Third layer norm cache. */
  readonly norm3 = TensorCache.empty<3>();
}

/** The autoregressive cache of a {@link TransformerDecoder} (Burn's `TransformerDecoderAutoregressiveCache`). */
export class TransformerDecoderAutoregressiveCache {
  /** One cache per layer. */
  readonly layers: TransformerDecoderLayerAutoregressiveCache[];

  constructor(numLayers: number) {
    this.layers = Array.from({ length: numLayers }, () => new TransformerDecoderLayerAutoregressiveCache());
  }
}

/**
 * One decoder layer (Burn's `TransformerDecoderLayer`): self-attention, cross-attention to the
 * memory, feed-forward, each with a residual connection. Post-norm: `norm1` after self-attention,
 * `norm2` after cross-attention, `norm3` after the feed-forward. Pre-norm (`normFirst`): `norm3`
 * before self-attention, `norm1` before cross-attention, `norm2` before the feed-forward (Burn's naming).
 */
export class TransformerDecoderLayer extends Module {
  /** Cross-attention to the memory. */
  crossAttn: MultiHeadAttention;
  /** Self-attention. */
  selfAttn: MultiHeadAttention;
  /** Feed-forward network. */
  pwff: PositionWiseFeedForward;
  /** After self-attention (post-norm) or before cross-attention (pre-norm). */
  norm1: LayerNorm;
  /** After cross-attention (post-norm) or before the feed-forward (pre-norm). */
  norm2: LayerNorm;
  /** After the feed-forward (post-norm) or before self-attention (pre-norm). */
  norm3: LayerNorm;
  /** Dropout on the residual paths. */
  dropout: Dropout;
  /** Pre-norm (true) or post-norm. */
  readonly normFirst: boolean;

  constructor(config: TransformerDecoderConfig, device: Device) {
    super();
    this.selfAttn = attentionFor(config, device);
    this.crossAttn = attentionFor(config, device);
    this.norm1 = layerNormFor(config, device);
    this.norm2 = layerNormFor(config, device);
    this.norm3 = layerNormFor(config, device);
    this.pwff = feedForwardFor(config, device);
    this.dropout = new DropoutConfig({ prob: config.dropout }).init();
    this.normFirst = config.normFirst;
  }

  /** Decodes one layer; returns the input with the new target. */
  forward(input: TransformerDecoderInput): TransformerDecoderInput {
    checkInput('TransformerDecoderLayer', input, this.selfAttn.dModel);
    return input.withTarget(this.run(input, undefined));
  }

  /** {@link forward} with an autoregressive cache: call it with the whole target so far at each step. */
  forwardAutoregressiveInference(
    input: TransformerDecoderInput,
    cache: TransformerDecoderLayerAutoregressiveCache,
  ): TransformerDecoderInput {
    checkInput('TransformerDecoderLayer', input, this.selfAttn.dModel);
    return input.withTarget(this.run(input, cache));
  }

  private run(
    input: TransformerDecoderInput,
    cache: TransformerDecoderLayerAutoregressiveCache | undefined,
  ): Tensor<3, Float> {
    const norm1 = cachedNorm(this.norm1, cache?.norm1);
    const norm2 = cachedNorm(this.norm2, cache?.norm2);
    const norm3 = cachedNorm(this.norm3, cache?.norm3);
    const selfAttend = (t: Tensor<3, Float>) =>
      attendCached(
        this.selfAttn,
        new MhaInput(t, t, t, { maskPad: input.targetPadMask, maskAttn: input.targetAttnMask }),
        cache?.selfAttn,
      );
    const crossAttend = (t: Tensor<3, Float>) =>
      attendCached(
        this.crossAttn,
        new MhaInput(t, input.memory, input.memory, { maskPad: input.memoryPadMask, maskAttn: input.memoryAttnMask }),
        cache?.crossAttn,
      );
    let x = residual(input.target, this.normFirst, this.normFirst ? norm3 : norm1, selfAttend, this.dropout);
    x = residual(x, this.normFirst, this.normFirst ? norm1 : norm2, crossAttend, this.dropout);
    return residual(
      x,
      this.normFirst,
      this.normFirst ? norm2 : norm3,
      cachedFeedForward(this.pwff, cache?.pwff),
      this.dropout,
    );
  }
}

/** A stack of {@link TransformerDecoderLayer}s (Burn's `TransformerDecoder`). */
export class TransformerDecoder extends TransformerStack<TransformerDecoderLayer> {
  constructor(config: TransformerDecoderConfig, device: Device) {
    super(config, () => new TransformerDecoderLayer(config, device));
  }

  /** Decodes the target `[batch, seqTarget, dModel]` against the memory → `[batch, seqTarget, dModel]`. */
  forward(input: TransformerDecoderInput): Tensor<3, Float> {
    checkInput('TransformerDecoder', input, this.dModel);
    for (const layer of this.layers) input = layer.forward(input);
    return input.target;
  }

  /**
   * {@link forward} with an autoregressive cache (from {@link newAutoregressiveCache}): call it with
   * the whole target so far at each step, with a causal target mask. Equals the full forward.
   */
  forwardAutoregressiveInference(
    input: TransformerDecoderInput,
    cache: TransformerDecoderAutoregressiveCache,
  ): Tensor<3, Float> {
    checkInput('TransformerDecoder', input, this.dModel);
    checkCacheLayers('TransformerDecoder', cache.layers.length, this.layers.length);
    this.layers.forEach((layer, i) => (input = layer.forwardAutoregressiveInference(input, cache.layers[i]!)));
    return input.target;
  }

  /** An empty autoregressive cache for {@link forwardAutoregressiveInference}. */
  newAutoregressiveCache(): TransformerDecoderAutoregressiveCache {
    return new TransformerDecoderAutoregressiveCache(this.layers.length);
  }
}

function checkInput(layer: string, input: TransformerDecoderInput, dModel: number): void {
  checkSequence(layer, 'target', input.target, dModel);
  checkSequence(layer, 'memory', input.memory, dModel);
  if (input.target.dims()[0] !== input.memory.dims()[0]) {
    throw new BurnError(
      layer,
      `target ${fmt(input.target.dims())} and memory ${fmt(input.memory.dims())} have different batch sizes; expected equal`,
    );
  }
}
