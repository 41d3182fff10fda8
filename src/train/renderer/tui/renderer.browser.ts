// The browser build of ./renderer.tsx (selected by package.json's "browser" field): the terminal
// dashboard needs ink and a TTY, so pages never load it (wantsDashboard() is false without
// process.stdout) and bundles do not carry ink and React.
import { BurnError } from '../../../core/errors.js';
import type { MetricsRenderer } from '../base.js';

/** The terminal dashboard: Node-only (a page renders metrics with its own `MetricsRenderer`). */
export class TuiRenderer implements MetricsRenderer {
  constructor() {
    throw new BurnError(
      'TuiRenderer',
      'the terminal dashboard is Node-only; in a browser pass your own renderer to SupervisedTraining.renderer()',
    );
  }

  update(): void {}
  render(): void {}
  epochEnd(): void {}
  async close(): Promise<void> {}
}
