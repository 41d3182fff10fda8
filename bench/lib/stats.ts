/** Order statistics of timing samples. */

/** The `q`-quantile (0..1) of `xs`, linearly interpolated. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

/** Median, quartiles and extremes of `xs`. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly q1: number;
  readonly q3: number;
  readonly min: number;
  readonly max: number;
}

/** Summarizes samples (seconds per call). */
export function summarize(xs: readonly number[]): Summary {
  return {
    n: xs.length,
    median: quantile(xs, 0.5),
    q1: quantile(xs, 0.25),
    q3: quantile(xs, 0.75),
    min: Math.min(...xs),
    max: Math.max(...xs),
  };
}
