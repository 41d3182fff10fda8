import { BurnError } from '../../core/errors.js';
import type { Metric, MetricEntry } from './base.js';
import {
  readClassificationBatch,
  reductionName,
  type ClassReduction,
  type ConfusionStatsInput,
} from './classification.js';

/** Column views of all accumulated samples: per column, the scores and their 0/1 labels. */
export interface ScoreColumns {
  readonly scores: Float64Array[];
  readonly labels: Uint8Array[];
}

/**
 * Accumulates every score and label of an epoch (Burn's `PredictionAccumulatorState`) for the
 * rank-based metrics, which must be computed over the whole epoch at once.
 */
export class PredictionAccumulator {
  private readonly scores: number[][] = [];
  private readonly labels: number[][] = [];

  /** Number of samples accumulated. */
  get length(): number {
    return this.scores[0]?.length ?? 0;
  }

  /** Appends a batch of `n × c` scores and labels. */
  add(scores: ArrayLike<number>, labels: ArrayLike<number>, n: number, c: number, op: string): void {
    if (this.scores.length === 0)
      for (let j = 0; j < c; j++) {
        this.scores.push([]);
        this.labels.push([]);
      }
    if (this.scores.length !== c)
      throw new BurnError(
        op,
        `a batch with ${c} classes after batches with ${this.scores.length}; expected the same number of classes in every batch of an epoch`,
      );
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < c; j++) {
        this.scores[j]!.push(scores[i * c + j]!);
        this.labels[j]!.push(labels[i * c + j]!);
      }
    }
  }

  /** One column per class (macro), or every score in one column (micro). */
  columns(reduction: ClassReduction): ScoreColumns {
    if (reduction === 'macro')
      return {
        scores: this.scores.map((s) => Float64Array.from(s)),
        labels: this.labels.map((l) => Uint8Array.from(l)),
      };
    return { scores: [Float64Array.from(this.scores.flat())], labels: [Uint8Array.from(this.labels.flat())] };
  }
}

/** Mean of the defined (non-NaN) values; `fallback` when none is defined. */
export function meanDefined(values: readonly number[], fallback: number): number {
  const ok = values.filter((v) => !Number.isNaN(v));
  return ok.length === 0 ? fallback : ok.reduce((a, b) => a + b, 0) / ok.length;
}

/**
 * Shared implementation of AUROC and AUC-PR: scores are accumulated over the epoch and the metric
 * is computed once over all of them (one-vs-rest per class, averaged by the class reduction).
 * Batches have no value of their own, so entries show `N/A` mid-epoch and nothing is logged until
 * the epoch value (Burn's behaviour).
 */
export abstract class RankMetric implements Metric<ConfusionStatsInput> {
  readonly name: string;
  readonly higherIsBetter = true;
  readonly unit = '%';
  readonly epochOnly = true;
  private acc = new PredictionAccumulator();
  private cached: number | undefined;

  constructor(
    prefix: string,
    readonly classReduction: ClassReduction,
  ) {
    if (classReduction !== 'micro' && classReduction !== 'macro')
      throw new BurnError(prefix, `class reduction ${String(classReduction)}; expected 'micro' or 'macro'`);
    this.name = `${prefix} ${reductionName(classReduction)}`;
  }

  /** The metric of one column in [0, 1]; NaN when undefined for that column. */
  protected abstract column(scores: Float64Array, labels: Uint8Array): number;
  /** The value reported when no column is defined. */
  protected abstract readonly undefinedValue: number;
  /** A fresh metric with the same configuration. */
  abstract clone(): RankMetric;

  async update(input: ConfusionStatsInput): Promise<MetricEntry> {
    const { n, c, scores, labels } = await readClassificationBatch(input, this.name);
    this.acc.add(scores, labels, n, c, this.name);
    this.cached = undefined;
    return { name: this.name, formatted: `epoch N/A ${this.unit} - batch N/A ${this.unit}`, serialized: '' };
  }

  /** The value over every sample accumulated this epoch (computed on demand, then cached). */
  value(): number | undefined {
    if (this.acc.length === 0) return undefined;
    if (this.cached === undefined) {
      const { scores, labels } = this.acc.columns(this.classReduction);
      this.cached =
        100 *
        meanDefined(
          scores.map((s, j) => this.column(s, labels[j]!)),
          this.undefinedValue,
        );
    }
    return this.cached;
  }

  clear(): void {
    this.acc = new PredictionAccumulator();
    this.cached = undefined;
  }
}
