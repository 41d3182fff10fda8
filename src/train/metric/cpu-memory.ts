import type { Metric, MetricEntry } from './base.js';
import { nodeOs } from './cpu-use.js';

/** Options of {@link CpuMemory}. */
export interface CpuMemoryOptions {
  /** Minimum milliseconds between two measurements (default 200, as Burn). */
  readonly refreshMs?: number;
}

/**
 * System RAM in use in gigabytes (10⁹ bytes): total minus available memory (Burn's `CpuMemory`,
 * named `CPU Memory`, shown as `RAM Used: 3.21 / 16.00 Gb`), refreshed at most every 200 ms. Its
 * value is the latest measurement, as in Burn. Lower is better.
 */
export class CpuMemory implements Metric<unknown> {
  readonly name = 'CPU Memory';
  readonly higherIsBetter = false;
  readonly unit = 'Gb';
  /** Options it was built with. */
  readonly options: CpuMemoryOptions;
  private usedBytes = 0;
  private totalBytes = 0;
  private lastRefresh = 0;

  constructor(options: CpuMemoryOptions = {}) {
    this.options = options;
    this.refresh();
  }

  /** A fresh metric with the same configuration. */
  clone(): CpuMemory {
    return new CpuMemory(this.options);
  }

  /** Measures now; returns the used gigabytes. */
  refresh(): number {
    const os = nodeOs('CpuMemory');
    this.totalBytes = os.totalmem();
    this.usedBytes = this.totalBytes - os.freemem();
    this.lastRefresh = Date.now();
    return this.usedBytes / 1e9;
  }

  async update(): Promise<MetricEntry> {
    if (Date.now() - this.lastRefresh >= (this.options.refreshMs ?? 200)) this.refresh();
    const used = this.usedBytes / 1e9;
    return {
      name: this.name,
      formatted: `RAM Used: ${used.toFixed(2)} / ${(this.totalBytes / 1e9).toFixed(2)} Gb`,
      serialized: String(used),
      batch: used,
    };
  }

  value(): number {
    return this.usedBytes / 1e9;
  }

  clear(): void {}
}
