import { BurnError, fmt } from '../../core/errors.js';
import type { Float } from '../kind.js';
import { normDim } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { expectFloat, expectScalar } from './check.js';

// Smooth activations: the sigmoid family, GELU, softplus and what is built on them
// (Burn's `sigmoid`, `hard_sigmoid`, `log_sigmoid`, `silu`, `hard_swish`, `gelu`,
// `gelu_approximate`, `softplus`, `mish`, `tanh`, `tanhshrink`, `softsign`, `glu`).

/** `sigmoid(x) = 1 / (1 + e^-x)`. */
export function sigmoid<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.sigmoid();
}

/** `max(0, min(1, alpha · x + beta))` (defaults alpha 0.2, beta 0.5, as Burn's `HardSigmoidConfig` and ONNX; PyTorch's Hardsigmoid is alpha 1/6). */
export function hardSigmoid<D extends number>(x: Tensor<D, Float>, alpha = 0.2, beta = 0.5): Tensor<D, Float> {
  expectFloat(x, 'hardSigmoid');
  expectScalar(alpha, 'alpha', 'hardSigmoid');
  expectScalar(beta, 'beta', 'hardSigmoid');
  return x.mul(alpha).add(beta).clamp(0, 1);
}

/** `log(sigmoid(x))`, computed stably as `min(x, 0) - log(1 + e^-|x|)` (no overflow for large |x|). */
export function logSigmoid<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  expectFloat(x, 'logSigmoid');
  return x.clampMax(0).sub(x.abs().neg().exp().log1p());
}

/** `SiLU(x) = x · sigmoid(x)` (also called swish). */
export function silu<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.mul(x.sigmoid());
}

/** `hard_swish(x) = x · max(0, min(1, x / 6 + 0.5))`. */
export function hardSwish<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.mul(hardSigmoid(x, 1 / 6, 0.5));
}

/** Gaussian error linear unit, exact form `x · Φ(x) = x · (1 + erf(x / √2)) / 2`. */
export function gelu<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.gelu();
}

/** √(2/π). */
const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/** Tanh approximation of GELU: `x / 2 · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))`. */
export function geluApproximate<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  expectFloat(x, 'geluApproximate');
  const inner = x.add(x.square().mul(x).mul(0.044715)).mul(SQRT_2_OVER_PI);
  return x.mul(inner.tanh().add(1)).mul(0.5);
}

/**
 * `softplus(x) = log(1 + e^(beta · x)) / beta` (default beta 1), computed stably as
 * `(max(beta · x, 0) + log(1 + e^-|beta · x|)) / beta`, so large inputs give `x` rather than infinity.
 */
export function softplus<D extends number>(x: Tensor<D, Float>, beta = 1): Tensor<D, Float> {
  expectFloat(x, 'softplus');
  expectScalar(beta, 'beta', 'softplus', true);
  const bx = beta === 1 ? x : x.mul(beta);
  const out = bx.relu().add(bx.abs().neg().exp().log1p());
  return beta === 1 ? out : out.div(beta);
}

/** `mish(x) = x · tanh(softplus(x))` (with the stable softplus). */
export function mish<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.mul(softplus(x).tanh());
}

/** Hyperbolic tangent. */
export function tanh<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.tanh();
}

/** `tanhshrink(x) = x - tanh(x)`. */
export function tanhshrink<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  return x.sub(x.tanh());
}

/** `softsign(x) = x / (1 + |x|)`. */
export function softsign<D extends number>(x: Tensor<D, Float>): Tensor<D, Float> {
  expectFloat(x, 'softsign');
  return x.div(x.abs().add(1));
}

/**
 * Gated linear unit: splits `x` in two halves `a`, `b` along `dim` (default the last; its size
 * must be even) and returns `a · sigmoid(b)`, whose size along `dim` is halved.
 */
export function glu<D extends number>(x: Tensor<D, Float>, dim = -1): Tensor<D, Float> {
  expectFloat(x, 'glu');
  const shape = x.dims();
  const d = normDim(dim, shape.length, 'glu');
  const n = shape[d]!;
  if (n % 2 !== 0)
    throw new BurnError(
      'glu',
      `dim ${dim} of the input of shape ${fmt(shape)} has odd size ${n}; expected an even size to split in two halves`,
    );
  const half = n / 2;
  return x.sliceDim(d, [0, half]).mul(x.sliceDim(d, [half, n]).sigmoid());
}
