import type { ClassReduction } from './classification.js';
import { RankMetric } from './prediction-accumulator.js';

/**
 * Average precision of one column, `Σₙ (Rₙ − Rₙ₋₁)·Pₙ` over the distinct score thresholds
 * (descending; tied scores form one threshold, as scikit-learn's `average_precision_score`); NaN
 * without positives.
 */
export function averagePrecision(scores: Float64Array, labels: Uint8Array): number {
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]!);
  let total = 0;
  for (let i = 0; i < n; i++) total += labels[i]!;
  if (total === 0) return Number.NaN;
  let tp = 0,
    seen = 0,
    ap = 0,
    prevRecall = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    for (let k = i; k <= j; k++) tp += labels[order[k]!]!;
    seen = j + 1;
    const recall = tp / total;
    ap += (recall - prevRecall) * (tp / seen);
    prevRecall = recall;
    i = j + 1;
  }
  return ap;
}

/**
 * AUC-PR in percent (Burn's `AucPrMetric`, named `AUC-PR [Macro]`): average precision over every
 * score of the epoch, one-vs-rest per class. Macro averages the classes that have positives; micro
 * treats every (sample, class) score as one binary problem; 50 % when undefined everywhere (Burn's
 * neutral fallback). With distinct scores this is Burn's estimator exactly; with ties it groups
 * them like scikit-learn.
 */
export class AucPrMetric extends RankMetric {
  protected readonly undefinedValue = 0.5;

  constructor(classReduction: ClassReduction = 'macro') {
    super('AUC-PR', classReduction);
  }

  /** Binary classification (one score column). */
  static binary(): AucPrMetric {
    return new AucPrMetric('macro');
  }

  /** Multiclass classification (class-index targets). */
  static multiclass(options: { readonly classReduction?: ClassReduction } = {}): AucPrMetric {
    return new AucPrMetric(options.classReduction ?? 'macro');
  }

  /** Multi-label classification (0/1 targets per label). */
  static multilabel(options: { readonly classReduction?: ClassReduction } = {}): AucPrMetric {
    return new AucPrMetric(options.classReduction ?? 'macro');
  }

  clone(): AucPrMetric {
    return new AucPrMetric(this.classReduction);
  }

  protected column(scores: Float64Array, labels: Uint8Array): number {
    return averagePrecision(scores, labels);
  }
}
