import { BurnError } from '../../core/errors.js';
import type { Float, Numeric } from '../kind.js';
import { normDim } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';

/**
 * Which vector norm to compute (Burn's `Norm`): `'L0'` (count of non-zeros), `'L1'` (sum of
 * absolute values), `'L2'` (Euclidean), `'LInf'` (largest absolute value), `'LNegInf'` (smallest
 * absolute value), or a number `p` for the general `(Σ |x|^p)^(1/p)` (0, 1, 2 and ±Infinity pick
 * the named norms, as Burn's `From<f64> for Norm`).
 */
export type Norm = 'L0' | 'L1' | 'L2' | 'LInf' | 'LNegInf' | number;

/** The exponent `p` of a norm (Burn's `Norm::to_exponent`). */
export function normExponent(norm: Norm): number {
  switch (norm) {
    case 'L0':
      return 0;
    case 'L1':
      return 1;
    case 'L2':
      return 2;
    case 'LInf':
      return Infinity;
    case 'LNegInf':
      return -Infinity;
    default:
      if (typeof norm !== 'number' || Number.isNaN(norm)) {
        throw new BurnError(
          'vectorNorm',
          `norm ${typeof norm === 'string' ? JSON.stringify(norm) : String(norm)}; expected 'L0', 'L1', 'L2', 'LInf', 'LNegInf' or a number p`,
        );
      }
      return norm;
  }
}

/** The vector norm of `x` along `dim` (kept with size 1; negative dims count from the end). */
export function vectorNorm<D extends number>(x: Tensor<D, Float>, norm: Norm, dim: number): Tensor<D, Float> {
  return lpNormAt(x, normExponent(norm), normDim(dim, x.rank(), 'vectorNorm'), 'vectorNorm');
}

/** The `L(p)` norm `(Σ |x|^p)^(1/p)` along `dim` (kept), with the special cases of {@link Norm}. */
export function lpNorm<D extends number>(x: Tensor<D, Float>, p: number, dim: number): Tensor<D, Float> {
  if (typeof p !== 'number' || Number.isNaN(p)) throw new BurnError('lpNorm', `p = ${String(p)}; expected a number`);
  return lpNormAt(x, p, normDim(dim, x.rank(), 'lpNorm'), 'lpNorm');
}

/** `x / max(vectorNorm(x, norm, dim), epsilon)`: unit vectors along `dim`. */
export function vectorNormalize<D extends number>(
  x: Tensor<D, Float>,
  norm: Norm,
  dim: number,
  epsilon: number,
): Tensor<D, Float> {
  if (typeof epsilon !== 'number' || Number.isNaN(epsilon))
    throw new BurnError('vectorNormalize', `epsilon = ${String(epsilon)}; expected a number`);
  const d = normDim(dim, x.rank(), 'vectorNormalize');
  return x.div(lpNormAt(x, normExponent(norm), d, 'vectorNormalize').clampMin(epsilon));
}

/** The number of non-zero elements along `dim` (kept), of the input's kind (Float or Int, as Burn). */
export function l0Norm<D extends number, K extends Numeric>(x: Tensor<D, K>, dim: number): Tensor<D, K> {
  return numericNorm(x, 0, dim, 'l0Norm');
}

/** The sum of absolute values along `dim` (kept), of the input's kind. */
export function l1Norm<D extends number, K extends Numeric>(x: Tensor<D, K>, dim: number): Tensor<D, K> {
  return numericNorm(x, 1, dim, 'l1Norm');
}

/** The Euclidean norm along `dim` (kept). */
export function l2Norm<D extends number>(x: Tensor<D, Float>, dim: number): Tensor<D, Float> {
  return lpNormAt(x, 2, normDim(dim, x.rank(), 'l2Norm'), 'l2Norm');
}

/** The largest absolute value along `dim` (kept), of the input's kind. */
export function maxAbsNorm<D extends number, K extends Numeric>(x: Tensor<D, K>, dim: number): Tensor<D, K> {
  return numericNorm(x, Infinity, dim, 'maxAbsNorm');
}

/** The smallest absolute value along `dim` (kept), of the input's kind. */
export function minAbsNorm<D extends number, K extends Numeric>(x: Tensor<D, K>, dim: number): Tensor<D, K> {
  return numericNorm(x, -Infinity, dim, 'minAbsNorm');
}

/** The norms Burn defines for every numeric kind (L0, L1, max and min abs), on Float or Int tensors. */
function numericNorm<D extends number, K extends Numeric>(
  x: Tensor<D, K>,
  p: number,
  dim: number,
  op: string,
): Tensor<D, K> {
  const d = normDim(dim, x.rank(), op);
  if (x.dtype() === 'bool') throw new BurnError(op, 'needs a Float or Int tensor, got bool');
  const n = x as Tensor<D, Numeric>;
  const out =
    p === 0
      ? n.zerosLike().maskFill(n.notEqual(0), 1).sumDim(d)
      : p === 1
        ? n.abs().sumDim(d)
        : p === Infinity
          ? n.abs().maxDim(d)
          : n.abs().minDim(d);
  return out as Tensor<D, K>;
}

/** @internal The `L(p)` norm along a normalized dim, with Burn's specialised forms. */
export function lpNormAt<D extends number>(x: Tensor<D, Float>, p: number, dim: number, op: string): Tensor<D, Float> {
  x.expectFloat(op);
  if (p === 0) return x.zerosLike().maskFill(x.notEqual(0), 1).sumDim(dim);
  if (p === 1) return x.abs().sumDim(dim);
  if (p === 2) return x.square().sumDim(dim).sqrt();
  if (p === Infinity) return x.abs().maxDim(dim);
  if (p === -Infinity) return x.abs().minDim(dim);
  // Even integer powers need no abs.
  if (Number.isInteger(p) && p % 2 === 0)
    return x
      .powi(p)
      .sumDim(dim)
      .powf(1 / p);
  return x
    .abs()
    .powf(p)
    .sumDim(dim)
    .powf(1 / p);
}
