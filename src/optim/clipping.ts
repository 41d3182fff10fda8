import { z } from 'zod';
import type { FloatDType } from '../core/dtype.js';
import { BurnError } from '../core/errors.js';
import type { Float } from '../tensor/kind.js';
import { Tensor } from '../tensor/tensor.js';

/**
 * Gradient clipping settings (Burn's `GradientClippingConfig` enum), as plain tagged values so
 * optimizer configs can hold and save them: `GradientClippingConfig.Value(0.5)` clamps every
 * component to `[-0.5, 0.5]`; `GradientClippingConfig.Norm(1)` rescales each parameter's gradient
 * to an L2 norm of at most 1. Both apply per parameter, as in Burn (PyTorch's `clip_grad_norm_`
 * uses the norm of all parameters together).
 */
export type GradientClippingConfig =
  | { readonly kind: 'value'; readonly value: number }
  | { readonly kind: 'norm'; readonly value: number };

function checkThreshold(value: number, op: string): number {
  if (!(value > 0) || !Number.isFinite(value))
    throw new BurnError(op, `the threshold must be a positive finite number, got ${value}`);
  return value;
}

/** Gradient clipping constructors. */
export const GradientClippingConfig = {
  /** Clamps each gradient component to `[-threshold, threshold]`. */
  Value: (threshold: number): GradientClippingConfig => ({
    kind: 'value',
    value: checkThreshold(threshold, 'GradientClippingConfig.Value'),
  }),
  /** Rescales each parameter's gradient to an L2 norm of at most `maxNorm`. */
  Norm: (maxNorm: number): GradientClippingConfig => ({
    kind: 'norm',
    value: checkThreshold(maxNorm, 'GradientClippingConfig.Norm'),
  }),
  /** The clipping a config describes (Burn's `init`). */
  init: (config: GradientClippingConfig): GradientClipping => new GradientClipping(config.kind, config.value),
} as const;

const threshold = () => z.number().gt(0, { error: (iss) => `the threshold must be > 0, got ${String(iss.input)}` });

/** The zod schema of a gradient clipping config (for config fields). */
export const gradientClippingSchema: z.ZodType<GradientClippingConfig, GradientClippingConfig> = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('value'), value: threshold() }),
    z.object({ kind: z.literal('norm'), value: threshold() }),
  ],
);

/** Smallest positive normal value of each float dtype (Burn's `finfo().min_positive`). */
const MIN_POSITIVE: Record<FloatDType, number> = {
  f64: 2.2250738585072014e-308,
  f32: 1.1754943508222875e-38,
  bf16: 1.1754943508222875e-38,
  f16: 6.103515625e-5,
};

/** Clips gradients by value or by norm (Burn's `GradientClipping`). */
export class GradientClipping {
  /** @internal Use {@link GradientClipping.Value}, {@link GradientClipping.Norm} or `GradientClippingConfig.init`. */
  constructor(
    readonly kind: 'value' | 'norm',
    readonly threshold: number,
  ) {
    checkThreshold(threshold, 'GradientClipping');
  }

  /** Clamps each component to `[-threshold, threshold]`. */
  static Value(threshold: number): GradientClipping {
    return new GradientClipping('value', threshold);
  }

  /** Rescales a gradient whose L2 norm exceeds `maxNorm` to that norm. */
  static Norm(maxNorm: number): GradientClipping {
    return new GradientClipping('norm', maxNorm);
  }

  /** The clipped gradient (same shape and device). */
  clipGradient<D extends number>(grad: Tensor<D, Float>): Tensor<D, Float> {
    if (this.kind === 'value') {
      // mask_fill keeps NaN (PyTorch's clamp does too).
      return grad
        .maskFill(grad.greater(this.threshold), this.threshold)
        .maskFill(grad.lower(-this.threshold), -this.threshold);
    }
    // coef = min(maxNorm / (‖g‖₂ + tiny), 1), computed on the device (no read-back).
    const dtype = grad.dtype() as FloatDType;
    const norm = grad.square().sum().sqrt();
    const coef = Tensor.full([1], this.threshold, { device: grad.device(), dtype })
      .div(norm.add(MIN_POSITIVE[dtype] ?? MIN_POSITIVE.f32))
      .clampMax(1);
    return grad.mul(coef.reshape(grad.dims().map(() => 1)) as Tensor<D, Float>);
  }
}
