import type { UnaryOp } from '../../backend/ops.js';
import type { GridSampleOptions } from '../../backend/options.js';
import { isFloatDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Bool, Float, Int, Kind } from '../kind.js';
import { broadcastShapes, checkNumel, normDim, sameShape } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';
import { Distribution } from '../../core/distribution.js';
import { TensorNumeric } from './numeric.js';

/** Float-only math, statistics and predicates (Burn's `api/float.rs`). */
export class TensorFloat<D extends number = number, K extends Kind = Float> extends TensorNumeric<D, K> {
  /** @internal Checks that this is a float tensor (the types already do; this guards plain JS callers). */
  expectFloat(op: string): void {
    if (!isFloatDType(this.primitive.dtype))
      throw new BurnError(op, `needs a Float tensor, got ${this.primitive.dtype}`);
  }
  private un(op: UnaryOp): Tensor<D, Float> {
    this.expectFloat(op);
    return this.wrap<D, Float>(this.backend.unary(op, this.primitive));
  }

  /** `e^x`. */
  exp(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('exp');
  }
  /** `e^x - 1`, accurate near 0. */
  expm1(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('expm1');
  }
  /** Natural logarithm. */
  log(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('log');
  }
  /** `ln(1 + x)`, accurate near 0. */
  log1p(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('log1p');
  }
  /** Square root. */
  sqrt(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('sqrt');
  }
  /** `1 / x`. */
  recip(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('recip');
  }
  /** Sine. */
  sin(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('sin');
  }
  /** Cosine. */
  cos(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('cos');
  }
  /** Tangent. */
  tan(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('tan');
  }
  /** Inverse sine. */
  asin(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('asin');
  }
  /** Inverse cosine. */
  acos(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('acos');
  }
  /** Inverse tangent. */
  atan(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('atan');
  }
  /** Hyperbolic sine. */
  sinh(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('sinh');
  }
  /** Hyperbolic cosine. */
  cosh(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('cosh');
  }
  /** Hyperbolic tangent. */
  tanh(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('tanh');
  }
  /** Inverse hyperbolic sine. */
  asinh(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('asinh');
  }
  /** Inverse hyperbolic cosine. */
  acosh(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('acosh');
  }
  /** Inverse hyperbolic tangent. */
  atanh(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('atanh');
  }
  /** Gauss error function. */
  erf(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('erf');
  }
  /** Rounds half to even (`round(2.5) = 2`), as Burn. */
  round(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('round');
  }
  /** Rounds down. */
  floor(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('floor');
  }
  /** Rounds up. */
  ceil(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('ceil');
  }
  /** Rounds toward zero. */
  trunc(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('trunc');
  }
  /** Logistic sigmoid `1 / (1 + e^-x)`. */
  sigmoid(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.un('sigmoid');
  }

  /** `max(x, 0)`; NaN stays NaN and the gradient at 0 is 0 (as Burn and PyTorch). */
  relu(this: Tensor<D, Float>): Tensor<D, Float> {
    this.expectFloat('relu');
    return this.wrap<D, Float>(this.backend.relu(this.primitive));
  }
  /** Gaussian error linear unit, exact form `x · Φ(x)`. */
  gelu(this: Tensor<D, Float>): Tensor<D, Float> {
    this.expectFloat('gelu');
    return this.mul(this.div(Math.SQRT2).erf().add(1).mul(0.5));
  }
  /** Softmax along `dim`. */
  softmax(this: Tensor<D, Float>, dim: number): Tensor<D, Float> {
    this.expectFloat('softmax');
    return this.wrap<D, Float>(
      this.backend.softmax(this.primitive, normDim(dim, this.primitive.shape.length, 'softmax')),
    );
  }
  /** Log-softmax along `dim`. */
  logSoftmax(this: Tensor<D, Float>, dim: number): Tensor<D, Float> {
    this.expectFloat('logSoftmax');
    return this.wrap<D, Float>(
      this.backend.logSoftmax(this.primitive, normDim(dim, this.primitive.shape.length, 'logSoftmax')),
    );
  }

  /** `x^y` with a float exponent (scalar or tensor). */
  powf(this: Tensor<D, Float>, exponent: Tensor<D, Float> | number): Tensor<D, Float> {
    this.expectFloat('powf');
    return this.wrap<D, Float>(this.binaryOp('pow', exponent, 'powf'));
  }
  /** Four-quadrant `atan(self / other)`. */
  atan2(this: Tensor<D, Float>, other: Tensor<D, Float> | number): Tensor<D, Float> {
    this.expectFloat('atan2');
    return this.wrap<D, Float>(this.binaryOp('atan2', other, 'atan2'));
  }
  /**
   * `sqrt(self² + other²)` without intermediate overflow or underflow (IEEE `hypot`, as Burn's
   * `float_hypot`); an infinite operand gives infinity even beside NaN. A primitive op: one pass
   * where the scaled composite took fifteen.
   */
  hypot(this: Tensor<D, Float>, other: Tensor<D, Float> | number): Tensor<D, Float> {
    this.expectFloat('hypot');
    return this.wrap<D, Float>(this.binaryOp('hypot', other, 'hypot'));
  }
  /** Remainder with the sign of the dividend (C's `fmod`). */
  fmod(this: Tensor<D, Float>, other: Tensor<D, Float> | number): Tensor<D, Float> {
    this.expectFloat('fmod');
    return this.wrap<D, Float>(this.binaryOp('fmod', other, 'fmod'));
  }
  /** Degrees to radians. */
  deg2rad(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.mul(Math.PI / 180);
  }
  /** Radians to degrees. */
  rad2deg(this: Tensor<D, Float>): Tensor<D, Float> {
    return this.mul(180 / Math.PI);
  }

