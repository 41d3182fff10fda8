import { z } from 'zod';
import type { ConfigValues } from '../../config/config.js';
import type { Device } from '../../device/device.js';
import { Module } from '../../module/module.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { ActivationConfig } from '../activation/activation-config.js';
import { type MhaCache, type MhaInput, type MultiHeadAttention, MultiHeadAttentionConfig } from '../attention/mha.js';
import type { TensorCache } from '../cache.js';
import type { Dropout } from '../dropout.js';
import { Initializer, initializerSchema } from '../init.js';
import { type LayerNorm, LayerNormConfig } from '../norm/layer-norm.js';
import { type PositionWiseFeedForward, PositionWiseFeedForwardConfig } from './pwff.js';

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

/** The config values a transformer layer or stack is built from. */
export type TransformerLayerConfig = Readonly<ConfigValues<typeof transformerFields>>;

/** @internal Throws unless `dModel` is divisible by `nHeads` (the config's `init`). */
export function checkHeads(op: string, config: TransformerLayerConfig): void {
  if (config.dModel % config.nHeads !== 0) {
    throw new BurnError(op, `dModel ${config.dModel} is not divisible by nHeads ${config.nHeads}`);
  }
}

/** @internal The sub-layers shared by encoder and decoder layers. */
export function attentionFor(config: TransformerLayerConfig, device: Device): MultiHeadAttention {
  return new MultiHeadAttentionConfig({
    dModel: config.dModel,
    nHeads: config.nHeads,
    initializer: config.initializer,
    dropout: config.dropout,
    quietSoftmax: config.quietSoftmax,
  }).init(device);
}
/** @internal */
export function feedForwardFor(config: TransformerLayerConfig, device: Device): PositionWiseFeedForward {
  return new PositionWiseFeedForwardConfig({
    dModel: config.dModel,
    dFf: config.dFf,
    initializer: config.initializer,
    dropout: config.dropout,
    activation: config.activation,
  }).init(device);
}
/** @internal */
export function layerNormFor(config: TransformerLayerConfig, device: Device): LayerNorm {
  return new LayerNormConfig({ dModel: config.dModel, epsilon: config.layerNormEps }).init(device);
}

/** @internal Checks a `[batch, seq, dModel]` input. */
export function checkSequence(layer: string, what: string, x: Tensor<3, Float>, dModel: number): void {
  const dims = x.dims();
  if (dims.length !== 3 || dims[2] !== dModel)
    throw new BurnError(layer, `${what} of shape ${fmt(dims)}; expected [batch, seq, ${dModel}] (dModel ${dModel})`);
}

/** @internal Throws unless an autoregressive cache has one entry per layer. */
export function checkCacheLayers(op: string, cacheLayers: number, layers: number): void {
  if (cacheLayers !== layers) {
    throw new BurnError(op, `cache for ${cacheLayers} layers; expected ${layers} (use newAutoregressiveCache())`);
  }
}

/** A sub-layer as a function of its `[batch, seq, dModel]` input. */
type SubLayer = (x: Tensor<3, Float>) => Tensor<3, Float>;

/** @internal A layer norm, through its autoregressive cache when there is one. */
export function cachedNorm(layer: LayerNorm, cache: TensorCache<3> | undefined): SubLayer {
  return (x) => (cache ? cache.forwardAutoregressive(x, 1, (u) => layer.forward(u)) : layer.forward(x));
}

/** @internal The feed-forward network, through its autoregressive cache when there is one. */
export function cachedFeedForward(pwff: PositionWiseFeedForward, cache: TensorCache<3> | undefined): SubLayer {
  return (x) => (cache ? cache.forwardAutoregressive(x, 1, (u) => pwff.forward(u)) : pwff.forward(x));
}

/** @internal The attention's context, through its autoregressive cache when there is one. */
export function attendCached(mha: MultiHeadAttention, input: MhaInput, cache: MhaCache | undefined): Tensor<3, Float> {
  return (cache ? mha.forwardCache(input, cache) : mha.forward(input)).context;
}

/**
 * @internal One residual sub-layer: pre-norm (`normFirst`) `x + dropout(sub(norm(x)))`, post-norm
 * `norm(x + dropout(sub(x)))`.
 */
export function residual(
  x: Tensor<3, Float>,
  normFirst: boolean,
  norm: SubLayer,
  sub: SubLayer,
  dropout: Dropout,
): Tensor<3, Float> {
  if (normFirst) return x.add(dropout.forward(sub(norm(x))));
  return norm(x.add(dropout.forward(sub(x))));
}

/** The base of `TransformerEncoder` and `TransformerDecoder`: the layers and the config values they show. */
export abstract class TransformerStack<L extends Module> extends Module {
  /** The layers. */
  layers: L[];
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

  constructor(config: TransformerLayerConfig, layer: () => L) {
    super();
    this.layers = Array.from({ length: config.nLayers }, layer);
    this.dModel = config.dModel;
    this.dFf = config.dFf;
    this.nHeads = config.nHeads;
    this.nLayers = config.nLayers;
    this.dropout = config.dropout;
    this.normFirst = config.normFirst;
    this.quietSoftmax = config.quietSoftmax;
  }

  override displayAttributes(): Record<string, unknown> {
    return {
      dModel: this.dModel,
      dFf: this.dFf,
      nHeads: this.nHeads,
      nLayers: this.nLayers,
      dropout: this.dropout,
      normFirst: this.normFirst,
      quietSoftmax: this.quietSoftmax,
    };
  }
}
