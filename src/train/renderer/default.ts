import { CliRenderer } from './cli.js';
import type { MetricsRenderer } from './base.js';

/** Hook set by the dashboard module when it is available (TTY rendering with ink). */
export const dashboardFactory: { create?: () => MetricsRenderer } = {};

/** The dashboard on an interactive terminal, plain lines otherwise (CI, pipes). */
export function defaultRenderer(): MetricsRenderer {
  if (process.stdout.isTTY && dashboardFactory.create && process.env['BURN_NO_DASHBOARD'] !== '1') return dashboardFactory.create();
  return new CliRenderer();
}
