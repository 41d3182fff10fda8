/**
 * `burn-ts/nn`: layers (each an `XConfig` with `init(device)` → `X` with `forward`), losses and
 * initializers, as Burn's `burn::nn`.
 */
export { Initializer, initializerSchema, initTensor, type Fans } from './init.js';
export { PaddingConfig1d, PaddingConfig2d, PaddingConfig3d, paddingSchema, type Padding } from './padding.js';
export { Linear, LinearConfig, LinearLayout } from './linear.js';
export { Identity } from './identity.js';
export { Embedding, EmbeddingConfig } from './embedding.js';
export { ConvNd, Conv1d, Conv1dConfig, Conv2d, Conv2dConfig, Conv3d, Conv3dConfig } from './conv.js';
export {
  ConvTransposeNd,
  ConvTranspose1d,
  ConvTranspose1dConfig,
  ConvTranspose2d,
  ConvTranspose2dConfig,
  ConvTranspose3d,
  ConvTranspose3dConfig,
} from './conv-transpose.js';
export { DeformConv2d, DeformConv2dConfig } from './deform-conv.js';
export {
  MaxPoolNd,
  MaxPool1d,
  MaxPool1dConfig,
  MaxPool2d,
  MaxPool2dConfig,
  AvgPoolNd,
  AvgPool1d,
  AvgPool1dConfig,
  AvgPool2d,
  AvgPool2dConfig,
} from './pool.js';
export {
  AdaptiveAvgPoolNd,
  AdaptiveAvgPool1d,
  AdaptiveAvgPool1dConfig,
  AdaptiveAvgPool2d,
  AdaptiveAvgPool2dConfig,
  AdaptiveAvgPool3d,
  AdaptiveAvgPool3dConfig,
} from './adaptive-pool.js';
export { BatchNorm, BatchNormConfig, type BatchNormStep } from './norm/batch-norm.js';
export { LayerNorm, LayerNormConfig } from './norm/layer-norm.js';
export { GroupNorm, GroupNormConfig, InstanceNorm, InstanceNormConfig } from './norm/group-norm.js';
export { RmsNorm, RmsNormConfig } from './norm/rms-norm.js';
export { LocalResponseNorm, LocalResponseNormConfig } from './norm/local-response-norm.js';
export {
  Normalization,
  NormalizationConfig,
  type NormalizationConfigJson,
  type NormalizationKind,
} from './norm/normalization.js';
export {
  Interpolate1d,
  Interpolate1dConfig,
  Interpolate2d,
  Interpolate2dConfig,
  InterpolateMode,
} from './interpolate.js';
export { PixelShuffle, PixelShuffleConfig, PixelUnshuffle, PixelUnshuffleConfig } from './pixel-shuffle.js';
export { Unfold4d, Unfold4dConfig, Fold4d, Fold4dConfig } from './fold.js';
export { CosineSimilarity, CosineSimilarityConfig, PairwiseDistance, PairwiseDistanceConfig } from './distance.js';
export { GaussianNoise, GaussianNoiseConfig } from './noise.js';
export { Dropout, DropoutConfig } from './dropout.js';
export {
  Relu,
  Relu6,
  LeakyRelu,
  LeakyReluConfig,
  PRelu,
  PReluConfig,
  RRelu,
  RReluConfig,
  Hardtanh,
  HardtanhConfig,
  Elu,
  EluConfig,
  Celu,
  CeluConfig,
  Selu,
  Threshold,
  ThresholdConfig,
  ThresholdedRelu,
  ThresholdedReluConfig,
  Gelu,
  type GeluOptions,
  Sigmoid,
  HardSigmoid,
  HardSigmoidConfig,
  LogSigmoid,
  SiLU,
  HardSwish,
  Mish,
  Tanh,
  Tanhshrink,
  Softplus,
  SoftplusConfig,
  Softsign,
  HardShrink,
  HardShrinkConfig,
  SoftShrink,
  SoftShrinkConfig,
  Shrink,
  ShrinkConfig,
  GLU,
  SwiGlu,
  SwiGluConfig,
  ActivationConfig,
  type Activation,
  type ActivationConfigJSON,
  type ActivationKind,
} from './activation.js';
export { Reduction, reductionSchema } from './loss/reduction.js';
export { MseLoss } from './loss/mse.js';
export { CrossEntropyLoss, CrossEntropyLossConfig } from './loss/cross-entropy.js';
export { BinaryCrossEntropyLoss, BinaryCrossEntropyLossConfig } from './loss/binary-cross-entropy.js';
export { HuberLoss, HuberLossConfig } from './loss/huber.js';
export { SmoothL1Loss, SmoothL1LossConfig } from './loss/smooth-l1.js';
export { LpLoss, LpLossConfig } from './loss/lp.js';
export { KLDivLoss, KLDivLossConfig } from './loss/kl-div.js';
export { GaussianNLLLoss, GaussianNLLLossConfig } from './loss/gaussian-nll.js';
export { PoissonNllLoss, PoissonNllLossConfig } from './loss/poisson-nll.js';
export { CosineEmbeddingLoss, CosineEmbeddingLossConfig } from './loss/cosine-embedding.js';
export { HingeEmbeddingLoss, HingeEmbeddingLossConfig } from './loss/hinge-embedding.js';
export { MarginRankingLoss, MarginRankingLossConfig } from './loss/margin-ranking.js';
export { MultiMarginLoss, MultiMarginLossConfig } from './loss/multi-margin.js';
export { SoftMarginLoss } from './loss/soft-margin.js';
export { TripletMarginLoss, TripletMarginLossConfig } from './loss/triplet-margin.js';
export { CTCLoss, CTCLossConfig } from './loss/ctc.js';
export { TensorCache } from './cache.js';
export {
  MultiHeadAttention,
  MultiHeadAttentionConfig,
  MhaInput,
  MhaCache,
  MhaLinearCache,
  type MhaOutput,
} from './attention/mha.js';
export { CrossAttention, CrossAttentionConfig, CrossAttentionCache } from './attention/cross-attention.js';
export {
  generateAutoregressiveMask,
  generatePaddingMask,
  SeqLengthOption,
  type GeneratePaddingMask,
} from './attention/mask.js';
export { PositionWiseFeedForward, PositionWiseFeedForwardConfig } from './transformer/pwff.js';
export {
  TransformerEncoder,
  TransformerEncoderConfig,
  TransformerEncoderInput,
  TransformerEncoderLayer,
  TransformerEncoderAutoregressiveCache,
  TransformerEncoderLayerAutoregressiveCache,
} from './transformer/encoder.js';
export {
  TransformerDecoder,
  TransformerDecoderConfig,
  TransformerDecoderInput,
  TransformerDecoderLayer,
  type TransformerDecoderMasks,
  TransformerDecoderAutoregressiveCache,
  TransformerDecoderLayerAutoregressiveCache,
} from './transformer/decoder.js';
export { PositionalEncoding, PositionalEncodingConfig, generateSinusoids } from './pos-encoding.js';
export { RotaryEncoding, RotaryEncodingConfig } from './rope-encoding.js';
export { GateController } from './rnn/gate-controller.js';
export { Rnn, RnnConfig, BiRnn, BiRnnConfig, RnnState } from './rnn/rnn.js';
export { Lstm, LstmConfig, BiLstm, BiLstmConfig, LstmState } from './rnn/lstm.js';
export { Gru, GruConfig, BiGru, BiGruConfig } from './rnn/gru.js';
export { LoraAdapter, type LoraAdapterInit } from './lora/adapter.js';
export { LoraLinear } from './lora/lora-linear.js';
export { applyLora, type LoraOptions } from './lora/apply.js';
export { mergeLora } from './lora/merge.js';
export { type LoraTarget } from './lora/targets.js';
