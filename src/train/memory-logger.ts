import type { MetricEntry } from './metric/base.js';
import type { LoggedEntry, MetricLogger, Split } from './logger.js';

/**
 * Keeps every metric entry in memory, by split, epoch and metric name: the logger of
 * `SupervisedTraining` where there is no file system (browser pages), and a way to read a run's
 * logged values back without files.
 */
export class InMemoryMetricLogger implements MetricLogger {
  private readonly entries = new Map<string, LoggedEntry[]>();

  private key(split: Split, epoch: number, name: string): string {
    return `${split}/${epoch}/${name}`;
  }

  /** Stores one entry (entries with nothing to log are skipped, as in files). */
  log(split: Split, epoch: number, entry: MetricEntry): void {
    if (entry.serialized === '') return;
    const [v, c] = entry.serialized.split(',');
    const parsed: LoggedEntry =
      c === 'final' ? { value: Number(v), count: 1, final: true } : { value: Number(v), count: Number(c ?? 1) };
    const key = this.key(split, epoch, entry.name);
    let list = this.entries.get(key);
    if (!list) this.entries.set(key, (list = []));
    list.push(parsed);
  }

  /** Nothing to write: entries are stored as they are logged. */
  flush(): void {}

  /** The entries of a metric for one epoch (a copy). */
  read(split: Split, epoch: number, name: string): LoggedEntry[] {
    return [...(this.entries.get(this.key(split, epoch, name)) ?? [])];
  }

  /** The epoch value of a metric: the final entry, else the count-weighted mean (NaN when absent). */
  epochValue(split: Split, epoch: number, name: string): number {
    const entries = this.read(split, epoch, name);
    const final = entries.findLast((e) => e.final);
    if (final) return final.value;
    const weight = entries.reduce((a, x) => a + x.count, 0);
    return weight > 0 ? entries.reduce((a, x) => a + x.value * x.count, 0) / weight : Number.NaN;
  }
}
