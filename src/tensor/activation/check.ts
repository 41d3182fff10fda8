import { BurnError } from '../../core/errors.js';
import type { Float } from '../kind.js';
import type { Tensor } from '../tensor.js';

/** @internal Checks that `x` is a Float tensor (the types already do; this guards plain JS callers). */
export function expectFloat(x: Tensor<number, Float>, op: string): void {
  x.expectFloat(op);
}

/** @internal Checks that a scalar parameter is a number other than NaN (and non-zero where `nonZero`). */
export function expectScalar(value: number, name: string, op: string, nonZero = false): void {
  if (typeof value !== 'number' || Number.isNaN(value) || (nonZero && value === 0)) {
    throw new BurnError(op, `${name} = ${String(value)}; expected a${nonZero ? ' non-zero' : ''} number`);
  }
}
