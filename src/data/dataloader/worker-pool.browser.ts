// The browser build of ./worker-pool.ts (selected by package.json's "browser" field): a page has
// no node:worker_threads, and the data loader loads items on the main thread there (see
// loader.ts's workersAvailable), so this pool is never constructed by it.
import { BurnError } from '../../core/errors.js';
import type { WorkerRecipe } from '../dataset/recipe.js';
import type { ItemSource } from './item-source.js';

/** Data loader worker threads: Node-only; in a browser the loader uses the main thread. */
export class WorkerPool implements ItemSource {
  readonly mode = 'workers';

  constructor(recipe: WorkerRecipe, numWorkers: number) {
    throw new BurnError('DataLoader', `${numWorkers} worker threads for ${recipe.export}: worker threads are Node-only; in a browser items load on the main thread (numWorkers(0))`);
  }

  load(): Promise<unknown[]> {
    return Promise.reject(new BurnError('DataLoader', 'worker threads are Node-only'));
  }

  async close(): Promise<void> {}
}
