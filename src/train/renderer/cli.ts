import { checkOptions } from '../../core/options.js';
import type { Split } from '../logger.js';
import type { MetricHistory, MetricsRenderer, MetricState, TrainingProgress } from './base.js';

/** Options of {@link CliRenderer}. */
export interface CliRendererOptions {
  /** Where lines go (default: process.stdout). */
  readonly write?: (line: string) => void;
  /** Minimum milliseconds between two progress lines (default 1000; 0 prints every step). */
  readonly intervalMs?: number;
}

/**
 * Plain, line-oriented progress for non-TTY output (CI, pipes): a progress line at most once per
 * interval and at the end of each epoch, then the epoch's metric values.
 */
export class CliRenderer implements MetricsRenderer {
  private readonly write: (line: string) => void;
  private readonly intervalMs: number;
  private readonly latest: Record<Split, Map<string, MetricState>> = { train: new Map(), valid: new Map() };
  private lastPrint = 0;

  constructor(options: CliRendererOptions = {}) {
    checkOptions(options, ['write', 'intervalMs'], 'CliRenderer');
    // Pages have no process.stdout: lines go to the console there.
    this.write =
      options.write ??
      (globalThis.process?.stdout ? (line) => void process.stdout.write(`${line}\n`) : (line) => console.log(line));
    this.intervalMs = options.intervalMs ?? 1000;
  }

  update(split: Split, metric: MetricState): void {
    this.latest[split].set(metric.name, metric);
  }

  render(p: TrainingProgress): void {
    const now = Date.now();
    const done = p.itemsProcessed >= p.itemsTotal;
    if (!done && now - this.lastPrint < this.intervalMs) return;
    this.lastPrint = now;
    const pct = p.itemsTotal > 0 ? ((100 * p.itemsProcessed) / p.itemsTotal).toFixed(0) : '0';
    const metrics = [...this.latest[p.split].values()].map((m) => `${m.name}: ${m.formatted}`).join(' | ');
    this.write(
      `[${p.split}] epoch ${p.epoch}/${p.epochTotal} iteration ${p.iteration} items ${p.itemsProcessed}/${p.itemsTotal} (${pct}%)${metrics ? ` - ${metrics}` : ''}`,
    );
  }

  epochEnd(split: Split, epoch: number, history: MetricHistory): void {
    const values = [...history[split].entries()].map(([name, v]) => `${name} ${fmt(v[v.length - 1])}`).join(', ');
    this.write(`[${split}] epoch ${epoch} done${values ? `: ${values}` : ''}`);
    this.latest[split].clear();
  }

  close(summary: string | undefined): void {
    if (summary) this.write(summary);
  }
}

function fmt(v: number | undefined): string {
  return v === undefined || Number.isNaN(v)
    ? 'n/a'
    : Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-3 && v !== 0)
      ? v.toExponential(3)
      : v.toFixed(4);
}
