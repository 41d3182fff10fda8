import { BurnError } from './errors.js';

/** A probability distribution for `Tensor.random` (Burn's `Distribution`). */
export type Distribution =
  | { readonly kind: 'default' }
  | { readonly kind: 'uniform'; readonly low: number; readonly high: number }
  | { readonly kind: 'normal'; readonly mean: number; readonly std: number }
  | { readonly kind: 'bernoulli'; readonly prob: number };

/** Distribution constructors: `Distribution.Default` is uniform on [0, 1). */
export const Distribution = {
  /** Uniform on [0, 1). */
  Default: { kind: 'default' } as Distribution,
  /** Uniform on [low, high). */
  Uniform(low: number, high: number): Distribution {
    if (!(Number.isFinite(low) && Number.isFinite(high) && low <= high)) {
      throw new BurnError('Distribution.Uniform', `bounds [${low}, ${high}); expected finite low <= high`);
    }
    return { kind: 'uniform', low, high };
  },
  /** Normal with the given mean and standard deviation. */
  Normal(mean: number, std: number): Distribution {
    if (!(Number.isFinite(mean) && Number.isFinite(std) && std >= 0)) {
      throw new BurnError('Distribution.Normal', `mean ${mean}, std ${std}; expected finite values and std >= 0`);
    }
    return { kind: 'normal', mean, std };
  },
  /** 1 with probability `prob`, else 0. */
  Bernoulli(prob: number): Distribution {
    if (!(prob >= 0 && prob <= 1))
      throw new BurnError('Distribution.Bernoulli', `probability ${prob}; expected 0 <= p <= 1`);
    return { kind: 'bernoulli', prob };
  },
} as const;
