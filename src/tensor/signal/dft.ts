import type { FloatDType } from '../../core/dtype.js';
import type { Float } from '../kind.js';
import { Tensor } from '../tensor.js';

// The discrete Fourier transform as a composite of tensor ops, so it runs on every device and
// autodiff differentiates it without a rule of its own (the adjoint of a matmul is a matmul).
//
// Why matmuls: a size-n DFT is a product with an n×n matrix. For small n that one matmul is the
// fastest route on every backend (the matmul kernels are the best-tuned ones) and its gradient is
// exact. For large n the matrix would be O(n²) in memory and time, so the transform splits
// Cooley–Tukey style, n = n1·n2 with n1 ≤ DIRECT_MAX: a size-n1 DFT (one matmul), a twiddle
// product, then size-n2 DFTs (recursively). That is the radix-2 decomposition grouped into
// radix-n1 stages: log_64(n) stages of a few ops each instead of log2(n) stages of a dozen
// elementwise ops, O(n·(n1 + n2 + …)) work, and every heavy step is still a matmul.

type T2 = Tensor<2, Float>;

/** The largest size transformed by one matmul with its DFT matrix; larger sizes split. */
export const DIRECT_MAX = 64;

/** A complex `[batch, n]` signal as real and imaginary parts; a missing `im` is zero. */
export interface Complex {
  readonly re: T2;
  readonly im?: T2 | undefined;
}

/** `2π·(a·b mod n)/n`: reducing the product first keeps the angle exact for large indices. */
function angle(a: number, b: number, n: number): number {
  return (2 * Math.PI * ((a * b) % n)) / n;
}

/** A `[rows, cols]` constant with `like`'s device and dtype, its values computed in float64. */
function constant(rows: number, cols: number, like: T2, value: (r: number, c: number) => number): T2 {
  const v = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) v[r * cols + c] = value(r, c);
  return Tensor.fromFloats(v, { device: like.device(), dtype: like.dtype() as FloatDType }).reshape([rows, cols]);
}

/** `x · m`, or undefined when `x` is (a zero) undefined. */
function mm(x: T2 | undefined, m: T2): T2 | undefined {
  return x === undefined ? undefined : x.matmul(m);
}

/** `a + b` where either may be a missing zero (never both). */
function plus(a: T2 | undefined, b: T2 | undefined): T2 {
  return a === undefined ? b! : b === undefined ? a : a.add(b);
}

/** `a - b` where either may be a missing zero (never both). */
function minus(a: T2 | undefined, b: T2 | undefined): T2 {
  return b === undefined ? a! : a === undefined ? b.neg() : a.sub(b);
}

/**
 * The DFT along dim 1 of a `[batch, n]` complex signal, `X[k] = Σ x[j]·e^(-2πi·jk/n)`, keeping
 * the bins `[0, keep)` (all `n` by default).
 */
export function dft(x: Complex, n: number, keep = n): { re: T2; im: T2 } {
  const like = x.re;
  if (n <= DIRECT_MAX) {
    // (a + ib)(cos θ - i sin θ) = (a cos θ + b sin θ) + i(b cos θ - a sin θ)
    const cos = constant(n, keep, like, (j, k) => Math.cos(angle(j, k, n)));
    const sin = constant(n, keep, like, (j, k) => Math.sin(angle(j, k, n)));
    return { re: plus(x.re.matmul(cos), mm(x.im, sin)), im: minus(mm(x.im, cos), x.re.matmul(sin)) };
  }
  // n = n1·n2; input index j = n2·j1 + j2, output index k = k1 + n1·k2:
  // X[k1 + n1·k2] = Σ_j2 e^(-2πi·j2k2/n2) · e^(-2πi·j2k1/n) · Σ_j1 x[n2·j1 + j2]·e^(-2πi·j1k1/n1)
  const n1 = Math.min(DIRECT_MAX, 2 ** Math.floor(Math.log2(n) / 2));
  const n2 = n / n1;
  const batch = like.dims()[0]!;
  // [batch, n] → [batch, n1, n2] → [batch·n2, n1]: the size-n1 DFTs as one matmul.
  const columns = (t: T2 | undefined): T2 | undefined =>
    t &&
    (t
      .reshape([batch, n1, n2])
      .swapDims(1, 2)
      .reshape([batch * n2, n1]) as T2);
  const inner = dft({ re: columns(x.re)!, im: columns(x.im) }, n1);
  // Twiddles e^(-2πi·j2k1/n) at [j2, k1], broadcast over the batch.
  const tCos = constant(n2, n1, like, (j2, k1) => Math.cos(angle(j2, k1, n))).reshape([1, n2, n1]);
  const tSin = constant(n2, n1, like, (j2, k1) => Math.sin(angle(j2, k1, n))).reshape([1, n2, n1]);
  const a = inner.re.reshape([batch, n2, n1]),
    b = inner.im.reshape([batch, n2, n1]);
  const tRe = a.mul(tCos).add(b.mul(tSin)),
    tIm = b.mul(tCos).sub(a.mul(tSin));
  // [batch, j2, k1] → [batch·n1, n2]: the size-n2 DFTs over j2, recursively.
  const rows = (t: Tensor<3, Float>): T2 => t.swapDims(1, 2).reshape([batch * n1, n2]) as T2;
  const outer = dft({ re: rows(tRe), im: rows(tIm) }, n2);
  // [batch, k1, k2] → index k1 + n1·k2: [batch, k2, k1] flattened.
  const order = (t: T2): T2 => {
    const flat = t.reshape([batch, n1, n2]).swapDims(1, 2).reshape([batch, n]) as T2;
    return keep === n ? flat : flat.sliceDim(1, [0, keep]);
  };
  return { re: order(outer.re), im: order(outer.im) };
}

/**
 * The real signal of `n` samples whose spectrum's first `n/2 + 1` bins are `re + i·im` (`[batch,
 * n/2 + 1]`): `x[j] = (1/n)·Σ_k X[k]·e^(2πi·jk/n)` over the Hermitian-extended spectrum. The
 * imaginary parts of the DC and Nyquist bins are ignored (a real signal has none there).
 */
export function inverseRealDft(re: T2, im: T2, n: number): T2 {
  const bins = Math.floor(n / 2) + 1;
  // Bins 1..n/2-1 stand for themselves and their mirror images: weight 2; DC and Nyquist: 1.
  const weight = (k: number) => (k === 0 || 2 * k === n ? 1 : 2) / n;
  if (n <= DIRECT_MAX) {
    const cos = constant(bins, n, re, (k, j) => weight(k) * Math.cos(angle(k, j, n)));
    const sin = constant(bins, n, re, (k, j) => (k === 0 || 2 * k === n ? 0 : -weight(k) * Math.sin(angle(k, j, n))));
    return re.matmul(cos).add(im.matmul(sin));
  }
  // The full spectrum X[n-k] = conj(X[k]), then x = Re(DFT(conj X)) / n (conj(DFT(conj X)) is
  // the inverse transform, and its real part is all a real signal has).
  const inner = bins - 2;
  const keepIm = constant(1, bins, re, (_, k) => (k === 0 || k === bins - 1 ? 0 : 1));
  const fullRe = Tensor.cat([re, re.sliceDim(1, [1, 1 + inner]).flip([1])], 1) as T2;
  const conjIm = Tensor.cat([im.mul(keepIm).neg(), im.sliceDim(1, [1, 1 + inner]).flip([1])], 1) as T2;
  return dft({ re: fullRe, im: conjIm }, n).re.div(n);
}
