import type { Backend, TensorPrimitive } from '../../../backend/backend.js';
import type { ScatterOp } from '../../../backend/ops.js';
import type { Saved } from '../graph.js';
import { mul, zerosLike } from './shared.js';

/** Backward rules of gather, scatter and sort. */

type P = TensorPrimitive;

/** gather: scatter-add the gradient back to the gathered positions. */
export function gatherGrad(
  b: Backend,
  g: P,
  input: { shape: readonly number[]; dtype: P['dtype'] },
  dim: number,
  indices: P,
): P {
  return b.scatter('add', b.fill(input.shape, 0, input.dtype), dim, indices, g);
}

/**
 * scatter: gradients of (target, values). `assign` routes the gradient of overwritten positions to
 * the values; `add` passes it to both; `mul` follows PyTorch's scatter_reduce (include_self) rule
 * for unique indices; `min` and `max` give the whole gradient to every side that holds the result
 * (Burn's scatter_nd rule, whose ties contribute to both sides, as its cummin/cummax). Reads the
 * target `x`, the `indices`, the `values` and the output `out`.
 */
export function scatterGrad(
  b: Backend,
  op: ScatterOp,
  g: P,
  saved: Saved<'x' | 'indices' | 'values' | 'out'>,
  dim: number,
): [P, P] {
  const { x, indices, values, out } = saved;
  const picked = b.gather(g, dim, indices);
  switch (op) {
    case 'assign':
      return [b.scatter('assign', g, dim, indices, b.fill(indices.shape, 0, g.dtype)), picked];
    case 'add':
      return [g, picked];
    case 'mul': {
      // out = x * v at scattered positions: dx = g * v (there), dv = g * x.
      const vAt = b.scatter('assign', b.fill(x.shape, 1, x.dtype), dim, indices, values);
      return [mul(b, g, vAt), mul(b, picked, b.gather(x, dim, indices))];
    }
    case 'min':
    case 'max': {
      // The gradient goes to whichever of x and the values produced the result, whole to each on ties.
      const zero = b.fill([], 0, g.dtype);
      return [
        b.where(b.compare('eq', x, out), g, zero),
        b.where(b.compare('eq', values, b.gather(out, dim, indices)), picked, zero),
      ];
    }
  }
}

/** sort: the sorted values' gradient goes back to the source positions. */
export function sortGrad(b: Backend, g: P, dim: number, indices: P): P {
  return b.scatter('add', zerosLike(b, g), dim, indices, g);
}
