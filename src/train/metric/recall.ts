import type { ClassificationMetricConfig } from './classification.js';
import { reductionName, ruleName } from './classification.js';
import { ConfusionStatsMetric, safeRatio } from './confusion-stats.js';
import type { BinaryMetricOptions, MulticlassMetricOptions, MultilabelMetricOptions } from './precision.js';

/**
 * Recall in percent, `tp / (tp + fn)` (0 for a class that never occurs), from the confusion counts
 * summed over the epoch (Burn's `RecallMetric`). Named like Burn: `Recall @ TopK(1) [Macro]`.
 */
export class RecallMetric extends ConfusionStatsMetric {
  readonly name: string;

  constructor(config: ClassificationMetricConfig = {}) {
    super(config, 'RecallMetric');
    this.name = `Recall @ ${ruleName(this.decisionRule)} ${reductionName(this.classReduction)}`;
  }

  /** Binary classification: one score column, targets 0/1. */
  static binary(options: BinaryMetricOptions = {}): RecallMetric {
    return new RecallMetric({ decisionRule: { threshold: options.threshold ?? 0.5 } });
  }

  /** Multiclass classification from scores or logits (top-k decision). */
  static multiclass(options: MulticlassMetricOptions = {}): RecallMetric {
    return new RecallMetric({
      decisionRule: { topK: options.topK ?? 1 },
      classReduction: options.classReduction ?? 'macro',
    });
  }

  /** Multi-label classification from probabilities (threshold decision). */
  static multilabel(options: MultilabelMetricOptions = {}): RecallMetric {
    return new RecallMetric({
      decisionRule: { threshold: options.threshold ?? 0.5 },
      classReduction: options.classReduction ?? 'macro',
    });
  }

  clone(): RecallMetric {
    return new RecallMetric({ decisionRule: this.decisionRule, classReduction: this.classReduction });
  }

  protected score(tp: Float64Array, _fp: Float64Array, fn: Float64Array): Float64Array {
    return safeRatio(
      tp,
      tp.map((v, i) => v + fn[i]!),
    );
  }
}
