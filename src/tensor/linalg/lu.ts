import type { Float, Int } from '../kind.js';
import { Tensor } from '../tensor.js';
import { expectMatrix, inWorkingPrecision, lastTwo } from './util.js';

/** The factors of {@link lu}: `A = P · L · U`. */
export interface LuDecomposition<D extends number> {
  /** The permutation matrix `[..., R, R]`. */
  readonly p: Tensor<D, Float>;
  /** The unit lower-triangular factor `[..., R, min(R, C)]`. */
  readonly l: Tensor<D, Float>;
  /** The upper-triangular factor `[..., min(R, C), C]`. */
  readonly u: Tensor<D, Float>;
}

/**
 * LU decomposition with partial pivoting of the matrices in the last two dims (square or
 * rectangular, batched): `A = P · L · U` as Burn's `linalg::lu` (and `torch.linalg.lu`). At each
 * step the row with the largest absolute value in the pivot column (the first such row on ties)
 * becomes the pivot; a zero pivot (singular matrix) leaves its column unscaled. f16 and bf16 inputs
 * are factorized in f32 and the factors cast back.
 *
 * Built from tensor ops only (a short loop over the matrix size), so it runs on every device
 * without reading data back.
 */
export function lu<D extends number>(x: Tensor<D, Float>): LuDecomposition<D> {
  x.expectFloat('lu');
  expectMatrix(x, 'lu');
  const [p, l, u] = inWorkingPrecision(x as Tensor<number, Float>, (a) => {
    const { lu: packed, perm } = luFactor(a);
    const shape = a.dims();
    const rank = shape.length;
    const [rows, cols] = shape.slice(-2) as [number, number];
    const size = Math.min(rows, cols);
    const lower = packed.slice(lastTwo(rank, null, [0, size])).tril(0);
    const unitDiag = Tensor.diagMask(lower.dims(), 0, a.device()).boolNot();
    const upper = packed.slice(lastTwo(rank, [0, size], null)).triu(0);
    // perm[i] is the input row now at row i: the row-permuted identity Pᵀ has ones at (i, perm[i]).
    const cols1 = Tensor.arange(0, rows, a.device()).reshape([...new Array<number>(rank - 1).fill(1), rows]);
    const pt = perm.equal(cols1 as Tensor<number, Int>).float(a.dtype());
    return [pt.transpose(), lower.maskFill(unitDiag, 1), upper] as const;
  });
  return { p: p as Tensor<D, Float>, l: l as Tensor<D, Float>, u: u as Tensor<D, Float> };
}

/** @internal The packed factors of {@link lu} and what {@link det} needs from the pivoting. */
export interface LuFactors {
  /** `L` (below the diagonal, unit diagonal implied) and `U` (on and above) in one `[..., R, C]` tensor. */
  readonly lu: Tensor<number, Float>;
  /** `[..., R, 1]`: the input row that ended up at each row. */
  readonly perm: Tensor<number, Int>;
  /** `[..., 1, 1]`: the determinant of the permutation, ±1. */
  readonly sign: Tensor<number, Float>;
}

/**
 * @internal Outer-product LU with partial pivoting (Burn's `standard_lu_with_partial_piv`),
 * batched over the leading dims. Row swaps are expressed as `where` over row masks, so every
 * step is a fixed number of tensor ops.
 */
export function luFactor(x: Tensor<number, Float>): LuFactors {
  const shape = x.dims();
  const rank = shape.length;
  const batch = shape.slice(0, rank - 2);
  const [rows, cols] = shape.slice(-2) as [number, number];
  const device = x.device();
  const steps = Math.min(rows, cols);
  const ones = new Array<number>(rank - 2).fill(1);
  const rowIndex = Tensor.arange(0, rows, device).reshape([...ones, rows, 1]) as Tensor<number, Int>;
  let perm = rowIndex.expand([...batch, rows, 1]) as Tensor<number, Int>;
  let sign = Tensor.ones([...batch, 1, 1], { device, dtype: x.dtype() }) as Tensor<number, Float>;
  let t = x;
  for (let k = 0; k < steps; k++) {
    // Pivot: the first row (from k down) with the largest |value| in column k; [..., 1, 1].
    const pivot = t
      .slice(lastTwo(rank, [k, rows], [k, k + 1]))
      .abs()
      .argmax(rank - 2)
      .add(k);
    const isK = rowIndex.equal(k);
    const isPivot = rowIndex.equal(pivot);
    // Swap rows k and pivot (a no-op where pivot == k).
    const rowK = t.slice(lastTwo(rank, [k, k + 1], null));
    const rowP = t.gather(rank - 2, pivot.expand([...batch, 1, cols]) as Tensor<number, Int>);
    t = t.maskWhere(isPivot, rowK).maskWhere(isK, rowP);
    const permK = perm.slice(lastTwo(rank, [k, k + 1], null));
    const permP = perm.gather(rank - 2, pivot as Tensor<number, Int>);
    perm = perm.maskWhere(isPivot, permK).maskWhere(isK, permP);
    sign = sign.maskWhere(pivot.notEqual(k), sign.neg());
    if (k < rows - 1) {
      // Scale column k below the diagonal by the pivot (a zero pivot divides by 1: its column is all zeros).
      const akk = t.slice(lastTwo(rank, [k, k + 1], [k, k + 1]));
      const safe = akk.maskFill(akk.equal(0), 1);
      const column = t.slice(lastTwo(rank, [k + 1, rows], [k, k + 1])).div(safe);
      t = t.sliceAssign(lastTwo(rank, [k + 1, rows], [k, k + 1]), column);
      if (k < cols - 1) {
        // Trailing update: A[k+1:, k+1:] -= A[k+1:, k] ⊗ A[k, k+1:].
        const trailing = lastTwo(rank, [k + 1, rows], [k + 1, cols]);
        const update = column.matmul(t.slice(lastTwo(rank, [k, k + 1], [k + 1, cols])));
        t = t.sliceAssign(trailing, t.slice(trailing).sub(update));
      }
    }
  }
  return { lu: t, perm, sign };
}
