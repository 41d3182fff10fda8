import { z } from 'zod';

/**
 * How a loss reduces its elementwise values to one (Burn's `Reduction`): `'mean'`, `'sum'`,
 * `'batchMean'` (the sum divided by the batch size, dim 0; only KL divergence supports it), and
 * `'auto'` — each loss's natural choice: the mean for most, `batchMean` for KL divergence.
 */
export type Reduction = 'mean' | 'sum' | 'batchMean' | 'auto';

/** Reduction constructors, with Burn's variant names. */
export const Reduction = {
  /** The mean of the losses. */
  Mean: 'mean' as Reduction,
  /** The sum of the losses. */
  Sum: 'sum' as Reduction,
  /** The sum of the losses divided by the batch size. */
  BatchMean: 'batchMean' as Reduction,
  /** The loss's default reduction (the mean for every loss but KL divergence). */
  Auto: 'auto' as Reduction,
} as const;

/** The zod schema of a reduction (for config fields). */
export const reductionSchema: z.ZodType<Reduction> = z.enum(['mean', 'sum', 'batchMean', 'auto']);
