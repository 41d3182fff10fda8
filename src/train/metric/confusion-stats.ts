import { BurnError } from '../../core/errors.js';
import { formatValue, type Metric, type MetricEntry } from './base.js';
import {
  predictionMask,
  readClassificationBatch,
  resolveConfig,
  type ClassificationBatch,
  type ClassificationMetricConfig,
  type ClassReduction,
  type ConfusionStatsInput,
  type DecisionRule,
} from './classification.js';

/** Per-class confusion counts (length `classes`). */
export interface ConfusionCounts {
  readonly tp: Float64Array;
  readonly fp: Float64Array;
  readonly fn: Float64Array;
  readonly tn: Float64Array;
}

/** The confusion counts of one batch under a decision rule, per class (Burn's `ConfusionStats`). */
export function confusionCounts(batch: ClassificationBatch, rule: DecisionRule): ConfusionCounts {
  const { n, c, labels } = batch;
  const predicted = predictionMask(batch, rule);
  const tp = new Float64Array(c),
    fp = new Float64Array(c),
    fn = new Float64Array(c),
    tn = new Float64Array(c);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < c; j++) {
      const p = predicted[i * c + j]!,
        t = labels[i * c + j]!;
      if (p && t) tp[j]!++;
      else if (p) fp[j]!++;
      else if (t) fn[j]!++;
      else tn[j]!++;
    }
  }
  return { tp, fp, fn, tn };
}

/** Per-class metric values from (tp, fp, fn) arrays of equal length. */
export type ConfusionScore = (tp: Float64Array, fp: Float64Array, fn: Float64Array) => Float64Array;

/** Sums the counts over classes (micro) or keeps them per class (macro), then scores and averages. */
function reduceScore(counts: ConfusionCounts, reduction: ClassReduction, score: ConfusionScore): number {
  if (reduction === 'micro') {
    const sum = (a: Float64Array) => Float64Array.of(a.reduce((x, y) => x + y, 0));
    return score(sum(counts.tp), sum(counts.fp), sum(counts.fn))[0]!;
  }
  const values = [...score(counts.tp, counts.fp, counts.fn)].filter((v) => !Number.isNaN(v));
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * Epoch state of the confusion-matrix metrics (Burn's `ConfusionStatsState`): the counts are summed
 * over the epoch and the metric is computed from the summed counts, so the epoch value is exact
 * (not a mean of batch ratios).
 */
export class ConfusionStatsState {
  private totals: ConfusionCounts | undefined;

  /** Adds a batch's counts; returns the batch value and the epoch value so far. */
  update(
    batch: ConfusionCounts,
    reduction: ClassReduction,
    score: ConfusionScore,
    op: string,
  ): { batch: number; epoch: number } {
    if (!this.totals) {
      this.totals = {
        tp: new Float64Array(batch.tp.length),
        fp: new Float64Array(batch.tp.length),
        fn: new Float64Array(batch.tp.length),
        tn: new Float64Array(batch.tp.length),
      };
    } else if (this.totals.tp.length !== batch.tp.length) {
      throw new BurnError(
        op,
        `a batch with ${batch.tp.length} classes after batches with ${this.totals.tp.length}; expected the same number of classes in every batch of an epoch`,
      );
    }
    for (const key of ['tp', 'fp', 'fn', 'tn'] as const)
      for (let j = 0; j < batch[key].length; j++) this.totals[key][j]! += batch[key][j]!;
    return { batch: reduceScore(batch, reduction, score), epoch: reduceScore(this.totals, reduction, score) };
  }

  /** The summed counts of the epoch so far. */
  counts(): ConfusionCounts | undefined {
    return this.totals;
  }
}

/**
 * Shared implementation of Precision, Recall and FBetaScore: a decision rule turns scores into
 * predictions, confusion counts accumulate over the epoch, values are percentages.
 */
export abstract class ConfusionStatsMetric implements Metric<ConfusionStatsInput> {
  abstract readonly name: string;
  readonly higherIsBetter = true;
  readonly unit = '%';
  /** The decision rule. */
  readonly decisionRule: DecisionRule;
  /** The class reduction. */
  readonly classReduction: ClassReduction;
  private state = new ConfusionStatsState();
  private current: number | undefined;

  constructor(config: ClassificationMetricConfig, op: string) {
    const { rule, reduction } = resolveConfig(config, op);
    this.decisionRule = rule;
    this.classReduction = reduction;
  }

  /** The metric per class (or for the micro totals) from the counts, in [0, 1]. */
  protected abstract score(tp: Float64Array, fp: Float64Array, fn: Float64Array): Float64Array;

  /** A fresh metric with the same configuration. */
  abstract clone(): ConfusionStatsMetric;

  async update(input: ConfusionStatsInput): Promise<MetricEntry> {
    const batch = await readClassificationBatch(input, this.name);
    const counts = confusionCounts(batch, this.decisionRule);
    const score: ConfusionScore = (tp, fp, fn) => this.score(tp, fp, fn).map((v) => 100 * v);
    const { batch: value, epoch } = this.state.update(counts, this.classReduction, score, this.name);
    this.current = Number.isNaN(epoch) ? undefined : epoch;
    return {
      name: this.name,
      formatted: `epoch ${formatValue(epoch, this.unit, 2)} - batch ${formatValue(value, this.unit, 2)}`,
      serialized: `${value},${batch.n}`,
      batch: value,
    };
  }

  value(): number | undefined {
    return this.current;
  }

  clear(): void {
    this.state = new ConfusionStatsState();
    this.current = undefined;
  }
}

/** `a / b` elementwise with 0 where `b` is 0 (Burn masks empty denominators to 1). */
export function safeRatio(a: Float64Array, b: Float64Array): Float64Array {
  return a.map((v, i) => (b[i] === 0 ? 0 : v / b[i]!));
}
