import type { Backend, TensorPrimitive } from '../backend.js';
import type { BinaryOp, CompareOp } from '../ops.js';

/** `a (op) scalar` through a rank-0 tensor that broadcasts. */
export function binaryScalar<P extends TensorPrimitive>(b: Backend<P>, op: BinaryOp, a: P, scalar: number): P {
  return b.binary(op, a, b.fill([], scalar, a.dtype));
}

/** `a (cmp) scalar` through a rank-0 tensor that broadcasts. */
export function compareScalar<P extends TensorPrimitive>(b: Backend<P>, op: CompareOp, a: P, scalar: number): P {
  return b.compare(op, a, b.fill([], scalar, a.dtype));
}

/** Clamp as max then min with scalars; NaN stays NaN. */
export function clamp<P extends TensorPrimitive>(
  b: Backend<P>,
  p: P,
  min: number | undefined,
  max: number | undefined,
): P {
  let out = p;
  if (min !== undefined) out = b.binaryScalar('max', out, min);
  if (max !== undefined) out = b.binaryScalar('min', out, max);
  return out;
}

/** `mask ? value : p`. */
export function maskFill<P extends TensorPrimitive>(b: Backend<P>, p: P, mask: P, value: number): P {
  return b.where(mask, b.fill([], value, p.dtype), p);
}
