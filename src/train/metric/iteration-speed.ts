import { formatValue, type Metric, type MetricEntry, type MetricMetadata } from './base.js';

/** Options of {@link IterationSpeedMetric}. */
export interface IterationSpeedOptions {
  /** Count iterations (`iter/sec`, Burn's default) or items (`items/sec`). */
  readonly per?: 'iteration' | 'item';
  /** The clock in milliseconds (default `performance.now`; for tests). */
  readonly now?: () => number;
}

/**
 * Training speed (Burn's `IterationSpeedMetric`, named `Iteration Speed`): iterations (or items)
 * per second since the first step of the epoch. The clock starts at the epoch's first update, so
 * that update has no value; later values are the epoch's throughput so far, and the epoch value
 * is the last one (iterations / elapsed time over the epoch).
 */
export class IterationSpeedMetric implements Metric<unknown> {
  readonly name = 'Iteration Speed';
  readonly higherIsBetter = true;
  readonly unit: string;
  /** Options it was built with. */
  readonly options: IterationSpeedOptions;
  private readonly now: () => number;
  private start: { time: number; count: number } | undefined;
  private current: number | undefined;

  constructor(options: IterationSpeedOptions = {}) {
    this.options = options;
    this.unit = options.per === 'item' ? 'items/sec' : 'iter/sec';
    this.now = options.now ?? (() => performance.now());
  }

  /** A fresh metric with the same configuration. */
  clone(): IterationSpeedMetric {
    return new IterationSpeedMetric(this.options);
  }

  async update(_input: unknown, meta: MetricMetadata): Promise<MetricEntry> {
    const count = this.options.per === 'item' ? meta.progress.itemsProcessed : meta.iteration;
    const time = this.now();
    if (!this.start) {
      this.start = { time, count };
      return { name: this.name, formatted: `epoch N/A ${this.unit} - batch N/A ${this.unit}`, serialized: '' };
    }
    const seconds = (time - this.start.time) / 1000;
    const speed = seconds > 0 ? (count - this.start.count) / seconds : 0;
    this.current = speed;
    return {
      name: this.name,
      formatted: `epoch ${formatValue(speed, this.unit, 2)} - batch ${formatValue(speed, this.unit, 2)}`,
      serialized: `${speed},1`,
      batch: speed,
    };
  }

  value(): number | undefined {
    return this.current;
  }

  clear(): void {
    this.start = undefined;
    this.current = undefined;
  }
}
