import type { Split } from '../../logger.js';
import { formatValue } from '../../metric/base.js';
import type { MetricHistory, MetricState, TrainingProgress } from '../base.js';

/**
 * Which plot the dashboard shows: every iteration so far (x in epochs, reduced resolution), the
 * recent iterations at full resolution, or the value of each finished epoch.
 */
export type PlotKind = 'full' | 'recent' | 'epochs';

/** The plot kinds in the order ↑/↓ cycle through them. */
export const PLOT_KINDS: readonly PlotKind[] = ['full', 'recent', 'epochs'];

/** Points kept per split in the recent plot (Burn keeps 1000). */
export const RECENT_POINTS = 1000;
/** Points kept per split in the full-history plot before halving the resolution (Burn plots 250). */
export const FULL_POINTS = 250;

type Point = readonly [number, number];

/** Everything the dashboard shows about one metric. */
export class MetricTrack {
  /** Latest state per split. */
  readonly latest: Partial<Record<Split, MetricState>> = {};
  /** Per-iteration points `(global step, value)` of the recent plot. */
  readonly recent: Record<Split, Point[]> = { train: [], valid: [] };
  /** Per-iteration points `(epoch position, value)` of the full plot, averaged pairwise when it grows. */
  readonly full: Record<Split, Point[]> = { train: [], valid: [] };
  /** Epoch values per split (index = epoch − 1). */
  readonly epochs: Record<Split, number[]> = { train: [], valid: [] };
  private step = 0;
  private readonly pending: Record<Split, Point[]> = { train: [], valid: [] };
  private readonly stride: Record<Split, number> = { train: 1, valid: 1 };

  constructor(
    readonly name: string,
    public unit: string | undefined,
    public higherIsBetter: boolean,
  ) {}

  /** Adds one iteration's value at `position` (epoch − 1 + fraction of the epoch done). */
  push(split: Split, value: number | undefined, position: number): void {
    const step = this.step++;
    if (value === undefined || !Number.isFinite(value)) return;
    const recent = this.recent[split];
    recent.push([step, value]);
    if (recent.length > RECENT_POINTS) recent.splice(0, recent.length - RECENT_POINTS);
    // Full history: average `stride` consecutive points into one; halve the resolution when full.
    const pending = this.pending[split];
    pending.push([position, value]);
    if (pending.length >= this.stride[split]) {
      const full = this.full[split];
      full.push([pending[pending.length - 1]![0], pending.reduce((a, p) => a + p[1], 0) / pending.length]);
      pending.length = 0;
      if (full.length >= 2 * FULL_POINTS) {
        const merged: Point[] = [];
        for (let i = 0; i + 1 < full.length; i += 2)
          merged.push([full[i + 1]![0], (full[i]![1] + full[i + 1]![1]) / 2]);
        full.splice(0, full.length, ...merged);
        this.stride[split] *= 2;
      }
    }
  }

  /** The display value of a split: the running epoch value, else the last epoch's value. */
  display(split: Split): string {
    const state = this.latest[split];
    const value = state?.value ?? this.epochs[split].at(-1);
    return value === undefined || Number.isNaN(value) ? '-' : formatValue(value, this.unit, 3);
  }
}

/** A split's progress with the time its current epoch started. */
interface SplitProgress {
  progress: TrainingProgress;
  started: number;
  startItems: number;
}

/**
 * The dashboard's model: progress and ETA per split, metric values and plot points, the selected
 * metric and plot kind. Pure state (no React, no terminal), driven by the renderer's calls.
 */
export class DashboardState {
  /** Metrics in registration order. */
  readonly tracks = new Map<string, MetricTrack>();
  /** Latest progress per split. */
  readonly splits: Partial<Record<Split, SplitProgress>> = {};
  /** The split running now. */
  current: Split = 'train';
  /** Index of the plotted metric. */
  selected = 0;
  /** The plot kind. */
  kind: PlotKind = 'full';
  /** Set when a stop was requested (shown in the status). */
  stopping: string | undefined;
  /** Set when training ended. */
  finished = false;
  private readonly started: number;
  private firstEpoch: number | undefined;
  private readonly queued: [Split, MetricTrack, number | undefined][] = [];

  constructor(private readonly now: () => number = Date.now) {
    this.started = now();
  }

  /** Records a metric update of `split`. */
  update(split: Split, metric: MetricState): void {
    let track = this.tracks.get(metric.name);
    if (!track) {
      track = new MetricTrack(metric.name, metric.unit, metric.higherIsBetter ?? true);
      this.tracks.set(metric.name, track);
    }
    track.unit = metric.unit;
    if (metric.higherIsBetter !== undefined) track.higherIsBetter = metric.higherIsBetter;
    track.latest[split] = metric;
    // Plotted when the step's progress arrives (the loop updates metrics first, then progress).
    this.queued.push([split, track, metric.batch ?? metric.value]);
  }

