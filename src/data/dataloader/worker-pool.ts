import { BurnError } from '../../core/errors.js';
import { requireNodeBuiltin } from '../../platform/node-builtin.js';
import { recipeModules, type WorkerRecipe } from '../dataset/recipe.js';
import type { WorkerInit, WorkerReply } from './worker-protocol.js';
import { WorkerSlots, type WorkerEvents, type WorkerPort } from './worker-slots.js';

const isTypeScript = (url: string): boolean => /\.[cm]?ts$/.test(new URL(url, 'file:///').pathname);

/** The URL of tsx's ESM registration API, for workers that must import TypeScript modules. */
function tsxApi(modules: readonly string[]): string {
  const attempts: string[] = [];
  for (const parent of [import.meta.url, ...modules]) {
    try {
      return import.meta.resolve('tsx/esm/api', parent);
    } catch (e) {
      attempts.push((e as Error).message.split('\n')[0]!);
    }
  }
  throw new BurnError(
    'DataLoader',
    `the dataset's worker modules include TypeScript (${modules.filter(isTypeScript).join(', ')}), which a worker thread can only import through tsx, and tsx cannot be found (${attempts[0]}); install it (npm install -D tsx), or use numWorkers(0)`,
  );
}

/**
 * Data loader worker threads (Node): each imports the recipe's modules and reopens the dataset.
 * The threads do not keep the process alive while idle. The browser build of this module
 * (worker-pool.browser.ts) runs the same pool on Web Workers.
 */
export class WorkerPool extends WorkerSlots {
  private readonly boot: string;

  constructor(
    private readonly recipe: WorkerRecipe,
    numWorkers: number,
    timeoutMs = 0,
    // How a page starts a worker (worker-pool.browser.ts); Node starts its threads from this package.
    _webWorker?: unknown,
  ) {
    super(timeoutMs);
    const self = import.meta.url;
    const entry = new URL(isTypeScript(self) ? './worker.ts' : './worker.js', self).href;
    const modules = recipeModules(recipe);
    const tsx = isTypeScript(entry) || modules.some(isTypeScript) ? tsxApi(modules) : undefined;
    this.boot = `(async () => { ${tsx ? `(await import(${JSON.stringify(tsx)})).register();` : ''} await import(${JSON.stringify(entry)}); })().catch((e) => { setImmediate(() => { throw e; }); });`;
    this.start(numWorkers);
  }

  protected spawn(k: number, events: WorkerEvents): WorkerPort {
    // Resolved at run time: a bundle that keeps this module (no browser field) has no node: import.
    const { Worker } = requireNodeBuiltin<typeof import('node:worker_threads')>(
      'node:worker_threads',
      'DataLoader',
      'worker threads',
    );
    let worker: InstanceType<typeof Worker>;
    try {
      worker = new Worker(this.boot, {
        eval: true,
        workerData: { recipe: this.recipe, worker: k } satisfies WorkerInit,
        stdout: false,
        stderr: false,
      });
    } catch (e) {
      throw new BurnError(
        'DataLoader',
        `cannot send the dataset to a worker thread (${(e as Error).message}); a recipe's arguments, and the items of in-memory data, must survive a structured clone`,
      );
    }
    worker.on('message', (reply: WorkerReply) => events.reply(reply));
    worker.on('error', (e) => events.failed(`failed: ${e.message}`));
    worker.on('exit', (code) => events.failed(`exited (code ${code})`));
    return {
      post: (message) => worker.postMessage(message),
      ref: () => worker.ref(),
      unref: () => worker.unref(),
      terminate: async () => void (await worker.terminate()),
    };
  }
}
