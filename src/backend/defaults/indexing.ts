import type { Backend, TensorPrimitive } from '../backend.js';
import type { ScatterOp } from '../ops.js';

/** Shapes 1-d `indices` to broadcast along `dim` of a tensor of shape `like`. */
function spreadIndices<P extends TensorPrimitive>(b: Backend<P>, indices: P, dim: number, like: readonly number[]): P {
  const n = indices.shape[0]!;
  const lineShape = like.map((_, d) => (d === dim ? n : 1));
  const target = like.map((s, d) => (d === dim ? n : s));
  return b.expand(b.reshape(indices, lineShape), target);
}

/** Index select as a gather with the indices spread over the other dims. */
export function select<P extends TensorPrimitive>(b: Backend<P>, p: P, dim: number, indices: P): P {
  return b.gather(p, dim, spreadIndices(b, indices, dim, p.shape));
}

/** Index assign as a scatter with the indices spread over the other dims. */
export function selectAssign<P extends TensorPrimitive>(b: Backend<P>, op: ScatterOp, p: P, dim: number, indices: P, values: P): P {
  return b.scatter(op, p, dim, spreadIndices(b, indices, dim, p.shape), values);
}
