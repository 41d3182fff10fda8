import type { Backend, TensorPrimitive } from '../backend.js';

/** Softmax along `dim`, shifted by the max for stability. */
export function softmax<P extends TensorPrimitive>(b: Backend<P>, p: P, dim: number): P {
  const e = b.unary('exp', b.binary('sub', p, b.reduce('max', p, [dim])));
  return b.binary('div', e, b.reduce('sum', e, [dim]));
}

/** Log-softmax along `dim`: `x - max - log(sum(exp(x - max)))`. */
export function logSoftmax<P extends TensorPrimitive>(b: Backend<P>, p: P, dim: number): P {
  const shifted = b.binary('sub', p, b.reduce('max', p, [dim]));
  return b.binary('sub', shifted, b.unary('log', b.reduce('sum', b.unary('exp', shifted), [dim])));
}

/** `max(x, 0)` with NaN kept: the values `<= 0` masked to 0. */
export function relu<P extends TensorPrimitive>(b: Backend<P>, p: P): P {
  return b.maskFill(p, b.compareScalar('le', p, 0), 0);
}

/** The ReLU input gradient from its output: `grad` where `output > 0` (or NaN), else 0. */
export function reluBackward<P extends TensorPrimitive>(b: Backend<P>, output: P, grad: P): P {
  return b.maskFill(grad, b.compareScalar('le', output, 0), 0);
}
