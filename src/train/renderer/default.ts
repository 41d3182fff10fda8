import { CliRenderer } from './cli.js';
import type { MetricsRenderer } from './base.js';

/** Hook set when the dashboard module is loaded (TTY rendering with ink); see {@link preloadDashboard}. */
export const dashboardFactory: { create?: () => MetricsRenderer } = {};

/** Whether this process would show the dashboard: stdout is a terminal and `BURN_NO_DASHBOARD` is not `1`. */
export function wantsDashboard(): boolean {
  const proc = (globalThis as { process?: { stdout?: { isTTY?: boolean }; env?: Record<string, string | undefined> } })
    .process;
  return proc?.stdout?.isTTY === true && proc.env?.['BURN_NO_DASHBOARD'] !== '1';
}

/**
 * Loads the terminal dashboard (ink, React) and registers it in {@link dashboardFactory} — only
 * when {@link wantsDashboard}, so importing `burn-ts/train` or training in CI never loads ink. If
 * it cannot be loaded, the plain line renderer stays the default.
 */
export async function preloadDashboard(): Promise<void> {
  if (dashboardFactory.create || !wantsDashboard()) return;
  try {
    const { TuiRenderer } = await import('./tui/renderer.js');
    dashboardFactory.create = () => new TuiRenderer();
  } catch (error) {
    process.stderr.write(
      `burn-ts: the terminal dashboard could not be loaded (${(error as Error).message}); using plain output\n`,
    );
  }
}

/** The dashboard on an interactive terminal (once preloaded), plain lines otherwise (CI, pipes). */
export function defaultRenderer(): MetricsRenderer {
  if (wantsDashboard() && dashboardFactory.create) return dashboardFactory.create();
  return new CliRenderer();
}
