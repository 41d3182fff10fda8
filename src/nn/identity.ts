import { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';

/** Returns its input unchanged (Burn's `Identity`; useful as a placeholder layer). */
export class Identity extends Module {
  /** The input itself. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return input;
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}
