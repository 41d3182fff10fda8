import { z } from 'zod';
import { BurnError, fmt } from '../core/errors.js';
import { samePadding } from '../core/geometry.js';

/**
 * Padding of the 1-d/2-d/3-d layers (Burn's `PaddingConfig{1,2,3}d`):
 * - `'valid'`: none;
 * - `'same'`: computed from the input size so that `out = ceil(in / stride)` (the input size at
 *   stride 1); an odd total puts the extra element at the end (bottom/right), as Burn and ONNX;
 * - `{ explicit }`: one size per spatial dim (the same on both sides), or the starts of every dim
 *   followed by their ends (Burn's `Explicit(left, right)` in 1-d and `Explicit(top, left, bottom,
 *   right)` in 2-d).
 */
export type Padding = 'valid' | 'same' | { readonly explicit: readonly number[] };

/** The zod schema of a padding (for config fields). */
export const paddingSchema: z.ZodType<Padding> = z.union([
  z.literal('valid'),
  z.literal('same'),
  z.object({ explicit: z.array(z.number().int().nonnegative()) }),
]);

/** 1-d padding constructors: `Explicit(left, right = left)`. */
export const PaddingConfig1d = {
  Valid: 'valid' as Padding,
  Same: 'same' as Padding,
  Explicit: (left: number, right: number = left): Padding => ({ explicit: [left, right] }),
} as const;

/**
 * 2-d padding constructors: `Explicit(top, left, bottom, right)` as Burn, or `Explicit(h, w)` for
 * the same padding on both sides of each dim.
 */
export const PaddingConfig2d = {
  Valid: 'valid' as Padding,
  Same: 'same' as Padding,
  Explicit: (top: number, left: number, bottom?: number, right?: number): Padding =>
    bottom === undefined && right === undefined
      ? { explicit: [top, left] }
      : { explicit: [top, left, bottom ?? top, right ?? left] },
} as const;

/** 3-d padding constructors: `Explicit(depth, height, width)`, the same on both sides (as Burn). */
export const PaddingConfig3d = {
  Valid: 'valid' as Padding,
  Same: 'same' as Padding,
  Explicit: (depth: number, height: number, width: number): Padding => ({ explicit: [depth, height, width] }),
} as const;

/** Padding resolved for one input: elements added before and after each spatial dim. */
export interface ResolvedPadding {
  readonly start: number[];
  readonly end: number[];
}

/** Checks a padding against the layer's number of spatial dims (at config/init time). */
export function checkPadding(padding: Padding, nd: number, op: string, allowAsymmetric = true): void {
  if (typeof padding === 'string') return;
  const n = padding.explicit.length;
  if (n !== nd && !(allowAsymmetric && n === 2 * nd)) {
    const want = allowAsymmetric
      ? `${nd} (one per spatial dim) or ${2 * nd} (starts, then ends)`
      : `${nd} (one per spatial dim)`;
    throw new BurnError(op, `explicit padding ${fmt(padding.explicit)} has ${n} entries; expected ${want}`);
  }
}

/**
 * Resolves a padding for an input of spatial size `sizes` (Burn's `calculate_padding_*`): the
 * elements to add before and after each spatial dim.
 */
export function resolvePadding(
  padding: Padding,
  sizes: readonly number[],
  kernel: readonly number[],
  stride: readonly number[],
  dilation: readonly number[],
  op: string,
): ResolvedPadding {
  const nd = kernel.length;
  if (padding === 'valid') return { start: new Array<number>(nd).fill(0), end: new Array<number>(nd).fill(0) };
  if (padding === 'same') {
    // Burn ignores the dilation here (its 'same' output shrinks when dilation > 1); burn-ts uses the
    // dilated window, as PyTorch.
    const pairs = kernel.map((k, i) => samePadding(sizes[i]!, k, stride[i]!, dilation[i]!));
    return { start: pairs.map((p) => p[0]), end: pairs.map((p) => p[1]) };
  }
  checkPadding(padding, nd, op);
  const e = padding.explicit;
  return e.length === nd ? { start: [...e], end: [...e] } : { start: e.slice(0, nd), end: e.slice(nd) };
}

/** True when both sides of every dim get the same padding. */
export function isSymmetric(p: ResolvedPadding): boolean {
  return p.start.every((s, i) => s === p.end[i]);
}

/** Burn-style display of a padding: `Valid`, `Same`, `Explicit(1, 1)`. */
export function displayPadding(padding: Padding): string {
  if (padding === 'valid') return 'Valid';
  if (padding === 'same') return 'Same';
  return `Explicit(${padding.explicit.join(', ')})`;
}
