import { BurnError } from '../../core/errors.js';
import type { Metric, MetricEntry } from './base.js';

interface Os {
  cpus(): { times: { user: number; nice: number; sys: number; idle: number; irq: number } }[];
  totalmem(): number;
  freemem(): number;
}

/** node:os, resolved at run time (system metrics need Node.js). */
export function nodeOs(op: string): Os {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const os = get?.('node:os') as Os | undefined;
  if (!os) throw new BurnError(op, 'system metrics need Node.js (node:os)');
  return os;
}

/** Busy and total CPU time over every core so far (milliseconds). */
function cpuTimes(): { busy: number; total: number } {
  let busy = 0,
    total = 0;
  for (const { times } of nodeOs('CpuUse').cpus()) {
    const all = times.user + times.nice + times.sys + times.idle + times.irq;
    total += all;
    busy += all - times.idle;
  }
  return { busy, total };
}

/** Options of {@link CpuUse}. */
export interface CpuUseOptions {
  /** Minimum milliseconds between two measurements (default 200, as Burn). */
  readonly refreshMs?: number;
}

/**
 * System CPU usage in percent, averaged over every core (Burn's `CpuUse`, named `CPU Usage`):
 * the busy share of CPU time since the previous measurement, refreshed at most every 200 ms. Its
 * value is the latest measurement (not an epoch mean), as in Burn. Lower is better.
 */
export class CpuUse implements Metric<unknown> {
  readonly name = 'CPU Usage';
  readonly higherIsBetter = false;
  readonly unit = '%';
  /** Options it was built with. */
  readonly options: CpuUseOptions;
  private last = cpuTimes();
  private lastRefresh = Date.now();
  private current = 0;

  constructor(options: CpuUseOptions = {}) {
    this.options = options;
  }

  /** A fresh metric with the same configuration. */
  clone(): CpuUse {
    return new CpuUse(this.options);
  }

  /** Measures now (ignoring the refresh interval) and returns the usage in percent. */
  refresh(): number {
    const now = cpuTimes();
    const total = now.total - this.last.total;
    if (total > 0) this.current = (100 * (now.busy - this.last.busy)) / total;
    this.last = now;
    this.lastRefresh = Date.now();
    return this.current;
  }

  async update(): Promise<MetricEntry> {
    if (Date.now() - this.lastRefresh >= (this.options.refreshMs ?? 200)) this.refresh();
    return {
      name: this.name,
      formatted: `${this.current.toFixed(2)} %`,
      serialized: this.current.toFixed(2),
      batch: this.current,
    };
  }

  value(): number {
    return this.current;
  }

  clear(): void {}
}
