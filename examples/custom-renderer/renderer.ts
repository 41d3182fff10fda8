// A renderer of our own for the Learner (Burn's `MetricsRenderer`): one compact line per epoch
// and split, with a sparkline of the batch losses, instead of the dashboard or the plain lines.
import type { MetricHistory, MetricState, MetricsRenderer, TrainingProgress } from 'burn-ts/train';

type Split = TrainingProgress['split'];
const BARS = '▁▂▃▄▅▆▇█';

/** A sparkline of `values`, at most `width` characters (values averaged into buckets). */
export function sparkline(values: readonly number[], width = 40): string {
  if (values.length === 0) return '';
  const buckets = Array.from({ length: Math.min(width, values.length) }, (_, b, n = Math.min(width, values.length)) => {
    const part = values.slice(Math.floor((b * values.length) / n), Math.floor(((b + 1) * values.length) / n));
    return part.reduce((a, v) => a + v, 0) / part.length;
  });
  const lo = Math.min(...buckets),
    hi = Math.max(...buckets);
  return buckets.map((v) => BARS[hi === lo ? 0 : Math.round(((v - lo) / (hi - lo)) * (BARS.length - 1))]).join('');
}

/** What the renderer saw, for the example's summary (and its smoke test). */
export interface RendererCounts {
  renders: number;
  updates: number;
  epochEnds: number;
  closed: boolean;
}

export class SparklineRenderer implements MetricsRenderer {
  readonly counts: RendererCounts = { renders: 0, updates: 0, epochEnds: 0, closed: false };
  /** The latest state of each metric of the running split. */
  private readonly latest = new Map<string, MetricState>();
  private batchLosses: number[] = [];
  private lastProgress: TrainingProgress | undefined;
  private stop: (() => void) | undefined;

  constructor(private readonly out: (line: string) => void = (line) => console.log(line)) {}

  update(_split: Split, metric: MetricState): void {
    this.counts.updates++;
    this.latest.set(metric.name, metric);
    if (metric.name === 'Loss' && metric.batch !== undefined) this.batchLosses.push(metric.batch);
  }

  render(progress: TrainingProgress): void {
    this.counts.renders++;
    this.lastProgress = progress;
  }

  epochEnd(split: Split, epoch: number, history: MetricHistory): void {
    this.counts.epochEnds++;
    const values = [...history[split]]
      .map(([name, perEpoch]) => `${name} ${perEpoch[epoch - 1]?.toFixed(4)}`)
      .join('  ');
    const items = this.lastProgress ? `${this.lastProgress.itemsProcessed} items` : '';
    this.out(
      `${split.padEnd(5)} epoch ${epoch}/${this.lastProgress?.epochTotal ?? '?'}  ${values}  ${items}  loss ${sparkline(this.batchLosses)}`,
    );
    this.batchLosses = [];
    this.latest.clear();
  }

  /** The Learner hands over a function that stops training gracefully after the current step. */
  onStopRequest(stop: () => void): void {
    this.stop = stop;
  }

  /** Stops the training from outside (e.g. a signal handler). */
  requestStop(): void {
    this.stop?.();
  }

  close(summary: string | undefined): void {
    this.counts.closed = true;
    if (summary !== undefined) this.out(summary);
  }
}