  /** Records progress (called once per step, after the step's metric updates). */
  render(progress: TrainingProgress): void {
    const previous = this.splits[progress.split];
    this.firstEpoch ??= progress.epoch;
    if (!previous || previous.progress.epoch !== progress.epoch || progress.iteration < previous.progress.iteration) {
      // A new epoch of this split: its speed is measured from the end of its first step.
      this.splits[progress.split] = { progress, started: this.now(), startItems: progress.itemsProcessed };
    } else {
      previous.progress = progress;
    }
    this.current = progress.split;
    const position =
      progress.epoch - 1 + (progress.itemsTotal > 0 ? Math.min(1, progress.itemsProcessed / progress.itemsTotal) : 0);
    for (const [split, track, value] of this.queued)
      track.push(split, value, split === progress.split ? position : progress.epoch - 1);
    this.queued.length = 0;
  }

  /** Records the end of an epoch of `split` with every epoch value so far. */
  epochEnd(split: Split, _epoch: number, history: MetricHistory): void {
    for (const [name, values] of history[split]) {
      const track = this.tracks.get(name);
      if (track) {
        track.epochs[split] = [...values];
        delete track.latest[split];
      }
    }
  }

  /** Metric names in order. */
  names(): string[] {
    return [...this.tracks.keys()];
  }

  /** The plotted metric. */
  selectedTrack(): MetricTrack | undefined {
    const names = this.names();
    if (names.length === 0) return undefined;
    return this.tracks.get(names[Math.min(this.selected, names.length - 1)]!);
  }

  /** Moves the metric selection by `delta` (wrapping). */
  selectMetric(delta: number): void {
    const n = this.tracks.size;
    if (n > 0) this.selected = (((this.selected + delta) % n) + n) % n;
  }

  /** Cycles through the plot kinds (`delta` 1: full → recent → epochs → full). */
  cyclePlot(delta = 1): void {
    const n = PLOT_KINDS.length;
    this.kind = PLOT_KINDS[(((PLOT_KINDS.indexOf(this.kind) + delta) % n) + n) % n]!;
  }

  /** Fraction done of the current epoch of `split` (0 when unknown). */
  fraction(split: Split): number {
    const p = this.splits[split]?.progress;
    return p && p.itemsTotal > 0 ? Math.min(1, p.itemsProcessed / p.itemsTotal) : 0;
  }

  /** Seconds left in the current epoch of `split`, from its speed so far (undefined until measurable). */
  eta(split: Split): number | undefined {
    const s = this.splits[split];
    if (!s) return undefined;
    const { itemsProcessed, itemsTotal } = s.progress;
    if (itemsProcessed >= itemsTotal) return 0;
    const elapsed = (this.now() - s.started) / 1000;
    const done = itemsProcessed - s.startItems;
    if (done <= 0 || elapsed <= 0) return undefined;
    return ((itemsTotal - itemsProcessed) * elapsed) / done;
  }

  /** Fraction done of the whole run (train and valid items of every epoch of this run). */
  totalFraction(): number {
    const train = this.splits.train?.progress;
    if (!train) return 0;
    const first = this.firstEpoch ?? 1;
    const epochs = train.epochTotal - first + 1;
    if (epochs <= 0) return 1;
    const trainItems = train.itemsTotal;
    const validItems = this.splits.valid?.progress.itemsTotal ?? 0;
    const perEpoch = trainItems + validItems;
    const epochIndex = train.epoch - first;
    let done =
      this.current === 'valid' && this.splits.valid?.progress.epoch === train.epoch
        ? trainItems + (this.splits.valid?.progress.itemsProcessed ?? 0)
        : train.itemsProcessed;
    if (this.current === 'train' && train.itemsProcessed >= trainItems) done = trainItems;
    return perEpoch > 0 ? Math.min(1, (epochIndex * perEpoch + done) / (epochs * perEpoch)) : 0;
  }

  /** Seconds left in the run, from the time per unit of progress so far. */
  totalEta(): number | undefined {
    const f = this.totalFraction();
    if (f <= 0) return undefined;
    if (f >= 1) return 0;
    const elapsed = (this.now() - this.started) / 1000;
    return (elapsed / f) * (1 - f);
  }

  /** Seconds since the dashboard started. */
  elapsed(): number {
    return (this.now() - this.started) / 1000;
  }
}

/** `1h 02m 03s`, `2m 05s`, `12s`; `---` when unknown. */
export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '---';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600),
    m = Math.floor((s % 3600) / 60),
    r = s % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m ${String(r).padStart(2, '0')}s`;
  if (m > 0) return `${m}m ${String(r).padStart(2, '0')}s`;
  return `${r}s`;
}
