import type { Backend, SliceSpecs, TensorPrimitive } from '../../../backend/backend.js';
import { sumToShape } from './shared.js';

/** Backward rules of the layout ops: each maps the output gradient back to the input layout. */

type P = TensorPrimitive;

/** reshape: reshape the gradient back. */
export const reshapeGrad = (b: Backend, g: P, inputShape: readonly number[]): P => b.reshape(g, inputShape);

/** permute: apply the inverse permutation. */
export function permuteGrad(b: Backend, g: P, axes: readonly number[]): P {
  const inverse = new Array<number>(axes.length);
  axes.forEach((a, i) => (inverse[a] = i));
  return b.permute(g, inverse);
}

/** expand: sum over the broadcast dims. */
export const expandGrad = (b: Backend, g: P, inputShape: readonly number[]): P => sumToShape(b, g, inputShape);

/** slice: the gradient placed into zeros at the sliced region. */
export function sliceGrad(
  b: Backend,
  g: P,
  input: { shape: readonly number[]; dtype: P['dtype'] },
  specs: SliceSpecs,
): P {
  return b.sliceAssign(b.fill(input.shape, 0, input.dtype), specs, g);
}

/** sliceAssign: the target keeps the gradient outside the region; the values get the region. */
export function sliceAssignGrad(
  b: Backend,
  g: P,
  specs: SliceSpecs,
  values: P | { shape: readonly number[]; dtype: P['dtype'] },
): [P, P] {
  return [b.sliceAssign(g, specs, b.fill(values.shape, 0, values.dtype)), b.slice(g, specs)];
}

/** cat: each input gets its slice of the gradient. */
export function catGrad(b: Backend, g: P, sizes: readonly number[], dim: number): P[] {
  let start = 0;
  return sizes.map((size) => {
    const specs = g.shape.map((s, d) => (d === dim ? { start, size, step: 1 } : { start: 0, size: s, step: 1 }));
    start += size;
    return b.slice(g, specs);
  });
}

/** where: the chosen branch gets the gradient, reduced to its shape. */
export function whereGrad(
  b: Backend,
  g: P,
  cond: P,
  aShape: readonly number[],
  bShape: readonly number[],
  needA: boolean,
  needB: boolean,
): [P | undefined, P | undefined] {
  const zero = b.fill([], 0, g.dtype);
  return [
    needA ? sumToShape(b, b.where(cond, g, zero), aShape) : undefined,
    needB ? sumToShape(b, b.where(cond, zero, g), bShape) : undefined,
  ];
}
