import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import * as activation from '../../tensor/activation/index.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';

// Shrinkage activation layers (Burn's `HardShrink`, `SoftShrink`, `Shrink`).

/** Configuration of {@link HardShrink} (Burn's `HardShrinkConfig`). */
export class HardShrinkConfig extends Config.define({
  /** Inputs with `|x| <= lambda` become 0. */
  lambda: z.number().default(0.5),
}) {
  /** Creates the layer. */
  init(): HardShrink {
    return new HardShrink(this);
  }
}

/** `x` where `|x| > lambda`, 0 otherwise (Burn's `HardShrink`). */
export class HardShrink extends Module {
  /** Inputs with `|x| <= lambda` become 0. */
  readonly lambda: number;

  constructor(config: HardShrinkConfig = new HardShrinkConfig()) {
    super();
    this.lambda = config.lambda;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.hardShrink(input, this.lambda);
  }

  override displayAttributes(): Record<string, unknown> {
    return { lambda: this.lambda };
  }
}

/** Configuration of {@link SoftShrink} (Burn's `SoftShrinkConfig`). */
export class SoftShrinkConfig extends Config.define({
  /** Shrinkage amount and dead-zone half width. */
  lambda: z.number().default(0.5),
}) {
  /** Creates the layer. */
  init(): SoftShrink {
    return new SoftShrink(this);
  }
}

/** `x - lambda` where `x > lambda`, `x + lambda` where `x < -lambda`, 0 otherwise (Burn's `SoftShrink`). */
export class SoftShrink extends Module {
  /** Shrinkage amount and dead-zone half width. */
  readonly lambda: number;

  constructor(config: SoftShrinkConfig = new SoftShrinkConfig()) {
    super();
    this.lambda = config.lambda;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.softShrink(input, this.lambda);
  }

  override displayAttributes(): Record<string, unknown> {
    return { lambda: this.lambda };
  }
}

/** Configuration of {@link Shrink} (Burn's `ShrinkConfig`). */
export class ShrinkConfig extends Config.define({
  /** Dead-zone half width. */
  lambda: z.number().default(0.5),
  /** Amount subtracted (added) above (below) the dead zone. */
  bias: z.number().default(0.5),
}) {
  /** Creates the layer. */
  init(): Shrink {
    return new Shrink(this);
  }
}

/** ONNX's Shrink: `x - bias` where `x > lambda`, `x + bias` where `x < -lambda`, 0 otherwise (Burn's `Shrink`). */
export class Shrink extends Module {
  /** Dead-zone half width. */
  readonly lambda: number;
  /** Amount subtracted (added) above (below) the dead zone. */
  readonly bias: number;

  constructor(config: ShrinkConfig = new ShrinkConfig()) {
    super();
    this.lambda = config.lambda;
    this.bias = config.bias;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.shrink(input, this.lambda, this.bias);
  }

  override displayAttributes(): Record<string, unknown> {
    return { lambda: this.lambda, bias: this.bias };
  }
}
