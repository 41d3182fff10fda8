import { BurnError } from '../../core/errors.js';
import type { ClassificationMetricConfig } from './classification.js';
import { reductionName, ruleName } from './classification.js';
import { ConfusionStatsMetric } from './confusion-stats.js';
import type { BinaryMetricOptions, MulticlassMetricOptions, MultilabelMetricOptions } from './precision.js';

/** The F-beta weight: `beta > 1` favours recall, `beta < 1` precision. */
export interface FBetaOptions {
  readonly beta: number;
}

/**
 * The F-beta score in percent, `(1 + β²)·tp / ((1 + β²)·tp + β²·fn + fp)`, from the confusion counts
 * summed over the epoch (Burn's `FBetaScoreMetric`; a class with no positive and no prediction is
 * undefined and left out of the macro average, as in Burn). Named like Burn:
 * `FBetaScore (1) @ TopK(1) [Macro]`.
 */
export class FBetaScoreMetric extends ConfusionStatsMetric {
  readonly name: string;
  /** The beta weight. */
  readonly beta: number;

  constructor(beta: number, config: ClassificationMetricConfig = {}) {
    super(config, 'FBetaScoreMetric');
    if (!(Number.isFinite(beta) && beta > 0))
      throw new BurnError('FBetaScoreMetric', `beta ${beta}; expected a positive finite number`);
    this.beta = beta;
    this.name = `FBetaScore (${beta}) @ ${ruleName(this.decisionRule)} ${reductionName(this.classReduction)}`;
  }

  /** Binary classification: one score column, targets 0/1. */
  static binary(options: FBetaOptions & BinaryMetricOptions): FBetaScoreMetric {
    return new FBetaScoreMetric(options.beta, { decisionRule: { threshold: options.threshold ?? 0.5 } });
  }

  /** Multiclass classification from scores or logits (top-k decision). */
  static multiclass(options: FBetaOptions & MulticlassMetricOptions): FBetaScoreMetric {
    return new FBetaScoreMetric(options.beta, {
      decisionRule: { topK: options.topK ?? 1 },
      classReduction: options.classReduction ?? 'macro',
    });
  }

  /** Multi-label classification from probabilities (threshold decision). */
  static multilabel(options: FBetaOptions & MultilabelMetricOptions): FBetaScoreMetric {
    return new FBetaScoreMetric(options.beta, {
      decisionRule: { threshold: options.threshold ?? 0.5 },
      classReduction: options.classReduction ?? 'macro',
    });
  }

  clone(): FBetaScoreMetric {
    return new FBetaScoreMetric(this.beta, { decisionRule: this.decisionRule, classReduction: this.classReduction });
  }

  protected score(tp: Float64Array, fp: Float64Array, fn: Float64Array): Float64Array {
    const b2 = this.beta * this.beta;
    return tp.map((v, i) => ((1 + b2) * v) / ((1 + b2) * v + b2 * fn[i]! + fp[i]!));
  }
}
