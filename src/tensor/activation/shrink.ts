import type { Float } from '../kind.js';
import type { Tensor } from '../tensor.js';
import { expectFloat, expectScalar } from './check.js';

// Shrinkage activations (Burn's `hard_shrink`, `soft_shrink`, `shrink`).

/** `x` where `|x| > lambda`, 0 otherwise (default lambda 0.5). */
export function hardShrink<D extends number>(x: Tensor<D, Float>, lambda = 0.5): Tensor<D, Float> {
  expectFloat(x, 'hardShrink');
  expectScalar(lambda, 'lambda', 'hardShrink');
  return x.maskFill(x.abs().lowerEqual(lambda), 0);
}

/** `x - lambda` where `x > lambda`, `x + lambda` where `x < -lambda`, 0 otherwise (default lambda 0.5). */
export function softShrink<D extends number>(x: Tensor<D, Float>, lambda = 0.5): Tensor<D, Float> {
  return shrink(x, lambda, lambda);
}

/**
 * ONNX's Shrink, with Burn's argument order `(x, lambda, bias)`: `x - bias` where `x > lambda`,
 * `x + bias` where `x < -lambda`, 0 otherwise (defaults 0.5 and 0.5, as Burn's `ShrinkConfig`).
 */
export function shrink<D extends number>(x: Tensor<D, Float>, lambda = 0.5, bias = 0.5): Tensor<D, Float> {
  expectFloat(x, 'shrink');
  expectScalar(lambda, 'lambda', 'shrink');
  expectScalar(bias, 'bias', 'shrink');
  return x.sub(x.sign().mul(bias)).maskFill(x.abs().lowerEqual(lambda), 0);
}
