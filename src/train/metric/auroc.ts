import type { ClassReduction } from './classification.js';
import { RankMetric } from './prediction-accumulator.js';

/**
 * The area under the ROC curve of one column: the Mann–Whitney statistic
 * `(#(positive > negative) + ½·#ties) / (P·N)` from average ranks (O(n log n)); NaN without both
 * positives and negatives.
 */
export function rocAuc(scores: Float64Array, labels: Uint8Array): number {
  const n = scores.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  let positives = 0,
    rankSum = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    const rank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++)
      if (labels[order[k]!]) {
        positives++;
        rankSum += rank;
      }
    i = j + 1;
  }
  const negatives = n - positives;
  if (positives === 0 || negatives === 0) return Number.NaN;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

/**
 * AUROC in percent (Burn's `AurocMetric`, named `AUROC [Macro]`): the area under the ROC curve
 * over every score of the epoch, one-vs-rest per class. Macro averages the classes that have both
 * positives and negatives; micro treats every (sample, class) score as one binary problem; 50 %
 * (chance) when undefined everywhere. Equals scikit-learn's `roc_auc_score` (ties count ½).
 */
export class AurocMetric extends RankMetric {
  protected readonly undefinedValue = 0.5;

  constructor(classReduction: ClassReduction = 'macro') {
    super('AUROC', classReduction);
  }

  /** Binary classification (one score column). */
  static binary(): AurocMetric {
    return new AurocMetric('macro');
  }

  /** Multiclass classification (class-index targets). */
  static multiclass(options: { readonly classReduction?: ClassReduction } = {}): AurocMetric {
    return new AurocMetric(options.classReduction ?? 'macro');
  }

  /** Multi-label classification (0/1 targets per label). */
  static multilabel(options: { readonly classReduction?: ClassReduction } = {}): AurocMetric {
    return new AurocMetric(options.classReduction ?? 'macro');
  }

  clone(): AurocMetric {
    return new AurocMetric(this.classReduction);
  }

  protected column(scores: Float64Array, labels: Uint8Array): number {
    return rocAuc(scores, labels);
  }
}
