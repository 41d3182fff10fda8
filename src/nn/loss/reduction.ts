/** How a loss reduces over the batch (Burn's `Reduction`). */
export type Reduction = 'mean' | 'sum' | 'batchMean' | 'auto';

/** Reduction constructors: `Mean` (default for `Auto`), `Sum`, `BatchMean` (sum divided by the batch size). */
export const Reduction = {
  Mean: 'mean' as Reduction,
  Sum: 'sum' as Reduction,
  BatchMean: 'batchMean' as Reduction,
  Auto: 'auto' as Reduction,
} as const;
