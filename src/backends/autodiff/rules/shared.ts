import type { Backend, TensorPrimitive } from '../../../backend/backend.js';
import { sameShape } from '../../../core/shape.js';

/** Helpers the backward rules share; all run on the inner backend. */

type P = TensorPrimitive;

/** Sums a broadcast gradient back to `shape` (over added leading dims and stretched size-1 dims). */
export function sumToShape(b: Backend, g: P, shape: readonly number[]): P {
  if (sameShape(g.shape, shape)) return g;
  const off = g.shape.length - shape.length;
  const dims: number[] = [];
  g.shape.forEach((s, d) => {
    if (d < off || (shape[d - off] === 1 && s !== 1)) dims.push(d);
  });
  const reduced = dims.length > 0 ? b.reduce('sum', g, dims) : g;
  return b.reshape(reduced, shape);
}

/** Zeros like `p`. */
export function zerosLike(b: Backend, p: P): P {
  return b.fill(p.shape, 0, p.dtype);
}

/** `a * b`. */
export const mul = (b: Backend, x: P, y: P): P => b.binary('mul', x, y);
/** `a / b`. */
export const div = (b: Backend, x: P, y: P): P => b.binary('div', x, y);
/** `x * s`. */
export const scale = (b: Backend, x: P, s: number): P => b.binaryScalar('mul', x, s);
/** `-x`. */
export const neg = (b: Backend, x: P): P => b.unary('neg', x);
