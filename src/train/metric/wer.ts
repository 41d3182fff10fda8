import { ErrorRateMetric } from './cer.js';

/**
 * Word error rate in percent (Burn's `WordErrorRate`, named `WER`): the edit distance between
 * predicted and reference word sequences over the reference word count, summed over the epoch.
 * Tokens count as words; texts are split on whitespace. Lower is better.
 */
export class WordErrorRate extends ErrorRateMetric {
  readonly name = 'WER';

  /** A fresh metric with the same configuration. */
  clone(): WordErrorRate {
    return new WordErrorRate(this.options);
  }

  protected units(text: string): string[] {
    return text.split(/\s+/).filter((w) => w.length > 0);
  }
}
