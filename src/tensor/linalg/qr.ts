import type { Float } from '../kind.js';
import { Tensor } from '../tensor.js';
import { expectMatrix, lastTwo } from './util.js';

/** The factors of {@link qr}: `A = Q · R`. */
export interface QrDecomposition<D extends number> {
  /** Orthonormal columns: `[..., R, K]` (reduced, `K = min(R, C)`) or `[..., R, R]` (complete). */
  readonly q: Tensor<D, Float>;
  /** Upper triangular: `[..., K, C]` (reduced) or `[..., R, C]` (complete). */
  readonly r: Tensor<D, Float>;
}

/**
 * QR decomposition of the matrices in the last two dims by Householder reflections (Burn's
 * `linalg::qr`), batched. With `reduced` (the default) a tall `R × C` matrix gives `Q` `[R, C]`
 * and `R` `[C, C]`; otherwise `Q` is the full `[R, R]`. Wide and square matrices give the same
 * factors either way.
 *
 * Sign convention (Burn's): each reflection maps its column onto `-sign(v₀) · ‖v‖ · e₀` (with
 * `sign(0) = +1`), so `R[i][i] = -sign(v₀) · ‖v‖`. LAPACK (`torch.linalg.qr`) skips the reflection
 * when the column below the diagonal is already zero, so the two may differ by the sign of such a
 * column of `Q` and row of `R`; both give `Q · R = A`. Unlike Burn, the rounding left below
 * the diagonal of `R` is cleared, so `R` is exactly upper triangular.
 *
 * Built from tensor ops only (a short loop over the matrix size), so it runs on every device
 * without reading data back.
 */
export function qr<D extends number>(x: Tensor<D, Float>, reduced = true): QrDecomposition<D> {
  x.expectFloat('qr');
  expectMatrix(x, 'qr');
  const shape = x.dims();
  const rank = shape.length;
  const batch = shape.slice(0, rank - 2);
  const [rows, cols] = shape.slice(-2) as [number, number];
  const device = x.device();
  let r = x as Tensor<number, Float>;
  let q = (Tensor.eye(rows, { device, dtype: x.dtype() }) as Tensor<number, Float>)
    .reshape([...new Array<number>(rank - 2).fill(1), rows, rows])
    .expand([...batch, rows, rows]);
  for (let i = 0; i < Math.min(rows, cols); i++) {
    const block = lastTwo(rank, [i, rows], [i, cols]);
    const sub = r.slice(block); // [..., R-i, C-i]
    const v = sub.slice(lastTwo(rank, null, [0, 1])); // [..., R-i, 1]
    const v0 = v.slice(lastTwo(rank, [0, 1], null)); // [..., 1, 1]
    const norm = v
      .square()
      .sumDim(rank - 2)
      .sqrt();
    // sign = -sign(v0), with 0 counted as positive.
    const sign = v0.onesLike().neg().maskFill(v0.lower(0), 1);
    const u0 = v0.sub(norm.mul(sign));
    // A zero column (Burn's is_close(norm, 0): |norm| <= 1e-8) gets no reflection.
    const zero = norm.abs().lowerEqual(1e-8);
    const tau = u0.div(norm).mul(sign).neg().maskFill(zero, 0);
    // w = v / u0 with w[0] = 1: the reflection is H = I - tau · w · wᵀ.
    const w = v
      .div(u0)
      .sliceAssign(lastTwo(rank, [0, 1], null), v0.onesLike())
      .maskFill(zero, 0);
    // f(a) = w · (tau · a · w)ᵀ
    const f = (a: Tensor<number, Float>) => w.matmul(a.matmul(w).mul(tau).transpose());
    r = r.sliceAssign(block, sub.sub(f(sub.transpose())));
    const qCols = lastTwo(rank, null, [i, rows]);
    const qSub = q.slice(qCols);
    q = q.sliceAssign(qCols, qSub.sub(f(qSub).transpose()));
  }
  // The entries below the diagonal are zero up to rounding; make them exactly zero.
  r = r.triu(0);
  if (reduced && rows > cols) {
    q = q.slice(lastTwo(rank, null, [0, cols]));
    r = r.slice(lastTwo(rank, [0, cols], null));
  }
  return { q: q as Tensor<D, Float>, r: r as Tensor<D, Float> };
}
