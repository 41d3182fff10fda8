import { z } from 'zod';
import { Config } from '../../config/config.js';
import { Module } from '../../module/module.js';
import * as activation from '../../tensor/activation/index.js';
import type { Float } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';

// Smooth activation layers (Burn's `Gelu`, `Sigmoid`, `HardSigmoid`, `LogSigmoid`, `SiLU`,
// `HardSwish`, `Mish`, `Tanh`, `Tanhshrink`, `Softplus`, `Softsign`).

/** Options of {@link Gelu}. */
export interface GeluOptions {
  /** Use the tanh approximation instead of the exact erf form (default false). */
  readonly approximate?: boolean;
}

/** Gaussian error linear unit (Burn's `Gelu`): exact `x · Φ(x)`, or the tanh approximation. */
export class Gelu extends Module {
  /** Whether the tanh approximation is used. */
  readonly approximate: boolean;

  constructor(options: GeluOptions = {}) {
    super();
    this.approximate = options.approximate ?? false;
  }

  /** The tanh-approximated GELU (Burn's `Gelu::new_approximate`). */
  static newApproximate(): Gelu {
    return new Gelu({ approximate: true });
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return this.approximate ? activation.geluApproximate(input) : activation.gelu(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return { approximate: this.approximate };
  }
}

/** `1 / (1 + e^-x)` (Burn's `Sigmoid`). */
export class Sigmoid extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.sigmoid(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** Configuration of {@link HardSigmoid} (Burn's `HardSigmoidConfig`; PyTorch's Hardsigmoid is alpha 1/6). */
export class HardSigmoidConfig extends Config.define({
  /** Slope. */
  alpha: z.number().default(0.2),
  /** Offset. */
  beta: z.number().default(0.5),
}) {
  /** Creates the layer. */
  init(): HardSigmoid {
    return new HardSigmoid(this);
  }
}

/** `max(0, min(1, alpha · x + beta))` (Burn's `HardSigmoid`). */
export class HardSigmoid extends Module {
  /** Slope. */
  readonly alpha: number;
  /** Offset. */
  readonly beta: number;

  constructor(config: HardSigmoidConfig = new HardSigmoidConfig()) {
    super();
    this.alpha = config.alpha;
    this.beta = config.beta;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.hardSigmoid(input, this.alpha, this.beta);
  }

  override displayAttributes(): Record<string, unknown> {
    return { alpha: this.alpha, beta: this.beta };
  }
}

/** `log(sigmoid(x))`, computed stably (Burn's `LogSigmoid`). */
export class LogSigmoid extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.logSigmoid(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** `x · sigmoid(x)` (Burn's `SiLU`, also called swish). */
export class SiLU extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.silu(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** `x · max(0, min(1, x / 6 + 0.5))` (Burn's `HardSwish`). */
export class HardSwish extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.hardSwish(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** `x · tanh(softplus(x))` (Burn's `Mish`). */
export class Mish extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.mish(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** Hyperbolic tangent (Burn's `Tanh`). */
export class Tanh extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.tanh(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/** `x - tanh(x)` (Burn's `Tanhshrink`). */
export class Tanhshrink extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.tanhshrink(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}

/**
 * Configuration of {@link Softplus} (Burn's `SoftplusConfig`: only `beta`; PyTorch's `threshold`
 * is not needed because the softplus is computed stably for every input).
 */
export class SoftplusConfig extends Config.define({
  /** Sharpness (non-zero). */
  beta: z
    .number()
    .refine((v) => v !== 0, 'beta must be non-zero')
    .default(1),
}) {
  /** Creates the layer. */
  init(): Softplus {
    return new Softplus(this);
  }
}

/** `log(1 + e^(beta · x)) / beta` (Burn's `Softplus`). */
export class Softplus extends Module {
  /** Sharpness. */
  readonly beta: number;

  constructor(config: SoftplusConfig = new SoftplusConfig()) {
    super();
    this.beta = config.beta;
  }

  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.softplus(input, this.beta);
  }

  override displayAttributes(): Record<string, unknown> {
    return { beta: this.beta };
  }
}

/** `x / (1 + |x|)` (Burn's `Softsign`). */
export class Softsign extends Module {
  /** Applies the activation. */
  forward<D extends number>(input: Tensor<D, Float>): Tensor<D, Float> {
    return activation.softsign(input);
  }

  override displayAttributes(): Record<string, unknown> {
    return {};
  }
}
