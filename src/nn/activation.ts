import { Module } from '../module/module.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';

/** `max(x, 0)` as a module (Burn's `Relu`). */
export class Relu extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return input.relu();
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}
