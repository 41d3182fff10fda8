import { render, type Instance } from 'ink';
import type { Split } from '../../logger.js';
import type { MetricHistory, MetricsRenderer, MetricState, TrainingProgress } from '../base.js';
import { Dashboard, type DashboardAction } from './app.js';
import { DashboardState } from './state.js';

/** Options of {@link TuiRenderer}. */
export interface TuiRendererOptions {
  /** Output terminal (default process.stdout). */
  readonly stdout?: NodeJS.WriteStream;
  /** Input for key presses (default process.stdin). */
  readonly stdin?: NodeJS.ReadStream;
  /**
   * Minimum milliseconds between two redraws driven by progress (default 200; it grows to 4× the
   * time a redraw takes, so drawing never costs more than a fifth of the training time).
   */
  readonly intervalMs?: number;
}

/**
 * The terminal dashboard (Burn's TUI renderer) built with ink: progress bars with ETA for the
 * train and valid splits and the whole run, the metric values of both splits, a braille line
 * plot per metric (full history or recent iterations; ←/→ switch metric, ↑/↓ switch plot), and
 * `q` to stop gracefully (the loop finishes the step, writes its checkpoint and returns).
 * `SupervisedTraining` uses it by default when stdout is a terminal.
 */
export class TuiRenderer implements MetricsRenderer {
  /** The dashboard's state (for inspection). */
  readonly state = new DashboardState();
  private readonly stdout: NodeJS.WriteStream;
  private readonly stdin: NodeJS.ReadStream;
  private readonly intervalMs: number;
  private instance: Instance | undefined;
  private stop: (() => void) | undefined;
  private lastDraw = 0;
  private drawCost = 0;
  private closed = false;

  constructor(options: TuiRendererOptions = {}) {
    this.stdout = options.stdout ?? process.stdout;
    this.stdin = options.stdin ?? process.stdin;
    this.intervalMs = options.intervalMs ?? 200;
  }

  update(split: Split, metric: MetricState): void {
    this.state.update(split, metric);
  }

  render(progress: TrainingProgress): void {
    this.state.render(progress);
    this.draw(false);
  }

  epochEnd(split: Split, epoch: number, history: MetricHistory): void {
    this.state.epochEnd(split, epoch, history);
    this.draw(true);
  }

  onStopRequest(stop: () => void): void {
    this.stop = stop;
  }

  async close(summary: string | undefined): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.state.finished = true;
    if (this.instance) {
      this.draw(true);
      this.instance.unmount();
      await this.instance.waitUntilExit();
      this.instance = undefined;
    }
    // The last frame stays on screen; the summary goes below it.
    if (summary) this.stdout.write(`\n${summary}\n`);
  }

  /** Handles a key action from the dashboard. */
  private act(action: DashboardAction): void {
    if (action === 'interrupt' && this.state.stopping) {
      // A second Ctrl-C: the terminal is in raw mode (no SIGINT), so leave at once, as Ctrl-C would.
      this.instance?.unmount();
      process.exit(130);
    }
    if (action === 'stop' || action === 'interrupt') {
      if (!this.state.stopping) {
        this.state.stopping = 'Stopping: finishing the step, then checkpoint and summary… (Ctrl-C again to quit now)';
        this.stop?.();
      }
    } else if (action === 'next-metric') {
      this.state.selectMetric(1);
    } else if (action === 'previous-metric') {
      this.state.selectMetric(-1);
    } else {
      this.state.cyclePlot(action === 'next-plot' ? 1 : -1);
    }
    this.draw(true);
  }

  private draw(force: boolean): void {
    if (this.closed && this.instance === undefined) return;
    const now = Date.now();
    if (!force && now - this.lastDraw < Math.max(this.intervalMs, 4 * this.drawCost)) return;
    const element = (
      <Dashboard state={this.state} columns={this.stdout.columns ?? 100} rows={this.stdout.rows ?? 40} onAction={(a) => this.act(a)} />
    );
    if (this.instance) this.instance.rerender(element);
    else this.instance = render(element, { stdout: this.stdout, stdin: this.stdin, exitOnCtrlC: false, patchConsole: true });
    this.lastDraw = Date.now();
    this.drawCost = this.lastDraw - now;
  }
}
