import { z } from 'zod';
import { BurnError } from '../tensor/errors.js';

/**
 * Padding of the 1-d/2-d/3-d layers (Burn's `PaddingConfig{1,2,3}d`): `'valid'` (none),
 * `'same'` (output size = input size for stride 1; odd kernels), or explicit sizes per dim.
 */
export type Padding = 'valid' | 'same' | { readonly explicit: readonly number[] };

/** The zod schema of a padding (for config fields). */
export const paddingSchema: z.ZodType<Padding> = z.union([z.literal('valid'), z.literal('same'), z.object({ explicit: z.array(z.number().int().nonnegative()) })]);

/** 1-d padding constructors. */
export const PaddingConfig1d = { Valid: 'valid' as Padding, Same: 'same' as Padding, Explicit: (size: number): Padding => ({ explicit: [size] }) } as const;
/** 2-d padding constructors. */
export const PaddingConfig2d = { Valid: 'valid' as Padding, Same: 'same' as Padding, Explicit: (h: number, w: number): Padding => ({ explicit: [h, w] }) } as const;
/** 3-d padding constructors. */
export const PaddingConfig3d = { Valid: 'valid' as Padding, Same: 'same' as Padding, Explicit: (d: number, h: number, w: number): Padding => ({ explicit: [d, h, w] }) } as const;

/** Resolves a padding to per-dim sizes for the given kernel, stride and dilation. */
export function resolvePadding(padding: Padding, kernel: readonly number[], stride: readonly number[], dilation: readonly number[], op: string): number[] {
  if (padding === 'valid') return kernel.map(() => 0);
  if (padding === 'same') {
    return kernel.map((k, i) => {
      const span = dilation[i]! * (k - 1);
      if (span % 2 !== 0 || stride[i] !== 1) {
        throw new BurnError(op, `'same' padding needs stride 1 and an odd effective kernel; got kernel ${k}, stride ${stride[i]}, dilation ${dilation[i]}`);
      }
      return span / 2;
    });
  }
  if (padding.explicit.length !== kernel.length) throw new BurnError(op, `explicit padding [${padding.explicit.join(', ')}] for ${kernel.length} spatial dims`);
  return [...padding.explicit];
}

/** Burn-style display of a padding: `Valid`, `Same`, `Explicit(1, 1)`. */
export function displayPadding(padding: Padding): string {
  if (padding === 'valid') return 'Valid';
  if (padding === 'same') return 'Same';
  return `Explicit(${padding.explicit.join(', ')})`;
}
