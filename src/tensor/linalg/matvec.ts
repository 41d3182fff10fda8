import { BurnError, fmt, renameError } from '../../core/errors.js';
import type { Dec, Numeric } from '../kind.js';
import { broadcastShapes } from '../../core/shape.js';
import type { Tensor } from '../tensor.js';

/**
 * Matrix-vector product with optional batch dims: `matrix` `[..., M, N]` times `vector`
 * `[..., N]` gives `[..., M]`. The vector's rank is one less than the matrix's; batch dims
 * broadcast.
 */
export function matvec<D extends number, K extends Numeric>(
  matrix: Tensor<D, K>,
  vector: Tensor<Dec<D>, K>,
): Tensor<Dec<D>, K> {
  const m = matrix.dims(),
    v = vector.dims();
  if (m.length < 2) throw new BurnError('matvec', `matrix of shape ${fmt(m)}; expected rank >= 2`);
  if (v.length !== m.length - 1) {
    throw new BurnError(
      'matvec',
      `vector of shape ${fmt(v)} for a matrix of shape ${fmt(m)}; expected the vector's rank to be ${m.length - 1}`,
    );
  }
  if (m[m.length - 1] !== v[v.length - 1]) {
    throw new BurnError(
      'matvec',
      `the matrix ${fmt(m)} has ${m[m.length - 1]} columns but the vector ${fmt(v)} has ${v[v.length - 1]} entries; expected equal`,
    );
  }
  broadcastShapes(m.slice(0, -2), v.slice(0, -1), 'matvec');
  try {
    const product = matrix.matmul(vector.unsqueezeDim(-1) as unknown as Tensor<D, K>) as Tensor<number, K>;
    return product.squeezeDim(-1) as unknown as Tensor<Dec<D>, K>;
  } catch (e) {
    throw renameError(e, 'matvec');
  }
}
