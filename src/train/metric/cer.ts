import { BurnError, fmt } from '../../core/errors.js';
import type { Float, Int } from '../../tensor/kind.js';
import type { Tensor } from '../../tensor/tensor.js';
import { NumericMetric, type MetricEntry } from './base.js';

/**
 * What the error-rate metrics read, one of:
 * - logits `[batch, seq, vocab]` and token targets `[batch, seq]` (a `SequenceOutput`: the
 *   predicted tokens are the argmax over the vocabulary);
 * - predicted tokens `[batch, seq]` and token targets `[batch, seq]` (Burn's `CerInput`/`WerInput`);
 * - predicted and reference texts, one string per sample.
 */
export type ErrorRateInput =
  | { readonly output: Tensor<3, Float>; readonly targets: Tensor<2, Int> }
  | { readonly predictions: Tensor<2, Int>; readonly targets: Tensor<2, Int> }
  | { readonly predictions: readonly string[]; readonly targets: readonly string[] };

/** Options of {@link CharErrorRate} and {@link WordErrorRate}. */
export interface ErrorRateOptions {
  /** Token sequences end at the first occurrence of this token (right padding); ignored for texts. */
  readonly padToken?: number;
}

/**
 * The Levenshtein distance between two sequences: the fewest insertions, deletions and
 * substitutions that turn `reference` into `prediction` (two-row dynamic programme).
 */
export function editDistance<T>(reference: ArrayLike<T>, prediction: ArrayLike<T>): number {
  let prev = Array.from({ length: prediction.length + 1 }, (_, j) => j);
  let curr = new Array<number>(prediction.length + 1).fill(0);
  for (let i = 0; i < reference.length; i++) {
    curr[0] = i + 1;
    for (let j = 0; j < prediction.length; j++) {
      curr[j + 1] = reference[i] === prediction[j] ? prev[j]! : 1 + Math.min(prev[j]!, prev[j + 1]!, curr[j]!);
    }
    [prev, curr] = [curr, prev];
  }
  return prev[prediction.length]!;
}

/** The (prediction, reference) unit sequences of each sample of a batch. */
export async function errorRatePairs(
  input: ErrorRateInput,
  op: string,
  padToken: number | undefined,
  units: (text: string) => string[],
): Promise<[unknown[], unknown[]][]> {
  if ('predictions' in input && Array.isArray(input.predictions)) {
    const predictions = input.predictions as readonly string[];
    const targets = input.targets as readonly string[];
    if (!Array.isArray(targets) || targets.length !== predictions.length) {
      throw new BurnError(
        op,
        `${predictions.length} predicted texts and ${Array.isArray(targets) ? targets.length : 'non-text'} targets; expected one reference text per prediction`,
      );
    }
    return predictions.map((p, i) => [units(p), units(targets[i]!)]);
  }
  const targets = input.targets as Tensor<2, Int>;
  const pdims = 'output' in input ? input.output.dims() : (input.predictions as Tensor<2, Int>).dims();
  const tdims = targets.dims();
  const rank = 'output' in input ? 3 : 2;
  if (tdims.length !== 2 || pdims.length !== rank || pdims[0] !== tdims[0] || pdims[1] !== tdims[1]) {
    throw new BurnError(
      op,
      `predictions ${fmt(pdims)} and targets ${fmt(tdims)}; expected [batch, seq] tokens (or [batch, seq, vocab] logits) and [batch, seq] targets`,
    );
  }
  const [batch, seq] = tdims as [number, number];
  const predicted =
    'output' in input ? input.output.argmax(2).reshape([batch, seq]) : (input.predictions as Tensor<2, Int>);
  const p = (await predicted.toData()).toArray(),
    t = (await targets.toData()).toArray();
  const strip = (values: ArrayLike<number>, start: number): number[] => {
    const out: number[] = [];
    for (let j = 0; j < seq; j++) {
      const v = values[start + j]!;
      if (padToken !== undefined && v === padToken) break;
      out.push(v);
    }
    return out;
  };
  return Array.from({ length: batch }, (_, i) => [strip(p, i * seq), strip(t, i * seq)]);
}

/** Shared update of CER and WER: total edits over total reference units, in percent. */
export abstract class ErrorRateMetric extends NumericMetric<ErrorRateInput> {
  override readonly higherIsBetter = false;
  override readonly unit = '%';
  /** Options it was built with. */
  readonly options: ErrorRateOptions;

  constructor(options: ErrorRateOptions = {}) {
    super();
    this.options = options;
  }

  /** Splits a text into units (characters or words). */
  protected abstract units(text: string): string[];

  async update(input: ErrorRateInput): Promise<MetricEntry> {
    const pairs = await errorRatePairs(input, this.name, this.options.padToken, (t) => this.units(t));
    let edits = 0,
      length = 0;
    for (const [prediction, reference] of pairs) {
      edits += editDistance(reference, prediction);
      length += reference.length;
    }
    return this.record(length > 0 ? (100 * edits) / length : 0, length);
  }
}

/**
 * Character error rate in percent (Burn's `CharErrorRate`, named `CER`): the edit distance between
 * predicted and reference sequences over the reference length, summed over the epoch (the epoch
 * value weighs batches by their reference length, so it is total edits / total characters).
 * Tokens count as characters; texts are split into Unicode code points. Lower is better.
 */
export class CharErrorRate extends ErrorRateMetric {
  readonly name = 'CER';

  /** A fresh metric with the same configuration. */
  clone(): CharErrorRate {
    return new CharErrorRate(this.options);
  }

  protected units(text: string): string[] {
    return Array.from(text);
  }
}
