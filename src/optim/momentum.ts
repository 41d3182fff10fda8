import { z } from 'zod';
import { Config } from '../config/config.js';
import type { Float } from '../tensor/kind.js';
import type { Tensor } from '../tensor/tensor.js';
import { nonNegative, unitClosed } from './schema.js';

/** Configuration of SGD-style momentum (Burn's `MomentumConfig`; note Burn's default dampening 0.1). */
export class MomentumConfig extends Config.define({
  /** Momentum factor. */
  momentum: nonNegative().default(0.9),
  /** Dampening of the gradient added to the velocity. */
  dampening: unitClosed().default(0.1),
  /** Whether to use Nesterov momentum. */
  nesterov: z.boolean().default(false),
}) {}

/** The momentum state of one parameter: its velocity. */
export type MomentumState = { readonly velocity: Tensor<number, Float> };

/**
 * SGD momentum (Burn's `Momentum`): `v = momentum·v + (1 − dampening)·g` (`v = g` on the first
 * step), and the update direction is `v`, or `g + momentum·v` with Nesterov.
 */
export class Momentum {
  private readonly momentum: number;
  private readonly dampening: number;
  private readonly nesterov: boolean;

  constructor(config: MomentumConfig) {
    this.momentum = config.momentum;
    this.dampening = config.dampening;
    this.nesterov = config.nesterov;
  }

  /** The direction for `grad` and the new state. */
  transform<D extends number>(
    grad: Tensor<D, Float>,
    state: MomentumState | undefined,
  ): { grad: Tensor<D, Float>; state: MomentumState } {
    const velocity =
      state === undefined
        ? grad
        : grad.mul(1 - this.dampening).add((state.velocity as Tensor<D, Float>).mul(this.momentum));
    const out = this.nesterov ? velocity.mul(this.momentum).add(grad) : velocity;
    return { grad: out, state: { velocity } };
  }
}
