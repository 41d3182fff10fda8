import { BurnError } from '../../core/errors.js';
import { formatValue, type Metric, type MetricEntry } from './base.js';
import { readClassIndexBatch, type ClassIndexInput } from './classification.js';

/** Options of {@link PerplexityMetric}. */
export interface PerplexityOptions {
  /** Targets equal to this value are padding and not counted. */
  readonly padToken?: number;
}

/**
 * Perplexity, `exp(−Σ log p(target) / tokens)` from the logits (log-softmax over the last dim),
 * Burn's `PerplexityMetric`. The negative log-likelihood and the token count are summed over the
 * epoch, so the epoch value is the perplexity of the whole epoch (not a mean of batch perplexities).
 * Lower is better.
 */
export class PerplexityMetric implements Metric<ClassIndexInput> {
  readonly name = 'Perplexity';
  readonly higherIsBetter = false;
  readonly unit = undefined;
  /** Options it was built with. */
  readonly options: PerplexityOptions;
  private sumNll = 0;
  private tokens = 0;

  constructor(options: PerplexityOptions = {}) {
    this.options = options;
  }

  /** A fresh metric with the same configuration. */
  clone(): PerplexityMetric {
    return new PerplexityMetric(this.options);
  }

  async update(input: ClassIndexInput): Promise<MetricEntry> {
    const { rows, c, scores, targets } = await readClassIndexBatch(input, 'PerplexityMetric');
    let nll = 0,
      tokens = 0;
    for (let i = 0; i < rows; i++) {
      const t = targets[i]!;
      if (this.options.padToken !== undefined && t === this.options.padToken) continue;
      if (!(Number.isInteger(t) && t >= 0 && t < c))
        throw new BurnError('PerplexityMetric', `target ${t} at position ${i}; expected a token index in [0, ${c})`);
      let max = -Infinity;
      for (let j = 0; j < c; j++) max = Math.max(max, scores[i * c + j]!);
      let sum = 0;
      for (let j = 0; j < c; j++) sum += Math.exp(scores[i * c + j]! - max);
      nll -= scores[i * c + t]! - max - Math.log(sum);
      tokens++;
    }
    this.sumNll += nll;
    this.tokens += tokens;
    const batch = tokens > 0 ? Math.exp(nll / tokens) : Number.POSITIVE_INFINITY;
    const epoch = this.value() ?? Number.POSITIVE_INFINITY;
    return {
      name: this.name,
      formatted: `epoch ${formatValue(epoch, undefined, 2)} - batch ${formatValue(batch, undefined, 2)}`,
      serialized: `${batch},${tokens}`,
      batch,
    };
  }

  value(): number | undefined {
    return this.tokens > 0 ? Math.exp(this.sumNll / this.tokens) : undefined;
  }

  clear(): void {
    this.sumNll = 0;
    this.tokens = 0;
  }
}
