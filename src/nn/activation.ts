/**
 * Activation layers (Burn's `burn::nn::activation`): every activation of the `activation`
 * namespace as a module, with Burn's configs where Burn has one, and the {@link ActivationConfig}
 * / {@link Activation} pair that selects one by config.
 */
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
} from './activation/rectifier.js';
export {
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
} from './activation/smooth.js';
export {
  HardShrink,
  HardShrinkConfig,
  SoftShrink,
  SoftShrinkConfig,
  Shrink,
  ShrinkConfig,
} from './activation/shrink.js';
export { GLU, SwiGlu, SwiGluConfig } from './activation/gated.js';
export {
  ActivationConfig,
  type Activation,
  type ActivationConfigJSON,
  type ActivationKind,
} from './activation/activation-config.js';
