/**
 * Activation functions as free functions over Float tensors (Burn's `burn::tensor::activation`).
 * Scalar parameters take the defaults of Burn's activation layer configs where Burn has them.
 *
 * ```ts
 * import { activation, Tensor } from 'burn-ts';
 * const y = activation.leakyRelu(Tensor.fromFloats([-1, 2]), 0.1); // [-0.1, 2]
 * ```
 */
export { relu, relu6, leakyRelu, prelu, hardtanh, thresholdedRelu, threshold, elu, celu, selu } from './rectifier.js';
export {
  sigmoid,
  hardSigmoid,
  logSigmoid,
  silu,
  hardSwish,
  gelu,
  geluApproximate,
  softplus,
  mish,
  tanh,
  tanhshrink,
  softsign,
  glu,
} from './smooth.js';
export { softmax, softmin, quietSoftmax, logSoftmax } from './softmax.js';
export { hardShrink, softShrink, shrink } from './shrink.js';
