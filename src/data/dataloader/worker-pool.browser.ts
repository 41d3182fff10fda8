// The browser build of ./worker-pool.ts (selected by package.json's "browser" field): the same
// pool on Web Workers. A page cannot start a worker from a module URL burn-ts knows (a bundler
// renames and splits modules), so the page says how: `DataLoaderBuilder.webWorker(() => new
// Worker(new URL('./data-worker.js', import.meta.url), { type: 'module' }))`, a pattern Vite,
// webpack and esbuild plugins bundle, whose module calls `serveDataWorker({ …factories })`.
import { BurnError } from '../../core/errors.js';
import type { WorkerRecipe } from '../dataset/recipe.js';
import type { WebWorkerLike } from './web-worker.js';
import type { InitRequest, WorkerReply } from './worker-protocol.js';
import { WorkerSlots, type WorkerEvents, type WorkerPort } from './worker-slots.js';

/** Data loader Web Workers, each started by the page's `spawn` and sent the dataset's recipe. */
export class WorkerPool extends WorkerSlots {
  constructor(
    private readonly recipe: WorkerRecipe,
    numWorkers: number,
    timeoutMs = 0,
    private readonly spawnWorker?: () => WebWorkerLike,
  ) {
    super(timeoutMs);
    if (!spawnWorker) {
      throw new BurnError(
        'DataLoader',
        `${numWorkers} workers for ${recipe.export}: a page starts data loader workers itself; pass DataLoaderBuilder.webWorker(() => new Worker(new URL('./data-worker.js', import.meta.url), { type: 'module' })) whose module calls serveDataWorker(), or use numWorkers(0)`,
      );
    }
    this.start(numWorkers);
  }

  protected spawn(k: number, events: WorkerEvents): WorkerPort {
    let worker: WebWorkerLike;
    try {
      worker = this.spawnWorker!();
    } catch (e) {
      throw new BurnError(
        'DataLoader',
        `cannot start data loader worker ${k}: the webWorker() function threw ${(e as Error).message}`,
      );
    }
    worker.addEventListener('message', (event) => events.reply((event as { data: WorkerReply }).data));
    worker.addEventListener('error', (event) => {
      const message = (event as { message?: string }).message;
      events.failed(
        `failed: ${message || "its module could not be loaded or threw (see the console); is it a module worker ({ type: 'module' }) that calls serveDataWorker()?"}`,
      );
    });
    worker.addEventListener('messageerror', () => events.failed('sent a message that cannot be read'));
    try {
      worker.postMessage({ type: 'init', recipe: this.recipe, worker: k } satisfies InitRequest);
    } catch (e) {
      worker.terminate();
      throw new BurnError(
        'DataLoader',
        `cannot send the dataset to a Web Worker (${(e as Error).message}); a recipe's arguments, and the items of in-memory data, must survive a structured clone`,
      );
    }
    return {
      post: (message) => worker.postMessage(message),
      ref: () => undefined,
      unref: () => undefined,
      terminate: async () => worker.terminate(),
    };
  }
}
