/** Where training is when a metric updates (Burn's `MetricMetadata`). */
export interface MetricMetadata {
  /** Items processed so far in this epoch and in total. */
  readonly progress: { readonly itemsProcessed: number; readonly itemsTotal: number };
  /** 1-based epoch and the number of epochs. */
  readonly epoch: number;
  readonly epochTotal: number;
  /** 1-based iteration within the epoch. */
  readonly iteration: number;
  /** The learning rate of this step (training only). */
  readonly lr: number | undefined;
}

/** One metric update: a display string and the line written to the metric log. */
export interface MetricEntry {
  readonly name: string;
  /** e.g. `epoch 93.1 % - batch 95.3 %`. */
  readonly formatted: string;
  /**
   * The log line: `value,count` for numeric metrics (Burn's aggregated entry); empty when there is
   * nothing to log yet (rank-based metrics mid-epoch).
   */
  readonly serialized: string;
  /** This batch's value, for per-iteration plots (absent when a batch has no meaningful value). */
  readonly batch?: number;
}

/**
 * A training metric (Burn's `Metric`): updated with each step's output item, cleared at the end
 * of each epoch. Numeric metrics report a running, batch-size weighted epoch value.
 */
export interface Metric<I = unknown> {
  /** Display and file name (`Accuracy`, `Loss`, …). */
  readonly name: string;
  /** For numeric metrics: whether larger values are better (drives checkpoint strategies and early stopping). */
  readonly higherIsBetter: boolean;
  /** Unit shown next to values (`%`, `items/s`, …). */
  readonly unit: string | undefined;
  /**
   * True when the value exists only over a whole epoch (rank-based metrics such as AUROC, whose
   * `value()` recomputes over every accumulated score): the loop reads `value()` at epoch ends only.
   */
  readonly epochOnly?: boolean;
  /**
   * True for a setting of the run rather than a measure of the model (the learning rate): it is
   * tracked on the training split only, and the summary gives it no best epoch.
   */
  readonly trainOnly?: boolean;
  /** Updates with one step's output. */
  update(input: I, meta: MetricMetadata): Promise<MetricEntry>;
  /** The epoch value so far (undefined when nothing was recorded or for text metrics). */
  value(): number | undefined;
  /** Resets the epoch state. */
  clear(): void;
  /**
   * A fresh metric with the same configuration (the validation split gets its own copy). Without
   * it, the loop copies the metric's own fields.
   */
  clone?(): Metric<I>;
}

/** Formats a number for display with up to `digits` decimals. */
export function formatValue(v: number, unit: string | undefined, digits = 3): string {
  const text = Number.isFinite(v)
    ? Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0)
      ? v.toExponential(2)
      : v.toFixed(digits)
    : String(v);
  return unit ? `${text} ${unit}` : text;
}

/**
 * Shared state of a numeric metric: a batch-size weighted mean over the epoch plus the last
 * batch's value (Burn's `NumericMetricState`).
 */
export abstract class NumericMetric<I> implements Metric<I> {
  abstract readonly name: string;
  readonly higherIsBetter: boolean = true;
  readonly unit: string | undefined = undefined;
  private sum = 0;
  private count = 0;

  abstract update(input: I, meta: MetricMetadata): Promise<MetricEntry>;

  /** Records one batch value with its weight and returns the entry. */
  protected record(value: number, weight: number): MetricEntry {
    this.sum += value * weight;
    this.count += weight;
    const epoch = this.sum / this.count;
    return {
      name: this.name,
      formatted: `epoch ${formatValue(epoch, this.unit)} - batch ${formatValue(value, this.unit)}`,
      serialized: `${value},${weight}`,
      batch: value,
    };
  }

  value(): number | undefined {
    return this.count > 0 ? this.sum / this.count : undefined;
  }

  clear(): void {
    this.sum = 0;
    this.count = 0;
  }
}