  /** Cross product of 3-vectors along `dim`. */
  cross(this: Tensor<D, Float>, other: Tensor<D, Float>, dim: number): Tensor<D, Float> {
    const shape = this.primitive.shape;
    const d = normDim(dim, shape.length, 'cross');
    this.sameDevice(other, 'cross');
    if (shape[d] !== 3 || other.primitive.shape[d] !== 3) {
      throw new BurnError(
        'cross',
        `shapes ${fmt(shape)} and ${fmt(other.primitive.shape)} at dim ${dim}; expected size 3`,
      );
    }
    if (!sameShape(shape, other.primitive.shape))
      checkNumel(broadcastShapes(shape, other.primitive.shape, 'cross'), 'cross');
    const at = (t: Tensor<D, Float>, i: number) => t.narrow(d, i, 1);
    const [a0, a1, a2] = [at(this, 0), at(this, 1), at(this, 2)];
    const [b0, b1, b2] = [at(other, 0), at(other, 1), at(other, 2)];
    const c0 = a1.mul(b2).sub(a2.mul(b1));
    const c1 = a2.mul(b0).sub(a0.mul(b2));
    const c2 = a0.mul(b1).sub(a1.mul(b0));
    return this.wrap<D, Float>(this.backend.cat([c0.primitive, c1.primitive, c2.primitive], d));
  }

  // --- statistics ---

  /** Unbiased variance along `dim` (kept), dividing by n - 1 as Burn. */
  var(this: Tensor<D, Float>, dim: number): Tensor<D, Float> {
    return this.varianceWith(dim, 1, 'var')[0];
  }
  /** Biased (population) variance along `dim` (kept). */
  varBias(this: Tensor<D, Float>, dim: number): Tensor<D, Float> {
    return this.varianceWith(dim, 0, 'varBias')[0];
  }
  /** Unbiased variance and mean along `dim`. */
  varMean(this: Tensor<D, Float>, dim: number): [Tensor<D, Float>, Tensor<D, Float>] {
    return this.varianceWith(dim, 1, 'varMean');
  }
  /** Biased variance and mean along `dim`. */
  varMeanBias(this: Tensor<D, Float>, dim: number): [Tensor<D, Float>, Tensor<D, Float>] {
    return this.varianceWith(dim, 0, 'varMeanBias');
  }
  private varianceWith(
    this: Tensor<D, Float>,
    dim: number,
    correction: number,
    op: string,
  ): [Tensor<D, Float>, Tensor<D, Float>] {
    this.expectFloat(op);
    const d = normDim(dim, this.primitive.shape.length, op);
    const n = this.primitive.shape[d]!;
    const mean = this.meanDim(d);
    const v = this.sub(mean)
      .square()
      .sumDim(d)
      .div(n - correction);
    return [v, mean];
  }
  /** Median along `dim` (kept): the lower of the two middle values for even sizes; NaN if the line has NaN (as PyTorch). */
  median(this: Tensor<D, Float>, dim: number): Tensor<D, Float> {
    return this.medianWithIndices(dim)[0];
  }
  /** Median along `dim` with its index in the input. */
  medianWithIndices(this: Tensor<D, Float>, dim: number): [Tensor<D, Float>, Tensor<D, Int>] {
    this.expectFloat('median');
    const d = normDim(dim, this.primitive.shape.length, 'median');
    const n = this.primitive.shape[d]!;
    if (n === 0) throw new BurnError('median', `dim ${dim} is empty`);
    const [sorted, idx] = this.sortWithIndices(d);
    // NaN sorts last: a line with NaN takes its first NaN (at n - nanCount) instead of the middle.
    const b = this.backend;
    const nanCount = this.isNan().int().sumDim(d);
    const firstNan = b.binaryScalar('add', b.unary('neg', nanCount.primitive), n);
    const at = this.wrap<D, Int>(
      b.where(
        b.compareScalar('gt', nanCount.primitive, 0),
        firstNan,
        b.fill(nanCount.primitive.shape, Math.floor((n - 1) / 2), 'i32'),
      ),
    );
    return [sorted.gather(d, at), idx.gather(d, at)];
  }
  /** Covariance between the entries along `dim` (Burn's `cov`; `correctionFactor` 1 for samples, 0 for a population). */
  cov(this: Tensor<D, Float>, dim: number, correctionFactor: number): Tensor<D, Float> {
    const d = normDim(dim, this.primitive.shape.length, 'cov');
    const n = this.primitive.shape[d]!;
    const centered = this.sub(this.meanDim(d)).swapDims(d, 0);
    return centered
      .transpose()
      .matmul(centered)
      .div(n - correctionFactor);
  }

