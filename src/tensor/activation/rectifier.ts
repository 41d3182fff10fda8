import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import type { Tensor } from '../tensor.js';
import { expectFloat, expectScalar } from './check.js';

// Rectifier-style activations: piecewise-linear or exponential-linear functions
// (Burn's `relu`, `relu6`, `leaky_relu`, `prelu`, `hardtanh`, `thresholded_relu`, `threshold`,
// `elu`, `celu`, `selu`).

/** `ReLU(x) = max(0, x)`; NaN stays NaN. */
export function relu<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.relu();
}

/** `ReLU6(x) = min(max(0, x), 6)` (MobileNetV2). */
export function relu6<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  expectFloat(x, 'relu6');
  return x.clamp(0, 6);
}

/** `LeakyReLU(x) = x` for `x >= 0`, `negativeSlope · x` otherwise (default slope 0.01, as Burn's `LeakyReluConfig`). */
export function leakyRelu<D extends number>(x: Tensor<D, Float>, negativeSlope = 0.01): Tensor<D, Float> {
  expectFloat(x, 'leakyRelu');
  expectScalar(negativeSlope, 'negativeSlope', 'leakyRelu');
  return x.maskWhere(x.lower(0), x.mul(negativeSlope));
}

/**
 * Parametric ReLU: `x` for `x >= 0`, `alpha · x` otherwise. `x` is `[batch, channels, ...]` and
 * `alpha` (rank 1) holds one weight per channel, or a single weight shared by all.
 */
export function prelu<D extends number>(x: Tensor<D, Float>, alpha: Tensor<1, Float>): Tensor<D, Float> {
  expectFloat(x, 'prelu');
  expectFloat(alpha, 'prelu');
  const shape = x.dims();
  const a = alpha.dims();
  if (a.length !== 1) throw new BurnError('prelu', `alpha of shape ${fmt(a)}; expected a rank-1 tensor of weights`);
  const n = a[0]!;
  let weight: Tensor<D, Float>;
  if (n === 1) {
    weight = alpha.reshape(shape.map(() => 1)) as Tensor<D, Float>;
  } else {
    if (shape.length < 2 || shape[1] !== n) {
      const channels = shape.length < 2 ? 1 : shape[1];
      throw new BurnError(
        'prelu',
        `alpha has ${n} weights but the input of shape ${fmt(shape)} has ${channels} channels (dim 1); expected ${channels} weights or 1`,
      );
    }
    weight = alpha.reshape(shape.map((_, i) => (i === 1 ? n : 1))) as Tensor<D, Float>;
  }
  return x.maskWhere(x.lower(0), x.mul(weight));
}

/** `HardTanh(x) = clamp(x, min, max)` (defaults -1 and 1, as Burn's `HardTanhConfig`). */
export function hardtanh<D extends number>(x: Tensor<D, Float>, min = -1, max = 1): Tensor<D, Float> {
  expectFloat(x, 'hardtanh');
  expectScalar(min, 'min', 'hardtanh');
  expectScalar(max, 'max', 'hardtanh');
  if (min > max) throw new BurnError('hardtanh', `min ${min} is greater than max ${max}`);
  return x.clamp(min, max);
}

/** `x` where `x > alpha`, 0 otherwise (default alpha 1, as ONNX). */
export function thresholdedRelu<D extends number>(x: Tensor<D, Float>, alpha = 1): Tensor<D, Float> {
  expectFloat(x, 'thresholdedRelu');
  expectScalar(alpha, 'alpha', 'thresholdedRelu');
  return x.maskFill(x.lowerEqual(alpha), 0);
}

/** `x` where `x > threshold`, `value` otherwise (generalises {@link thresholdedRelu}). */
export function threshold<D extends number>(x: Tensor<D, Float>, threshold: number, value: number): Tensor<D, Float> {
  expectFloat(x, 'threshold');
  expectScalar(threshold, 'threshold', 'threshold');
  if (typeof value !== 'number') throw new BurnError('threshold', `value = ${String(value)}; expected a number`);
  return x.maskFill(x.lowerEqual(threshold), value);
}

/** `ELU(x) = x` for `x > 0`, `alpha · (e^x - 1)` otherwise (default alpha 1). */
export function elu<D extends number>(x: Tensor<D, Float>, alpha = 1): Tensor<D, Float> {
  expectFloat(x, 'elu');
  expectScalar(alpha, 'alpha', 'elu');
  return x.maskWhere(x.lowerEqual(0), x.expm1().mul(alpha));
}

/** `CELU(x) = x` for `x > 0`, `alpha · (e^(x / alpha) - 1)` otherwise (default alpha 1; alpha must not be 0). */
export function celu<D extends number>(x: Tensor<D, Float>, alpha = 1): Tensor<D, Float> {
  expectFloat(x, 'celu');
  expectScalar(alpha, 'alpha', 'celu', true);
  return x.maskWhere(x.lowerEqual(0), x.div(alpha).expm1().mul(alpha));
}

/** SELU's `alpha` (from the SELU paper and the ONNX spec). */
const SELU_ALPHA = 1.6732632423543772848170429916717;
/** SELU's scale `gamma`. */
const SELU_GAMMA = 1.0507009873554804934193349852946;

/** `SELU(x) = gamma · x` for `x >= 0`, `gamma · alpha · (e^x - 1)` otherwise (self-normalizing networks). */
export function selu<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  expectFloat(x, 'selu');
  const negative = x.expm1().mul(SELU_ALPHA * SELU_GAMMA);
  return negative.maskWhere(x.greaterEqual(0), x.mul(SELU_GAMMA));
}
