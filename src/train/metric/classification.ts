import { BurnError, fmt } from '../../core/errors.js';
import type { NumericArray } from '../../core/element.js';
import type { Float, Int } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';

/**
 * How per-class statistics become one number (Burn's `ClassReduction`): `micro` sums the counts
 * over every class first, `macro` computes the metric per class and averages (classes where it is
 * undefined are left out).
 */
export type ClassReduction = 'micro' | 'macro';

/**
 * How scores become predicted classes (Burn's `DecisionRule`): a class is predicted when its score
 * is strictly greater than `threshold` (binary, multi-label), or when it is among the `topK` highest
 * scores of its sample (multiclass; `topK: 1` is the argmax).
 */
export type DecisionRule = { readonly threshold: number } | { readonly topK: number };

/** Decision rule and class reduction of a classification metric (Burn's `ClassificationMetricConfig`). */
export interface ClassificationMetricConfig {
  /** Default `{ threshold: 0.5 }`. */
  readonly decisionRule?: DecisionRule;
  /** Default `macro`. */
  readonly classReduction?: ClassReduction;
}

/**
 * What the confusion-matrix and ranking metrics read (Burn's `ConfusionStatsInput`, adapted from
 * the outputs as Burn's adaptors do): scores `[batch, classes]` and either class indices `[batch]`
 * (multiclass, one-hot encoded here; with a single score column they are 0/1 binary labels) or
 * 0/1 labels `[batch, classes]` (multi-label). `ClassificationOutput` and
 * `MultiLabelClassificationOutput` items fit.
 */
export interface ConfusionStatsInput {
  readonly output: Tensor<2, Float>;
  readonly targets: Tensor<1, Int> | Tensor<2, Int>;
}

/** One batch on the host: `n` samples of `c` scores and 0/1 labels, row-major. */
export interface ClassificationBatch {
  readonly n: number;
  readonly c: number;
  readonly scores: NumericArray;
  readonly labels: Uint8Array;
}

/** Reads scores and one-hot/multi-hot labels of a batch, checking shapes and class indices. */
export async function readClassificationBatch(input: ConfusionStatsInput, op: string): Promise<ClassificationBatch> {
  const dims = input.output.dims();
  const tdims: number[] = input.targets.dims(); // class indices [n] or 0/1 labels [n, c]
  if (dims.length !== 2) throw new BurnError(op, `outputs ${fmt(dims)}; expected [batch, classes]`);
  const [n, c] = dims as [number, number];
  const scores = (await input.output.toData()).toArray();
  const targets = (await input.targets.toData()).toArray();
  const labels = new Uint8Array(n * c);
  if (tdims.length === 1 && tdims[0] === n) {
    for (let i = 0; i < n; i++) {
      const t = targets[i]!;
      if (c === 1) {
        labels[i] = t !== 0 ? 1 : 0;
      } else {
        if (!(Number.isInteger(t) && t >= 0 && t < c))
          throw new BurnError(op, `target class ${t} at sample ${i}; expected an index in [0, ${c})`);
        labels[i * c + t] = 1;
      }
    }
  } else if (tdims.length === 2 && tdims[0] === n && tdims[1] === c) {
    for (let i = 0; i < n * c; i++) labels[i] = targets[i] !== 0 ? 1 : 0;
  } else {
    throw new BurnError(
      op,
      `outputs ${fmt(dims)} and targets ${fmt(tdims)}; expected targets [${n}] (class indices) or [${n}, ${c}] (0/1 labels)`,
    );
  }
  return { n, c, scores, labels };
}

/** The predicted 0/1 mask `[n, c]` of a batch under a decision rule (Burn's `ConfusionStats` prediction mask). */
export function predictionMask(batch: ClassificationBatch, rule: DecisionRule): Uint8Array {
  const { n, c, scores } = batch;
  const mask = new Uint8Array(n * c);
  if ('threshold' in rule) {
    const t = thresholdFor(scores, rule.threshold);
    for (let i = 0; i < n * c; i++) mask[i] = scores[i]! > t ? 1 : 0;
    return mask;
  }
  const k = Math.min(rule.topK, c);
  for (let i = 0; i < n; i++) for (const j of topIndices(scores, i * c, c, k)) mask[i * c + j] = 1;
  return mask;
}