  // --- predicates ---

  /** True where NaN. */
  isNan(this: Tensor<D, Float>): Tensor<D, Bool> {
    this.expectFloat('isNan');
    return this.wrap<D, Bool>(this.backend.predicate('isnan', this.primitive));
  }
  /** True where ±infinity. */
  isInf(this: Tensor<D, Float>): Tensor<D, Bool> {
    this.expectFloat('isInf');
    return this.wrap<D, Bool>(this.backend.predicate('isinf', this.primitive));
  }
  /** True where neither NaN nor infinite. */
  isFinite(this: Tensor<D, Float>): Tensor<D, Bool> {
    const b = this.backend;
    const bad = b.binary('or', b.predicate('isnan', this.primitive), b.predicate('isinf', this.primitive));
    return this.wrap<D, Bool>(b.unary('not', bad));
  }
  /**
   * `|self - other| <= atol + rtol * |other|` elementwise for finite values; infinities are close
   * only to the same infinity and NaN to nothing (Burn's `is_close`; PyTorch's defaults: rtol 1e-5,
   * atol 1e-8).
   */
  isClose(this: Tensor<D, Float>, other: Tensor<D, Float>, rtol = 1e-5, atol = 1e-8): Tensor<D, Bool> {
    if (!sameShape(this.primitive.shape, other.primitive.shape)) {
      throw new BurnError('isClose', `shapes ${fmt(this.primitive.shape)} and ${fmt(other.primitive.shape)} differ`);
    }
    const bothFinite = this.isFinite().boolAnd(other.isFinite());
    const closeFinite = this.sub(other).abs().lowerEqual(other.abs().mul(rtol).add(atol)).boolAnd(bothFinite);
    const sameInf = this.isInf().boolAnd(this.equal(other));
    return closeFinite.boolOr(sameInf);
  }
  /** True when every element is close (see {@link isClose}). */
  async allClose(this: Tensor<D, Float>, other: Tensor<D, Float>, rtol = 1e-5, atol = 1e-8): Promise<boolean> {
    return (await this.isClose(other, rtol, atol).all().intoScalar()) as boolean;
  }
  /** A 1-element Bool tensor: true if any element is NaN. */
  containsNan(this: Tensor<D, Float>): Tensor<1, Bool> {
    return this.isNan().any();
  }

  // --- conversion, sampling ---

  /** Samples `numSamples` category indices (with replacement) from the weights along the last dim. */
  categorical(this: Tensor<D, Float>, numSamples: number): Tensor<D, Int> {
    this.expectFloat('categorical');
    if (!(Number.isInteger(numSamples) && numSamples > 0))
      throw new BurnError('categorical', `numSamples ${numSamples}; expected a positive integer`);
    const shape = this.primitive.shape;
    const last = shape.length - 1;
    const c = shape[last]!;
    // Every sample is compared with every category at once.
    checkNumel([...shape.slice(0, -1), numSamples, c], 'categorical', 'sample × category shape');
    const cdf = this.cumsum(last).div(this.sumDim(last));
    const key = this.dev.nextRandomKey();
    const u = this.wrap<D, Float>(
      this.backend.random([...shape.slice(0, -1), numSamples], Distribution.Default, this.primitive.dtype, key),
    );
    // index = number of cdf entries <= u, clamped to the last category.
    const b = this.backend;
    const ge = b.compare(
      'ge',
      b.reshape(u.primitive, [...shape.slice(0, -1), numSamples, 1]),
      b.reshape(cdf.primitive, [...shape.slice(0, -1), 1, c]),
    );
    const count = b.reduce('sum', b.cast(ge, 'i32'), [last + 1]);
    return this.wrap<D, Int>(b.clamp(b.reshape(count, [...shape.slice(0, -1), numSamples]), 0, c - 1));
  }

  /** Samples `[N, C, H, W]` at the normalized (-1..1) `(x, y)` positions of `grid` `[N, Ho, Wo, 2]`. */
  gridSample2d(
    this: Tensor<4, Float>,
    grid: Tensor<4, Float>,
    options: Partial<GridSampleOptions> = {},
  ): Tensor<4, Float> {
    const s = this.primitive.shape,
      g = grid.primitive.shape;
    if (s.length !== 4 || g.length !== 4 || g[3] !== 2 || g[0] !== s[0]) {
      throw new BurnError(
        'gridSample2d',
        `input ${fmt(s)} and grid ${fmt(g)}; expected [N, C, H, W] and [N, Ho, Wo, 2]`,
      );
    }
    const opts: GridSampleOptions = {
      mode: options.mode ?? 'bilinear',
      paddingMode: options.paddingMode ?? 'zeros',
      alignCorners: options.alignCorners ?? false,
    };
    return this.wrap<4, Float>(this.backend.gridSample2d(this.primitive, this.castLike(grid.primitive), opts));
  }
}
