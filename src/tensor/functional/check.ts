import { isFloatDType } from '../../core/dtype.js';
import { BurnError, fmt } from '../../core/errors.js';
import { convOutputSize, dilatedKernel } from '../../core/geometry.js';
import type { Float, Kind } from '../kind.js';
import type { Tensor } from '../tensor.js';

/** A size given once for every spatial dim, or once per spatial dim. */
export type PerDim = number | readonly number[];

/**
 * @internal Normalizes a per-dim option: `undefined` takes `fallback`, a number applies to every
 * one of the `n` dims, a list must have `n` integers; every value must be at least `min`.
 */
export function perDim(
  value: PerDim | undefined,
  fallback: PerDim,
  n: number,
  name: string,
  op: string,
  min: number,
): number[] {
  const v = value ?? fallback;
  const list = typeof v === 'number' ? new Array<number>(n).fill(v) : [...v];
  if (list.length !== n)
    throw new BurnError(
      op,
      `${name} ${fmt(list)} has ${list.length} entries; expected ${n} (one per spatial dim) or a single number`,
    );
  for (const x of list) {
    if (!Number.isInteger(x) || x < min) {
      throw new BurnError(
        op,
        `${name} ${typeof v === 'number' ? v : fmt(list)}; expected ${min === 0 ? 'non-negative' : 'positive'} integers`,
      );
    }
  }
  return list;
}

/** @internal Checks a positive integer option. */
export function positiveInt(value: number, name: string, op: string): number {
  if (!Number.isInteger(value) || value < 1) throw new BurnError(op, `${name} ${value}; expected a positive integer`);
  return value;
}

/** @internal Checks a tensor's rank, naming the expected layout. */
export function expectRank(t: Tensor<number, Kind>, rank: number, name: string, op: string, layout: string): void {
  const shape = t.primitive.shape;
  if (shape.length !== rank)
    throw new BurnError(op, `${name} of shape ${fmt(shape)} has rank ${shape.length}; expected rank ${rank} ${layout}`);
}

/** @internal Checks that `t` is a Float tensor on `like`'s device. */
export function expectFloatOn(like: Tensor<number, Float>, t: Tensor<number, Kind>, name: string, op: string): void {
  like.sameDevice(t, op);
  if (!isFloatDType(t.primitive.dtype)) {
    throw new BurnError(op, `${name} must be a Float tensor, got ${t.primitive.dtype}`);
  }
}

/** @internal Checks an optional 1-d per-channel tensor (bias, scale, statistics) of `size` entries. */
export function expectVector(
  like: Tensor<number, Float>,
  t: Tensor<1, Float> | undefined,
  size: number,
  name: string,
  op: string,
): void {
  if (t === undefined) return;
  expectFloatOn(like, t, name, op);
  const s = t.primitive.shape;
  if (s.length !== 1 || s[0] !== size) throw new BurnError(op, `${name} of shape ${fmt(s)}; expected [${size}]`);
}

/** @internal Output size of a sliding window along one dim; throws when no window fits. */
export function windowOut(
  op: string,
  dim: number,
  size: number,
  kernel: number,
  stride: number,
  padding: number,
  dilation: number,
): number {
  const out = convOutputSize(size, kernel, stride, padding, dilation);
  if (out < 1) {
    throw new BurnError(
      op,
      `spatial dim ${dim} of size ${size} (padding ${padding}) is smaller than the dilated kernel ${dilatedKernel(kernel, dilation)}; expected at least one output position`,
    );
  }
  return out;
}
