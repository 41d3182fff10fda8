import type { Split } from '../logger.js';

/** Where the loop is, for progress display. */
export interface TrainingProgress {
  readonly split: Split;
  readonly epoch: number;
  readonly epochTotal: number;
  readonly iteration: number;
  readonly itemsProcessed: number;
  readonly itemsTotal: number;
}

/** The latest state of one metric. */
export interface MetricState {
  readonly name: string;
  /** Display text, e.g. `epoch 93.1 % - batch 95.3 %`. */
  readonly formatted: string;
  /** The epoch value so far (numeric metrics; undefined mid-epoch for epoch-only metrics such as AUROC). */
  readonly value: number | undefined;
  readonly unit: string | undefined;
  /** This batch's value, for per-iteration plots. */
  readonly batch?: number | undefined;
  /** Whether larger values are better. */
  readonly higherIsBetter?: boolean;
}

/** Per-epoch metric values, per split, for plots and summaries. */
export type MetricHistory = Record<Split, Map<string, number[]>>;

/** Shows training as it runs (Burn's `MetricsRenderer`): a dashboard on a TTY, lines otherwise. */
export interface MetricsRenderer {
  /** A metric was updated. */
  update(split: Split, metric: MetricState): void;
  /** Progress moved (called once per step). */
  render(progress: TrainingProgress): void;
  /** An epoch of `split` ended; `history` holds every epoch value so far. */
  epochEnd(split: Split, epoch: number, history: MetricHistory): void;
  /** Lets the renderer ask the loop to stop gracefully (e.g. `q` in the dashboard). */
  onStopRequest?(stop: () => void): void;
  /** Training ended; release the terminal. */
  close(summary: string | undefined): Promise<void> | void;
}
