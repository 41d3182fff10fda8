import type { Split } from './logger.js';
import type { MetricHistory } from './renderer/base.js';

/** One metric of one split in the summary. */
export interface MetricSummary {
  readonly split: Split;
  readonly name: string;
  readonly best: number;
  readonly bestEpoch: number;
  readonly last: number;
  readonly higherIsBetter: boolean;
}

/** The end-of-training summary (Burn's `LearnerSummary`): best and last value per metric and split. */
export class TrainingSummary {
  constructor(
    readonly epochs: number,
    readonly metrics: readonly MetricSummary[],
    /** Wall-clock seconds. */
    readonly seconds: number,
  ) {}

  /**
   * Builds the summary from the per-epoch history; the metrics named in `settings` (training
   * settings such as the learning rate, which have no "best") are left out.
   */
  static fromHistory(
    history: MetricHistory,
    higherIsBetter: ReadonlyMap<string, boolean>,
    epochs: number,
    seconds: number,
    settings: ReadonlySet<string> = new Set(),
  ): TrainingSummary {
    const metrics: MetricSummary[] = [];
    for (const split of ['train', 'valid'] as const) {
      for (const [name, values] of history[split]) {
        if (settings.has(name)) continue;
        const finite = values.map((v, i) => [v, i + 1] as const).filter(([v]) => Number.isFinite(v));
        if (finite.length === 0) continue;
        const hib = higherIsBetter.get(name) ?? true;
        const [best, bestEpoch] = finite.reduce((a, b) => ((hib ? b[0] > a[0] : b[0] < a[0]) ? b : a));
        metrics.push({ split, name, best, bestEpoch, last: finite[finite.length - 1]![0], higherIsBetter: hib });
      }
    }
    return new TrainingSummary(epochs, metrics, seconds);
  }

  /** The summary table. */
  toString(): string {
    const rows = this.metrics.map((m) => [
      m.split === 'train' ? 'Train' : 'Valid',
      m.name,
      num(m.best),
      String(m.bestEpoch),
      num(m.last),
    ]);
    const header = ['Split', 'Metric', 'Best', 'Epoch', 'Last'];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
    return [
      '======================== Training Summary ========================',
      `Total epochs: ${this.epochs}    Time: ${this.seconds.toFixed(1)} s`,
      '',
      line(header),
      `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
      ...rows.map(line),
    ].join('\n');
  }
}

function num(v: number): string {
  return Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : v.toFixed(4);
}
