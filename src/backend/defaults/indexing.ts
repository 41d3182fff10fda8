import type { Backend, TensorPrimitive } from '../backend.js';
import type { ScatterOp } from '../ops.js';
import { BurnError } from '../../core/errors.js';

/** Shapes 1-d `indices` to broadcast along `dim` of a tensor of shape `like`. */
function spreadIndices<P extends TensorPrimitive>(b: Backend<P>, indices: P, dim: number, like: readonly number[]): P {
  const n = indices.shape[0]!;
  const lineShape = like.map((_, d) => (d === dim ? n : 1));
  const target = like.map((s, d) => (d === dim ? n : s));
  return b.expand(b.reshape(indices, lineShape), target);
}

/**
 * True when the slices `indices` select along `dim` of `shape` are empty (another dim is 0) while
 * there are indices: no gather/scatter element reads through them, so nothing would check them.
 */
export function selectsEmptySlices(shape: readonly number[], dim: number, indices: TensorPrimitive): boolean {
  return indices.shape[0]! > 0 && shape.some((s, d) => s === 0 && d !== dim);
}

/**
 * Refuses out-of-range `indices` into dim `dim` of `shape` whose slices are empty, as the kernels
 * refuse them when they copy (and PyTorch always): `op` is the kernel's name (`gather`, `scatter`),
 * which the tensor API renames. Only where the indices read synchronously (the CPU engines, and
 * the remote server running them); device-checked backends check them themselves.
 */
function checkEmptySliceIndices<P extends TensorPrimitive>(
  b: Backend<P>,
  shape: readonly number[],
  dim: number,
  indices: P,
  op: string,
): void {
  if (!selectsEmptySlices(shape, dim, indices)) return;
  const values = b.toDataSync(indices)?.toArray();
  const size = shape[dim]!;
  for (const v of values ?? []) {
    const k = Number(v);
    if (!(k >= 0 && k < size))
      throw new BurnError(
        op,
        `index ${k} is out of bounds for dim ${dim} of size ${size}; expected 0 <= index < ${size}`,
      );
  }
}

/** Index select as a gather with the indices spread over the other dims. */
export function select<P extends TensorPrimitive>(b: Backend<P>, p: P, dim: number, indices: P): P {
  checkEmptySliceIndices(b, p.shape, dim, indices, 'gather');
  return b.gather(p, dim, spreadIndices(b, indices, dim, p.shape));
}

/** Index assign as a scatter with the indices spread over the other dims. */
export function selectAssign<P extends TensorPrimitive>(
  b: Backend<P>,
  op: ScatterOp,
  p: P,
  dim: number,
  indices: P,
  values: P,
): P {
  checkEmptySliceIndices(b, p.shape, dim, indices, 'scatter');
  return b.scatter(op, p, dim, spreadIndices(b, indices, dim, p.shape), values);
}
