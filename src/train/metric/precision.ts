import type { ClassificationMetricConfig, ClassReduction } from './classification.js';
import { reductionName, ruleName } from './classification.js';
import { ConfusionStatsMetric, safeRatio } from './confusion-stats.js';

/** Options of the binary classification metrics. */
export interface BinaryMetricOptions {
  /** A sample is predicted positive when its score is greater than this (default 0.5). */
  readonly threshold?: number;
}

/** Options of the multiclass classification metrics. */
export interface MulticlassMetricOptions {
  /** The number of highest scores counted as predicted (default 1: the argmax). */
  readonly topK?: number;
  /** Default `macro`. */
  readonly classReduction?: ClassReduction;
}

/** Options of the multi-label classification metrics. */
export interface MultilabelMetricOptions {
  /** A label is predicted when its score is greater than this (default 0.5). */
  readonly threshold?: number;
  /** Default `macro`. */
  readonly classReduction?: ClassReduction;
}

/**
 * Precision in percent, `tp / (tp + fp)` (0 for a class never predicted), from the confusion
 * counts summed over the epoch (Burn's `PrecisionMetric`). Named like Burn:
 * `Precision @ TopK(1) [Macro]`.
 */
export class PrecisionMetric extends ConfusionStatsMetric {
  readonly name: string;

  constructor(config: ClassificationMetricConfig = {}) {
    super(config, 'PrecisionMetric');
    this.name = `Precision @ ${ruleName(this.decisionRule)} ${reductionName(this.classReduction)}`;
  }

  /** Binary classification: one score column, targets 0/1. */
  static binary(options: BinaryMetricOptions = {}): PrecisionMetric {
    return new PrecisionMetric({ decisionRule: { threshold: options.threshold ?? 0.5 } });
  }

  /** Multiclass classification from scores or logits (top-k decision). */
  static multiclass(options: MulticlassMetricOptions = {}): PrecisionMetric {
    return new PrecisionMetric({
      decisionRule: { topK: options.topK ?? 1 },
      classReduction: options.classReduction ?? 'macro',
    });
  }

  /** Multi-label classification from probabilities (threshold decision). */
  static multilabel(options: MultilabelMetricOptions = {}): PrecisionMetric {
    return new PrecisionMetric({
      decisionRule: { threshold: options.threshold ?? 0.5 },
      classReduction: options.classReduction ?? 'macro',
    });
  }

  clone(): PrecisionMetric {
    return new PrecisionMetric({ decisionRule: this.decisionRule, classReduction: this.classReduction });
  }

  protected score(tp: Float64Array, fp: Float64Array): Float64Array {
    return safeRatio(
      tp,
      tp.map((v, i) => v + fp[i]!),
    );
  }
}
