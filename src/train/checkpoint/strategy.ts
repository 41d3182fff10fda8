import { BurnError } from '../../core/errors.js';
import { checkOptions } from '../../core/options.js';
import type { Split } from '../logger.js';
import type { Metric } from '../metric/base.js';
import type { MetricHistory } from '../renderer/base.js';
import type { CheckpointingStrategy } from './base.js';

/** Keeps the last `n` checkpoints (Burn's `KeepLastNCheckpoints`). */
export class KeepLastNCheckpoints implements CheckpointingStrategy {
  constructor(readonly n: number) {
    if (!(Number.isInteger(n) && n > 0))
      throw new BurnError('KeepLastNCheckpoints', `${n}; expected a positive integer`);
  }

  keep(saved: readonly number[]): number[] {
    return [...saved].sort((a, b) => a - b).slice(-this.n);
  }
}

/** Options of {@link MetricCheckpointingStrategy}. */
export interface MetricCheckpointingOptions {
  /** The split whose metric decides (default `valid`). */
  readonly split?: Split;
  /** `lowest` or `highest` is best (default: from the metric). */
  readonly direction?: 'lowest' | 'highest';
}

/** Keeps the checkpoint with the best value of a metric (Burn's `MetricCheckpointingStrategy`). */
export class MetricCheckpointingStrategy implements CheckpointingStrategy {
  private readonly name: string;
  private readonly split: Split;
  private readonly higher: boolean;

  constructor(metric: Pick<Metric, 'name' | 'higherIsBetter'>, options: MetricCheckpointingOptions = {}) {
    checkOptions(options, ['split', 'direction'], 'MetricCheckpointingStrategy');
    this.name = metric.name;
    this.split = options.split ?? 'valid';
    this.higher = options.direction === undefined ? metric.higherIsBetter : options.direction === 'highest';
  }

  keep(saved: readonly number[], history: MetricHistory): number[] {
    const values = history[this.split].get(this.name);
    if (!values) return [];
    let best: number | undefined;
    for (const e of saved) {
      const v = values[e - 1];
      if (v === undefined || !Number.isFinite(v)) continue;
      if (best === undefined || (this.higher ? v > values[best - 1]! : v < values[best - 1]!)) best = e;
    }
    return best === undefined ? [] : [best];
  }
}

/** Keeps what any of its strategies keeps (Burn's `ComposedCheckpointingStrategy`). */
export class ComposedCheckpointingStrategy implements CheckpointingStrategy {
  constructor(readonly strategies: readonly CheckpointingStrategy[]) {}

  keep(saved: readonly number[], history: MetricHistory): number[] {
    return [...new Set(this.strategies.flatMap((s) => s.keep(saved, history)))].sort((a, b) => a - b);
  }
}

/** Burn's default: the last 2 checkpoints plus the one with the lowest validation loss. */
export function defaultCheckpointingStrategy(): CheckpointingStrategy {
  return new ComposedCheckpointingStrategy([
    new KeepLastNCheckpoints(2),
    new MetricCheckpointingStrategy({ name: 'Loss', higherIsBetter: false }),
  ]);
}