/**
 * The threshold in the precision of the scores (f32 scores compare with the f32 threshold, as
 * Burn's `greater_scalar` on an f32 tensor: a score of 0.3 is not above a threshold of 0.3).
 */
export function thresholdFor(scores: NumericArray, threshold: number): number {
  return scores instanceof Float32Array ? Math.fround(threshold) : threshold;
}

/** The indices of the `k` highest of `c` scores starting at `offset` (ties: lower index first). */
export function topIndices(scores: ArrayLike<number>, offset: number, c: number, k: number): number[] {
  const idx = Array.from({ length: c }, (_, j) => j);
  idx.sort((a, b) => scores[offset + b]! - scores[offset + a]! || a - b);
  return idx.slice(0, k);
}

/** Checks a decision rule and reduction, returning them with Burn's defaults filled in. */
export function resolveConfig(
  config: ClassificationMetricConfig,
  op: string,
): { rule: DecisionRule; reduction: ClassReduction } {
  const rule = config.decisionRule ?? { threshold: 0.5 };
  if ('topK' in rule) {
    if (!(Number.isInteger(rule.topK) && rule.topK > 0))
      throw new BurnError(op, `topK ${rule.topK}; expected a positive integer`);
  } else if (!Number.isFinite(rule.threshold)) {
    throw new BurnError(op, `threshold ${rule.threshold}; expected a finite number`);
  }
  const reduction = config.classReduction ?? 'macro';
  if (reduction !== 'micro' && reduction !== 'macro')
    throw new BurnError(op, `class reduction ${String(reduction)}; expected 'micro' or 'macro'`);
  return { rule, reduction };
}

/** A number as Rust's `{:?}` writes an f64 (`0.5`, `1.0`), for Burn's metric names. */
export function rustDebugFloat(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

/** Burn's display of a decision rule and reduction: `Threshold(0.5)`, `TopK(1)`, `[Macro]`. */
export function ruleName(rule: DecisionRule): string {
  return 'topK' in rule ? `TopK(${rule.topK})` : `Threshold(${rustDebugFloat(rule.threshold)})`;
}

/** `[Micro]` / `[Macro]`. */
export function reductionName(reduction: ClassReduction): string {
  return reduction === 'micro' ? '[Micro]' : '[Macro]';
}

/**
 * What the token/class-index metrics read (TopKAccuracy, Perplexity): scores `[batch, classes]`
 * with class targets `[batch]` (`ClassificationOutput`), or logits `[batch, seq, vocab]` with token
 * targets `[batch, seq]` (`SequenceOutput`, flattened to `[batch·seq, vocab]`).
 */
export interface ClassIndexInput {
  readonly output: Tensor<2, Float> | Tensor<3, Float>;
  readonly targets: Tensor<1, Int> | Tensor<2, Int>;
}

/** Reads scores as `rows × c` and one target index per row, checking shapes. */
export async function readClassIndexBatch(
  input: ClassIndexInput,
  op: string,
): Promise<{ rows: number; c: number; scores: NumericArray; targets: NumericArray }> {
  const dims = input.output.dims();
  const tdims = input.targets.dims();
  const ok =
    dims.length === tdims.length + 1 && tdims.every((d, i) => d === dims[i]) && dims.length >= 2 && dims.length <= 3;
  if (!ok)
    throw new BurnError(
      op,
      `outputs ${fmt(dims)} and targets ${fmt(tdims)}; expected [batch, classes] with [batch], or [batch, seq, vocab] with [batch, seq]`,
    );
  const c = dims[dims.length - 1]!;
  const rows = tdims.reduce((a, b) => a * b, 1);
  return {
    rows,
    c,
    scores: (await input.output.toData()).toArray(),
    targets: (await input.targets.toData()).toArray(),
  };
}
