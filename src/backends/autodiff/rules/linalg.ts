import type { Backend, TensorPrimitive } from '../../../backend/backend.js';
import type { Saved } from '../graph.js';
import { sumToShape } from './shared.js';

/** Backward rule of matmul. */

type P = TensorPrimitive;

function swapLast(b: Backend, p: P): P {
  const r = p.shape.length;
  const axes = p.shape.map((_, i) => (i === r - 2 ? r - 1 : i === r - 1 ? r - 2 : i));
  return b.permute(p, axes);
}

/** matmul: dA = G Bᵀ, dB = Aᵀ G, each summed over broadcast batch dims; reads both operands. */
export function matmulGrad(
  b: Backend,
  g: P,
  { lhs, rhs }: Saved<'lhs' | 'rhs'>,
  needs: readonly boolean[],
): [P | undefined, P | undefined] {
  return [
    needs[0] ? sumToShape(b, b.matmul(g, swapLast(b, rhs)), lhs.shape) : undefined,
    needs[1] ? sumToShape(b, b.matmul(swapLast(b, lhs), g), rhs.shape) : undefined,
  ];
}
