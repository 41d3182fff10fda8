import { isFloatDType, isIntDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import type { Int, Kind } from '../../tensor/kind.js';
import { sameShape } from '../../core/shape.js';
import type { Tensor } from '../../tensor/tensor.js';

// Input checks shared by the losses: each names the loss, the argument and what was expected.

/** @internal Throws unless `t` is a Float tensor. */
export function expectFloatArg(t: Tensor<number, Kind>, layer: string, name: string): void {
  if (!isFloatDType(t.dtype())) throw new BurnError(layer, `${name} must be a Float tensor, got ${t.dtype()}`);
}

/** @internal Throws unless `t` is an Int tensor (class indices, labels or lengths). */
export function expectIntArg(t: Tensor<number, Kind>, layer: string, name: string, what: string): void {
  if (!isIntDType(t.dtype())) throw new BurnError(layer, `${name} must be an Int tensor of ${what}, got ${t.dtype()}`);
}

/** @internal Throws unless `t` has rank `rank`; `layout` describes the expected dims (`[batch, classes]`). */
export function expectRank(t: Tensor<number, Kind>, rank: number, layer: string, name: string, layout: string): void {
  if (t.dims().length !== rank) throw new BurnError(layer, `${name} of shape ${fmt(t.dims())}; expected ${layout}`);
}

/** @internal Throws unless `a` and `b` have the same shape. */
export function expectSameShape(
  a: Tensor<number, Kind>,
  b: Tensor<number, Kind>,
  layer: string,
  nameA: string,
  nameB: string,
): void {
  if (!sameShape(a.dims(), b.dims())) {
    throw new BurnError(
      layer,
      `${nameA} of shape ${fmt(a.dims())} and ${nameB} of shape ${fmt(b.dims())}; expected equal shapes`,
    );
  }
}

/** @internal Throws unless the elementwise-loss arguments are Float tensors of one shape. */
export function expectPair(
  a: Tensor<number, Kind>,
  b: Tensor<number, Kind>,
  layer: string,
  nameA: string,
  nameB: string,
): void {
  expectFloatArg(a, layer, nameA);
  expectFloatArg(b, layer, nameB);
  expectSameShape(a, b, layer, nameA, nameB);
}

/**
 * @internal The values of `t` where the device can read them synchronously (CPU), else undefined:
 * data-dependent checks (negative targets, lengths) run where they cost no device round trip,
 * as Burn runs them only in debug builds.
 */
export function peekValues(t: Tensor<number, Kind>): number[] | undefined {
  try {
    return Array.from(t.toDataSync().toArray(), Number);
  } catch (e) {
    if (e instanceof BurnError && e.op === 'toDataSync') return undefined;
    throw e;
  }
}

/**
 * @internal Class indices checked to lie in `[0, classes)`: read and checked at once where the
 * device can (CPU), else returned with a device-side check (WebGPU, remote), so that reads of the
 * loss throw this error rather than one of the gather or one-hot inside it (which would name
 * `gather`, and let a one-hot wrap a negative index).
 */
export function expectClassIndices<D extends number>(
  target: Tensor<D, Int>,
  classes: number,
  layer: string,
): Tensor<D, Int> {
  const error = (bad: number) =>
    new BurnError(
      layer,
      `target class index ${bad} is out of range for ${classes} classes; expected 0 <= index < ${classes}`,
    );
  const values = peekValues(target);
  if (values) {
    const bad = values.find((v) => !(v >= 0 && v < classes));
    if (bad !== undefined) throw error(bad);
    return target;
  }
  const b = target.backend;
  return b.checkIndices ? target.wrap<D, Int>(b.checkIndices(target.primitive, 0, classes, error)) : target;
}
