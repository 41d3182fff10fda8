import type { FloatDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Sub } from '../kind.js';
import { Tensor } from '../tensor.js';
import { diag } from './diag.js';
import { luFactor } from './lu.js';
import { epsilonOf, expectMatrix, inWorkingPrecision, lastTwo } from './util.js';

/** The rank of {@link det}'s result: the batch dims, or `[1]` for a single matrix. */
export type DetRank<D extends number> = D extends 2 ? 1 : Sub<D, 2>;

/**
 * The determinant of the square matrices in the last two dims: `[..., N, N]` gives `[...]`.
 * Burn requires a batch dim (rank >= 3); a single matrix `[N, N]` is accepted here too and gives a
 * one-element `[1]` tensor, as `sum()` does.
 *
 * 1×1, 2×2 and 3×3 matrices use closed forms; larger ones LU with partial pivoting
 * (`det = sign(P) · Π diag(U)`), where a pivot below `max|diag(U)| · √N · ε` counts as zero and
 * makes the determinant exactly 0, as in Burn. f16 and bf16 inputs are computed in f32.
 */
export function det<D extends number>(x: Tensor<D, Float>): Tensor<DetRank<D>, Float> {
  x.expectFloat('det');
  expectMatrix(x, 'det');
  const shape = x.dims();
  const rank = shape.length;
  const [rows, cols] = shape.slice(-2) as [number, number];
  if (rows !== cols)
    throw new BurnError(
      'det',
      `input of shape ${fmt(shape)} holds ${rows}×${cols} matrices; expected square matrices in the last two dims`,
    );
  const outShape = rank === 2 ? [1] : shape.slice(0, rank - 2);
  const [out] = inWorkingPrecision(x as Tensor<number, Float>, (a) => [detOf(a, rows).reshape(outShape)] as const);
  return out as unknown as Tensor<DetRank<D>, Float>;
}

/** Determinants as `[..., 1, 1]`. */
function detOf(a: Tensor<number, Float>, n: number): Tensor<number, Float> {
  const rank = a.rank();
  if (n === 0)
    return Tensor.ones([...a.dims().slice(0, rank - 2), 1, 1], { device: a.device(), dtype: a.dtype() }) as Tensor<
      number,
      Float
    >;
  const at = (i: number, j: number) => a.slice(lastTwo(rank, [i, i + 1], [j, j + 1]));
  if (n === 1) return at(0, 0);
  if (n === 2)
    return at(0, 0)
      .mul(at(1, 1))
      .sub(at(0, 1).mul(at(1, 0)));
  if (n === 3) {
    const [p, q, r, s, t, u, v, w, z] = [
      at(0, 0),
      at(0, 1),
      at(0, 2),
      at(1, 0),
      at(1, 1),
      at(1, 2),
      at(2, 0),
      at(2, 1),
      at(2, 2),
    ];
    return p
      .mul(t.mul(z).sub(u.mul(w)))
      .sub(q.mul(s.mul(z).sub(u.mul(v))))
      .add(r.mul(s.mul(w).sub(t.mul(v))));
  }
  const { lu, sign } = luFactor(a);
  const d = diag(lu) as Tensor<number, Float>; // [..., n]
  const product = d.prodDim(-1); // [..., 1]
  const magnitude = d.abs();
  const threshold = magnitude.maxDim(-1).mul(Math.sqrt(n) * epsilonOf(a.dtype() as FloatDType));
  const singular = magnitude.lowerEqual(threshold).anyDim(-1);
  return sign.mul(product.maskFill(singular, 0).unsqueezeDim(-1));
}
