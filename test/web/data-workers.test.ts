// The data loader on Web Workers in headless Chromium (Debian's chromium, playwright-core): the
// page (data-workers/page.ts) and its worker module (data-workers/worker.ts, which calls
// serveDataWorker) are bundled by esbuild as a bundler would (package.json's browser field) and
// served from 127.0.0.1. Two workers must deliver the same batches, in the same order, as the main
// thread, and the items must have been loaded in the workers; a recipe whose factory the worker
// does not serve and a worker module that cannot load are BurnErrors from the iteration.
// Skips (and fails under BURN_TEST_STRICT=1) when Chromium, playwright-core or esbuild is missing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { browserMissing, bundleForBrowser, runPage } from '../helpers/browser.js';
import type { DataWorkersResult } from './data-workers/page.js';

const here = (name: string) => fileURLToPath(new URL(`./data-workers/${name}`, import.meta.url));

describe('DataLoader on Web Workers in a page', { skip: browserMissing ?? false }, () => {
  it('two Web Workers load the same batches as the main thread; unknown factories and broken entries are clear errors', {
    timeout: 180_000,
  }, async () => {
    const worker = await bundleForBrowser(here('worker.ts'));
    const r = await runPage<DataWorkersResult>(here('page.ts'), {
      files: { '/data-worker.js': ['text/javascript', worker] },
    });
    assert.equal(r.mode, 'workers');
    assert.equal(r.modeWithoutWebWorker, 'main-thread');
    assert.equal(r.workerBatches.length, 5);
    assert.deepEqual(
      r.workerBatches.map((b) => b.map((s) => s.i)),
      r.pageBatches.map((b) => b.map((s) => s.i)),
    );
    const items = r.workerBatches.flat();
    assert.deepEqual(
      items.map((s) => s.i).sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, k) => k + 5),
    );
    for (const s of items) {
      assert.equal(s.loadedIn, 'worker');
      assert.equal(s.square, s.i * s.i);
      assert.deepEqual(
        s.row,
        Array.from({ length: 20 }, (_, k) => s.i + k / 2),
      );
    }
    assert.ok(r.pageBatches.flat().every((s) => s.loadedIn === 'page'));
    assert.match(
      r.unknownFactory,
      /^BurnError: serveDataWorker: the dataset's recipe names the factory 'openUnknown' \(of .*\), which this worker does not serve; pass it: serveDataWorker\(\{ openUnknown \}\) \(served: .*openSquares\)$/,
    );
    assert.match(r.missingEntry, /^BurnError: DataLoader: data loader worker 0 failed: /);
  });
});
